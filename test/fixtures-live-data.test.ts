/**
 * The default fixture set and `--generate` look like live data (field notes, "Documents"):
 * reference entries of every live type, templates keyed by numeric strings, `accessible: false`
 * documents, varied labels, descriptions and client names, all deterministic.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultApiKey } from '../src/domain/fixtures/default-keys.js';
import { FixtureError } from '../src/domain/fixtures/fixture-error.js';
import { generateDocuments } from '../src/domain/fixtures/generate-documents.js';
import {
  buildDataset,
  defaultFixturesPath,
  loadFixtureSource,
} from '../src/domain/fixtures/load-fixtures.js';
import { fixtureValidator } from '../src/domain/fixtures/validate-fixtures.js';
import { DATASET_KINDS, type Dataset, type Document } from '../src/domain/types.js';
import { createTestServer, type TestServer } from './support/test-server.js';

const REFERENCE_TYPES = ['vendors', 'locations', 'assets', 'credentials', 'contacts'] as const;
/** The template type of the documents each document reference type points at. */
const TARGET_TYPE: Record<string, string> = {
  vendors: 'vendor',
  locations: 'location',
  assets: 'asset',
  contacts: 'contact',
};

interface Reference {
  doc: Document;
  key: string;
  entry: Record<string, unknown>;
  value: { text: string; id: number; type: string };
}

/** Every detail entry of the form `{value: {text, id, type}, attribute: [...]}`. */
function referencesOf(documents: Document[]): Reference[] {
  const out: Reference[] = [];
  for (const doc of documents) {
    for (const [key, entry] of Object.entries(doc.details)) {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry) || !('attribute' in entry))
        continue;
      const value = (entry as { value: Reference['value'] }).value;
      out.push({ doc, key, entry: entry as Record<string, unknown>, value });
    }
  }
  return out;
}

const isNumericKeyed = (d: Document) => Object.keys(d.details).some((k) => /^\d+$/.test(k));

let dataset: Dataset;
beforeAll(async () => {
  dataset = (await loadFixtureSource(undefined, {})).dataset;
});

describe('the default fixture set', () => {
  it('validates against spec/fixtures.schema.json as shipped, file by file', () => {
    const raw: Record<string, unknown> = {};
    for (const key of DATASET_KINDS) {
      try {
        raw[key] = JSON.parse(readFileSync(join(defaultFixturesPath(), `${key}.json`), 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    const validate = fixtureValidator();
    expect(validate(raw), JSON.stringify(validate.errors)).toBe(true);
    expect(Object.keys(raw).sort()).toEqual(['clients', 'documents', 'organizations', 'templates']);
  });

  it('holds a few hundred documents of all 19 types over both organizations', () => {
    const typeOf = new Map(dataset.templates.map((t) => [t.id, t.type]));
    expect(new Set(dataset.documents.map((d) => typeOf.get(d.templateId))).size).toBe(19);
    expect(dataset.documents.length).toBeGreaterThanOrEqual(250);
    expect(dataset.documents.length).toBeLessThan(1000);
    expect(new Set(dataset.documents.map((d) => d.organization_id))).toEqual(new Set([1, 2]));
  });

  it('has reference entries of every type seen live, in the live form', () => {
    const refs = referencesOf(dataset.documents);
    expect(new Set(refs.map((r) => r.value.type))).toEqual(new Set(REFERENCE_TYPES));
    for (const r of refs) {
      expect(r.value).toEqual({ text: expect.any(String), id: expect.any(Number), type: r.value.type });
      expect(r.entry.attribute).toEqual([r.value]);
    }
    // Some carry name and description, some do not, as live ones.
    expect(refs.some((r) => 'name' in r.entry && 'description' in r.entry)).toBe(true);
    expect(refs.some((r) => !('name' in r.entry) && !('description' in r.entry))).toBe(true);
  });

  it('points every document reference at a document of the same organization, by id and label', () => {
    const byId = new Map(dataset.documents.map((d) => [d.id, d]));
    const typeOf = new Map(dataset.templates.map((t) => [t.id, t.type]));
    const refs = referencesOf(dataset.documents).filter((r) => r.value.type !== 'credentials');
    expect(refs.length).toBeGreaterThan(50);
    for (const r of refs) {
      const target = byId.get(r.value.id);
      const where = `${r.doc.id}/${r.key}`;
      expect(target, where).toBeDefined();
      expect(target?.organization_id, where).toBe(r.doc.organization_id);
      expect(typeOf.get(target?.templateId ?? 0), where).toBe(TARGET_TYPE[r.value.type]);
      expect(target?.label, where).toBe(r.value.text);
    }
  });

  it('has templates keyed by numeric strings, and documents of them keyed the same way', () => {
    const numeric = dataset.templates.filter((t) => t.fields.every((f) => /^\d+$/.test(f.key)));
    expect(numeric.map((t) => t.id)).toEqual([5004, 5005, 5006]);
    const ids = new Set(numeric.map((t) => t.id));
    const docs = dataset.documents.filter((d) => ids.has(d.templateId));
    expect(docs.length).toBeGreaterThan(5);
    for (const d of docs) expect(isNumericKeyed(d)).toBe(true);
    // Live template ids keep their names.
    const names = new Map(dataset.templates.map((t) => [t.id, t.name]));
    expect([79, 22, 31, 34, 37, 40, 5000, 5001].map((id) => names.get(id))).toEqual([
      'Generic Asset',
      'Active Directory',
      'Application',
      'Backup',
      'Email',
      'File Sharing',
      'Contact',
      'Location',
    ]);
  });

  it('has a few documents that are not accessible, in both organizations', () => {
    const hidden = dataset.documents.filter((d) => d.accessible === false);
    expect(hidden.length).toBeGreaterThan(2);
    expect(hidden.length).toBeLessThan(dataset.documents.length / 10);
    expect(new Set(hidden.map((d) => d.organization_id))).toEqual(new Set([1, 2]));
  });

  it('has varied labels, descriptions and client names: accents, other scripts, & and apostrophes, empties', () => {
    const labels = dataset.documents.map((d) => d.label);
    const descriptions = dataset.documents.map((d) => d.description);
    const clientNames = dataset.clients.map((c) => c.name);
    const nonLatin = /[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff]/;
    const accented = /[\u00c0-\u017f]/;
    for (const texts of [labels, descriptions]) {
      expect(texts.some((t) => nonLatin.test(t))).toBe(true);
      expect(texts.some((t) => accented.test(t))).toBe(true);
      expect(texts.some((t) => t.includes('&'))).toBe(true);
      expect(texts.some((t) => t.includes("'"))).toBe(true);
    }
    expect(descriptions.filter((t) => t === '').length).toBeGreaterThan(50);
    const lengths = labels.map((t) => t.length);
    expect(Math.min(...lengths)).toBeLessThanOrEqual(5);
    expect(Math.max(...lengths)).toBeGreaterThanOrEqual(80);
    expect(clientNames.filter((n) => n.includes('&')).length).toBeGreaterThanOrEqual(2);
    expect(clientNames.filter((n) => n.includes("'")).length).toBeGreaterThanOrEqual(2);
    expect(clientNames.some((n) => nonLatin.test(n))).toBe(true);
  });

  it('keeps the ids that examples use', () => {
    const ids = new Set(dataset.documents.map((d) => d.id));
    for (const id of [101101, 101102, 101103, 101001, 101004, 101005])
      expect(ids.has(id), String(id)).toBe(true);
    expect(dataset.clients.map((c) => c.id)).toEqual(
      expect.arrayContaining([41001, 41002, 41003, 41004, 52001, 52002, 52003]),
    );
    expect(dataset.apiKeys).toEqual([defaultApiKey(1), defaultApiKey(2)]);
  });
});

describe('accessible in list rows and writes (default set)', () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await createTestServer({ fixtures: undefined });
    token = await s.token(defaultApiKey(1));
  });

  /** Every row of organization 1, paging until a page is empty. */
  async function allRows(): Promise<Array<{ id: number; accessible: boolean; clientName: string }>> {
    const rows = [];
    for (let pageNum = 1; ; pageNum++) {
      const res = await s.http
        .get('/api/v2/documents')
        .query({ resultsPerPage: 100, pageNum, orderBy: 'id' })
        .set('x-access-token', token);
      expect(res.status).toBe(200);
      if (res.body.results.length === 0) return rows;
      rows.push(...res.body.results);
    }
  }

  it('answers each document stored accessible value, true when the fixture leaves it out', async () => {
    const rows = await allRows();
    const stored = dataset.documents.filter((d) => d.organization_id === 1);
    expect(rows.map((r) => r.id)).toEqual(stored.map((d) => d.id).sort((a, b) => a - b));
    const hidden = new Set(stored.filter((d) => d.accessible === false).map((d) => d.id));
    expect(hidden.has(101005)).toBe(true);
    for (const r of rows) expect(r.accessible, String(r.id)).toBe(!hidden.has(r.id));
    expect(rows.find((r) => r.id === 101003)?.clientName).toBe('Matt&#039;s Museum');
    expect(new Set(rows.map((r) => r.clientName))).toContain('O&#039;Brien &amp; Daughters Joinery');
  });

  it('reads a numeric-keyed document whose references lead to readable documents of the organization', async () => {
    const res = await s.http.get('/api/v2/documents/101004').set('x-access-token', token);
    expect(res.status).toBe(200);
    expect(res.body.templateUid).toBe('tpl-5004');
    expect(Object.keys(res.body.details)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', 'tags']);
    const vendor = res.body.details['1'];
    expect(vendor).toEqual({
      value: { text: 'Dell', id: 101001, type: 'vendors' },
      attribute: [{ text: 'Dell', id: 101001, type: 'vendors' }],
    });
    const location = res.body.details['5'].value;
    for (const target of [vendor.value, location]) {
      const read = await s.http.get(`/api/v2/documents/${target.id}`).set('x-access-token', token);
      expect(read.status).toBe(200);
      const found = (
        await s.http
          .get('/api/v2/documents')
          .query({ searchTxt: target.text, type: target.type === 'vendors' ? 'vendor' : 'location' })
          .set('x-access-token', token)
      ).body.results.map((r: { id: number }) => r.id);
      expect(found).toContain(target.id);
    }
  });

  it('keeps accessible:false through a single PATCH and both batch writes', async () => {
    const detail = (await s.http.get('/api/v2/documents/101005').set('x-access-token', token)).body;
    expect(detail.templateUid).toBe('tpl-22');
    const patch = await s.http
      .patch('/api/v2/documents/101005')
      .set('x-access-token', token)
      .send({ notes: { name: 'Notes', description: '', value: { type: 'string', text: 'Reviewed' } } });
    expect(patch.status).toBe(200);
    for (const method of ['patch', 'put'] as const) {
      const res = await s.http[method]('/api/v2/documents')
        .set('x-access-token', token)
        .send([{ templateUid: 'tpl-22', id: 101005, title: `corp.mattsmuseum.local (${method})` }]);
      expect(res.status).toBe(200);
    }
    const row = (
      await s.http
        .get('/api/v2/documents')
        .query({ searchTxt: 'corp.mattsmuseum.local (put)' })
        .set('x-access-token', token)
    ).body.results;
    expect(row).toHaveLength(1);
    expect(row[0]).toMatchObject({ id: 101005, accessible: false });
  });
});

describe('the fixture schema on accessible', () => {
  const doc = { id: 1, client_id: 41001, organization_id: 1, templateId: 5001, label: 'x' };

  it('keeps a boolean and rejects anything else, naming the path', () => {
    const set = buildDataset({ documents: [{ ...doc, accessible: false }] }, 'set.json');
    expect(set.documents[0]?.accessible).toBe(false);
    try {
      buildDataset({ documents: [{ ...doc, accessible: 'no' }] }, 'set.json');
      expect.unreachable('a string accessible must be rejected');
    } catch (error) {
      expect(error).toBeInstanceOf(FixtureError);
      expect((error as FixtureError).problems[0]).toMatchObject({
        file: 'set.json',
        path: '/documents/0/accessible',
      });
    }
  });
});

describe('generated documents (--generate N --seed S)', () => {
  const generate = (seed: number) => generateDocuments(dataset, 600, seed);

  it('are the same for a seed and differ for another', () => {
    const a = JSON.stringify(generate(11));
    expect(JSON.stringify(generate(11))).toBe(a);
    expect(JSON.stringify(generate(12))).not.toBe(a);
  });

  it('carry references of every type resolving within the organization, numeric keys and accessible:false', () => {
    const generated = generate(11);
    const all = [...dataset.documents, ...generated];
    const byId = new Map(all.map((d) => [d.id, d]));
    const refs = referencesOf(generated);
    expect(new Set(refs.map((r) => r.value.type))).toEqual(new Set(REFERENCE_TYPES));
    for (const r of refs.filter((x) => x.value.type !== 'credentials')) {
      const target = byId.get(r.value.id);
      expect(target?.organization_id).toBe(r.doc.organization_id);
      expect(target?.label).toBe(r.value.text);
    }
    expect(generated.some(isNumericKeyed)).toBe(true);
    expect(generated.some((d) => d.accessible === false)).toBe(true);
    // and the result is a valid fixture set that loads back unchanged
    const set = { ...dataset, documents: all };
    const again = buildDataset(JSON.parse(JSON.stringify(set)), 'again.json');
    expect(JSON.stringify(again.documents)).toBe(JSON.stringify(all));
  });
});
