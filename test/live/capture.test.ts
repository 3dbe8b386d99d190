import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Document } from '../../src/domain/types.js';
import { createMockServer } from '../../src/index.js';
import { kindOf } from '../../src/live/probe-kit.js';
import { type HttpsFake, startHttpsFake } from '../support/https-fake.js';
import { runCli, spawnCli } from '../support/run-cli.js';

/**
 * capture against a stand-in holding generated documents (the fake on HTTPS under a vendor host
 * name, reached through its proxy with its CA trusted): the set it writes loads, matches the
 * stand-in's documents in ids, types, key sets and shapes, and holds none of their texts.
 */

const VENDOR = 'https://us-clover.passportalmsp.com';
let live: HttpsFake;
let scratch: string;

beforeAll(async () => {
  live = await startHttpsFake({ generate: 40, seed: 7 });
  scratch = mkdtempSync(join(tmpdir(), 'capture-'));
}, 60_000);
afterAll(async () => {
  await live.close();
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => live.mock.reset());

const key = () => {
  const k = live.mock.root.fake.snapshot().apiKeys[0];
  if (k === undefined) throw new Error('no key');
  return k;
};

const env = () => ({
  HTTPS_PROXY: live.proxyUrl,
  https_proxy: live.proxyUrl,
  NO_PROXY: '',
  no_proxy: '',
  NODE_EXTRA_CA_CERTS: live.caPath,
  PASSPORTAL_KEY_ID: key().keyId,
  PASSPORTAL_SECRET: key().secret,
});

const captureArgs = (out: string, ...more: string[]) => ['capture', '--base', VENDOR, '--out', out, ...more];

/** The stand-in's documents the key sees, by id. */
function originals(): Map<number, Document> {
  const snapshot = live.mock.root.fake.snapshot();
  const org = key().organizationId;
  return new Map(snapshot.documents.filter((d) => d.organization_id === org).map((d) => [d.id, d]));
}

/** A details entry's shape: its kind, and for objects their keys, value keys, value type and reference id. */
function shapeOf(entry: unknown): unknown {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
    return Array.isArray(entry) ? ['array', entry.length] : kindOf(entry);
  }
  const e = entry as { value?: { type?: unknown; id?: unknown }; attribute?: unknown[] };
  return {
    keys: Object.keys(entry).sort(),
    valueKeys: Object.keys(e.value ?? {}).sort(),
    type: e.value?.type,
    id: e.value?.id,
    attributes: e.attribute?.length,
  };
}

/** Every text the documents hold: labels, descriptions, custom ids, detail texts. */
function textsOf(doc: Document): string[] {
  const texts = [doc.label, doc.description, doc.customId];
  const walk = (value: unknown, depth: number, key?: string) => {
    if (typeof value === 'string') {
      // Field names and descriptions are the template's, kept by design.
      if (!(depth === 1 && (key === 'name' || key === 'description'))) texts.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) if (k !== 'type') walk(v, depth + 1, k);
    }
  };
  for (const entry of Object.values(doc.details)) walk(entry, 0);
  return texts;
}

/** The captured set, loaded into a fresh fake, matches the stand-in's documents. */
async function expectFaithful(out: string): Promise<void> {
  const loaded = await createMockServer({ fixtures: out, logLevel: 'silent' });
  const snapshot = loaded.root.fake.snapshot();
  const source = live.mock.root.fake.snapshot();
  const typeOf = (templates: typeof snapshot.templates, id: number) =>
    templates.find((t) => t.id === id)?.type;
  const want = originals();
  expect(snapshot.documents.map((d) => d.id).sort()).toEqual([...want.keys()].sort());
  for (const doc of snapshot.documents) {
    const original = want.get(doc.id);
    if (original === undefined) throw new Error(`unexpected document ${doc.id}`);
    expect([doc.client_id, doc.organization_id, doc.templateId]).toEqual([
      original.client_id,
      original.organization_id,
      original.templateId,
    ]);
    expect(typeOf(snapshot.templates, doc.templateId)).toBe(typeOf(source.templates, original.templateId));
    expect(Object.keys(doc.details).sort()).toEqual(Object.keys(original.details).sort());
    for (const [k, entry] of Object.entries(original.details))
      expect(shapeOf(doc.details[k])).toEqual(shapeOf(entry));
    expect(doc.label.length).toBe(original.label.length);
  }
  await loaded.close();
}

describe('capture', () => {
  it('writes a set that loads and matches the stand-in, with no original text left, sending only reads within the rate', async () => {
    const out = join(scratch, 'plain');
    const rate = 20;
    const run = await runCli(captureArgs(out, '--rate', String(rate)), env());
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      'clients.json',
      'documents.json',
      'organizations.json',
      'templates.json',
    ]);
    await expectFaithful(out);

    const written = readdirSync(out)
      .map((f) => readFileSync(join(out, f), 'utf8'))
      .join('\n');
    const catalogue = new Set(
      live.mock.root.fake
        .snapshot()
        .templates.flatMap((t) => [t.name, ...t.fields.flatMap((f) => [f.name, f.description])]),
    );
    const texts = [...originals().values()].flatMap(textsOf);
    const clientNames = live.mock.root.fake
      .snapshot()
      .clients.filter((c) => c.organizationId === key().organizationId)
      .map((c) => c.name);
    const searched = [...texts, ...clientNames].filter(
      (t) => (t.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= 4 && !catalogue.has(t),
    );
    expect(searched.length).toBeGreaterThan(50);
    for (const text of searched) {
      expect(written).not.toContain(JSON.stringify(text).slice(1, -1));
    }

    const journal = await live.mock.requests();
    const kinds = new Set(journal.map((e) => (e.method === 'GET' ? 'GET' : `${e.method} ${e.path}`)));
    expect([...kinds].sort()).toEqual(['GET', 'POST /api/v2/auth/client_token']);
    const times = journal.map((e) => Date.parse(e.time));
    for (let i = 0; i + rate < times.length; i += 1) {
      expect((times[i + rate] ?? 0) - (times[i] ?? 0)).toBeGreaterThanOrEqual(950);
    }
  }, 120_000);

  it('resumes after the request bound stops it, reading nothing twice', async () => {
    const out = join(scratch, 'resumed');
    const first = await runCli(captureArgs(out, '--rate', '100', '--max-requests', '8'), env());
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('--max-requests');
    expect(first.stderr).toContain('--resume');
    expect(existsSync(join(out, 'capture-progress.jsonl'))).toBe(true);

    const refused = await runCli(captureArgs(out), env());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--resume');

    const second = await runCli(captureArgs(out, '--rate', '100', '--resume'), env());
    expect(second.code).toBe(0);
    expect(existsSync(join(out, 'capture-progress.jsonl'))).toBe(false);
    await expectFaithful(out);
    const reads = (await live.mock.requests())
      .filter((e) => /^\/api\/v2\/documents\/\d+$/.test(e.path))
      .map((e) => e.path);
    expect(new Set(reads).size).toBe(reads.length);
    expect(reads.length).toBe(originals().size);
  }, 120_000);

  it('stops on Ctrl-C with status 130 and resumes', async () => {
    const out = join(scratch, 'interrupted');
    const child = spawnCli(captureArgs(out, '--rate', '10'), env());
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    for (let i = 0; i < 200 && (await live.mock.requests()).length < 5; i += 1) {
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const resumed = await runCli(captureArgs(out, '--rate', '100', '--resume'), env());
    expect(resumed.code).toBe(0);
    await expectFaithful(out);
  }, 120_000);

  it('keeps the texts with --no-redact', async () => {
    const out = join(scratch, 'clear');
    const run = await runCli(captureArgs(out, '--rate', '100', '--no-redact'), env());
    expect(run.code).toBe(0);
    const docs = JSON.parse(readFileSync(join(out, 'documents.json'), 'utf8')) as Document[];
    const want = originals();
    for (const doc of docs) expect(doc.label).toBe(want.get(doc.id)?.label);
  }, 120_000);
});
