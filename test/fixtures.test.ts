import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultApiKey } from '../src/domain/fixtures/default-keys.js';
import { FixtureError, type FixtureProblem } from '../src/domain/fixtures/fixture-error.js';
import { generateDocuments } from '../src/domain/fixtures/generate-documents.js';
import { buildDataset, loadFixtureSource } from '../src/domain/fixtures/load-fixtures.js';
import { templateCatalogue } from '../src/domain/fixtures/template-catalogue.js';
import { type Dataset, TEMPLATE_TYPES } from '../src/domain/types.js';

const here = (...parts: string[]) => join(import.meta.dirname, 'fixtures', ...parts);
const LOAD_TIME = new Date('2025-01-02T03:04:05.000Z');

/** The problems a set is rejected with (fails the test if it is accepted). */
function problemsOf(run: () => unknown): FixtureProblem[] {
  try {
    run();
  } catch (error) {
    if (error instanceof FixtureError) return error.problems;
    throw error;
  }
  throw new Error('expected the fixture set to be rejected');
}

async function problemsOfLoad(path: string): Promise<FixtureProblem[]> {
  try {
    await loadFixtureSource(path, {});
  } catch (error) {
    if (error instanceof FixtureError) return error.problems;
    throw error;
  }
  throw new Error('expected the fixture set to be rejected');
}

const doc = (extra: Record<string, unknown> = {}) => ({
  id: 1,
  organization_id: 1,
  client_id: 41001,
  templateId: 5001,
  label: 'Dundee Office',
  ...extra,
});

describe('loading valid fixture sets', () => {
  it('loads a single file, deriving organizations, clients, keys and the catalogue', async () => {
    const { dataset, source } = await loadFixtureSource(here('minimal.json'), { loadTime: LOAD_TIME });
    expect(source).toBe(here('minimal.json'));
    expect(dataset.organizations).toEqual([
      { id: 1, name: 'Organization 1' },
      { id: 2, name: 'Organization 2' },
    ]);
    expect(dataset.clients).toEqual([
      { id: 41001, organizationId: 1, name: 'Client 41001' },
      { id: 52001, organizationId: 2, name: 'Client 52001' },
    ]);
    expect(dataset.apiKeys).toEqual([defaultApiKey(1), defaultApiKey(2)]);
    expect(dataset.templates).toEqual(templateCatalogue());
    const [first, second] = dataset.documents;
    expect(first).toMatchObject({ id: 101101, description: '', customId: '' });
    expect(first?.last_modified).toBe('2024-03-14T09:26:53.000Z');
    expect(Object.keys(first ?? {})).toEqual([
      'id',
      'organization_id',
      'client_id',
      'templateId',
      'label',
      'description',
      'customId',
      'details',
      'last_modified',
      'accessible',
    ]);
    expect(first?.accessible).toBe(true);
    expect(second).not.toHaveProperty('accessible');
    expect(first?.details.country).toBe('Scotland');
    expect(first?.details.tags).toEqual([]);
    expect(second?.last_modified).toBe(LOAD_TIME.toISOString());
    const assetFields = templateCatalogue()
      .find((t) => t.id === 79)
      ?.fields.map((f) => f.key);
    expect(Object.keys(second?.details ?? {})).toEqual(assetFields);
    expect(Object.values(second?.details ?? {}).every((v) => v === null)).toBe(true);
  });

  it('loads a folder with one file per key, ignoring files that are not JSON', async () => {
    const { dataset, source } = await loadFixtureSource(here('folder-set'), {});
    expect(source).toBe(here('folder-set'));
    expect(dataset.organizations.map((o) => o.name)).toEqual(['Acme MSP', 'Beta Managed Services']);
    expect(dataset.clients.map((c) => c.name)).toContain("Matt's Museum");
    expect(dataset.templates.map((t) => t.id)).toEqual([5001, 900]);
    expect(dataset.templates[0]?.fields[1]).toEqual({ key: 'address_1', name: 'Address 1', description: '' });
    expect(dataset.apiKeys.map((k) => k.secret)).toEqual(['secret-one', 'secret-two']);
    expect(dataset.documents.map((d) => [d.id, d.organization_id])).toEqual([
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
    expect(dataset.documents[0]?.details['state/province']).toBe('Angus');
  });

  it('loads the bundled default set: 2 organizations, all 19 types, a few hundred documents', async () => {
    const { dataset, source } = await loadFixtureSource(undefined, {});
    expect(source).toMatch(/fixtures[/\\]default$/);
    expect(dataset.organizations).toHaveLength(2);
    expect(dataset.clients.map((c) => c.name)).toContain("Matt's Museum");
    const typeOf = new Map(dataset.templates.map((t) => [t.id, t.type]));
    expect(new Set(dataset.templates.map((t) => t.type)).size).toBe(19);
    expect(new Set(dataset.documents.map((d) => typeOf.get(d.templateId)))).toEqual(new Set(TEMPLATE_TYPES));
    expect(dataset.documents.length).toBeGreaterThanOrEqual(250);
    expect(dataset.apiKeys).toEqual([defaultApiKey(1), defaultApiKey(2)]);
    const entries = dataset.documents.flatMap((d) => Object.values(d.details));
    expect(entries.some((e) => e === null)).toBe(true);
    expect(entries.some((e) => typeof e === 'string')).toBe(true);
    expect(entries.some((e) => Array.isArray(e))).toBe(true);
    expect(entries.some((e) => e !== null && typeof e === 'object' && !Array.isArray(e))).toBe(true);
  });

  it('derives one organization with a client and key from an empty set', () => {
    const dataset = buildDataset({}, 'empty.json');
    expect(dataset.organizations).toEqual([{ id: 1, name: 'Organization 1' }]);
    expect(dataset.clients).toEqual([{ id: 1, organizationId: 1, name: 'Client 1' }]);
    expect(dataset.apiKeys).toEqual([defaultApiKey(1)]);
    expect(dataset.templates).toHaveLength(19);
    expect(dataset.documents).toEqual([]);
  });

  it('takes a document organization from its listed client, and lists no keys when apiKeys is empty', () => {
    const dataset = buildDataset(
      {
        clients: [{ id: 41001, organizationId: 7, name: 'A' }],
        documents: [doc({ organization_id: undefined })],
        apiKeys: [],
      },
      'set.json',
    );
    expect(dataset.documents[0]?.organization_id).toBe(7);
    expect(dataset.organizations).toEqual([{ id: 7, name: 'Organization 7' }]);
    expect(dataset.apiKeys).toEqual([]);
  });

  it('keeps details entries of every shape: references, numeric-string keys, tags', () => {
    const reference = {
      value: { text: 'Dell', id: 1843839, type: 'vendors' },
      attribute: [{ text: 'Dell', id: 1843839, type: 'vendors' }],
    };
    const details = { '0': 'first', '1': null, manufacturer: reference, tags: ['a', 'b'] };
    const dataset = buildDataset({ documents: [doc({ details })] }, 'set.json');
    expect({ ...dataset.documents[0]?.details }).toEqual(details);
  });

  it.each([
    ['2024-02-29T10:00:00Z', true],
    ['2024-03-14T09:26:53.123+01:00', true],
    ['2023-02-29T10:00:00Z', false],
    ['14/03/2024', false],
    [null, false],
  ])('keeps last_modified %s only when it is a valid ISO 8601 date-time', (value, kept) => {
    const dataset = buildDataset({ documents: [doc({ last_modified: value })] }, 'set.json', {
      loadTime: LOAD_TIME,
    });
    expect(dataset.documents[0]?.last_modified).toBe(kept ? value : LOAD_TIME.toISOString());
  });
});

describe('user-chosen keys are data', () => {
  it('keeps a __proto__ details key as an own key and leaves Object.prototype alone', () => {
    const raw: unknown = JSON.parse(
      JSON.stringify({ documents: [doc()] }).replace(
        '"label"',
        '"details":{"__proto__":{"name":"P","description":"","value":{"type":"string","text":"polluted"},"__proto__":{"polluted":true}},"constructor":"c","prototype":null},"label"',
      ),
    );
    for (const dataset of [buildDataset(raw, 'set.json'), buildDataset(raw, 'set.json', { fresh: true })]) {
      const details = dataset.documents[0]?.details ?? {};
      expect(Object.getPrototypeOf(details)).toBeNull();
      expect(Object.keys(details)).toEqual(['__proto__', 'constructor', 'prototype']);
      const entry = Object.getOwnPropertyDescriptor(details, '__proto__')?.value as Record<string, unknown>;
      expect(Object.hasOwn(details, '__proto__')).toBe(true);
      expect(entry.name).toBe('P');
      expect(Object.hasOwn(entry, '__proto__')).toBe(true);
      expect(details.constructor).toBe('c');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).value).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('copies in-memory sets, so later changes to the input do not reach the dataset', () => {
    const value = { type: 'string', text: 'Perth' };
    const dataset = buildDataset(
      { documents: [doc({ details: { city: { name: 'City', description: '', value } } })] },
      'set.json',
    );
    value.text = 'changed';
    expect(dataset.documents[0]?.details.city).toMatchObject({ value: { text: 'Perth' } });
  });
});

type Case = [name: string, raw: unknown, path: string, message: RegExp];

const SCHEMA_CASES: Case[] = [
  ['the set is not an object', [], '', /must be an object/],
  ['an unknown top-level key', { document: [] }, '/document', /unknown property "document"/],
  ['a key that is not a list', { organizations: {} }, '/organizations', /must be an array/],
  [
    'a missing document label',
    { documents: [doc({ label: undefined })] },
    '/documents/0/label',
    /is required/,
  ],
  ['a non-integer id', { documents: [doc({ id: '1' })] }, '/documents/0/id', /must be an integer/],
  ['a non-positive id', { documents: [doc({ id: 0 })] }, '/documents/0/id', /must be >= 1/],
  [
    'a misspelt document property',
    { documents: [doc({ clientId: 41001 })] },
    '/documents/0/clientId',
    /unknown property "clientId" \(did you mean "client_id"\?\)/,
  ],
  [
    'a detail entry that is a number',
    { documents: [doc({ details: { city: 3 } })] },
    '/documents/0/details/city',
    /must be an object, a string, null or an array/,
  ],
  [
    'a detail object without value',
    { documents: [doc({ details: { city: { name: 'City', description: '' } } })] },
    '/documents/0/details/city/value',
    /is required/,
  ],
  [
    'a detail value text that is not a string',
    { documents: [doc({ details: { 'state/province': { value: { type: 'string', text: 1 } } } })] },
    '/documents/0/details/state~1province/value/text',
    /must be a string/,
  ],
  [
    'an unknown template type',
    { templates: [{ id: 1, name: 'T', type: 'router', fields: [] }] },
    '/templates/0/type',
    /must be one of: asset, active_directory/,
  ],
  [
    'a template field without name',
    { templates: [{ id: 1, name: 'T', type: 'custom', fields: [{ key: 'a' }] }] },
    '/templates/0/fields/0/name',
    /is required/,
  ],
  [
    'an API key without secret',
    { apiKeys: [{ keyId: 'k', organizationId: 1 }] },
    '/apiKeys/0/secret',
    /is required/,
  ],
  [
    'a client without organization',
    { clients: [{ id: 1, name: 'C' }] },
    '/clients/0/organizationId',
    /is required/,
  ],
];

const REFERENCE_CASES: Case[] = [
  [
    'a template missing from the catalogue',
    { documents: [doc({ templateId: 6 })] },
    '/documents/0/templateId',
    /template 6 is not in the built-in catalogue/,
  ],
  [
    'a template missing from the listed templates',
    { templates: [{ id: 1, name: 'T', type: 'custom', fields: [] }], documents: [doc()] },
    '/documents/0/templateId',
    /template 5001 is not listed in templates/,
  ],
  [
    'a document whose client belongs to another organization',
    { clients: [{ id: 41001, organizationId: 2, name: 'C' }], documents: [doc()] },
    '/documents/0/client_id',
    /client 41001 belongs to organization 2, but organization_id is 1/,
  ],
  [
    'two documents putting one unlisted client in two organizations',
    { documents: [doc(), doc({ id: 2, organization_id: 2 })] },
    '/documents/1/client_id',
    /client 41001 belongs to organization 1 \(per \/documents\/0\), but organization_id is 2/,
  ],
  [
    'a client not listed in clients',
    { clients: [{ id: 1, organizationId: 1, name: 'C' }], documents: [doc()] },
    '/documents/0/client_id',
    /client 41001 is not listed in clients/,
  ],
  [
    'an unlisted client without organization_id',
    { documents: [doc({ organization_id: undefined })] },
    '/documents/0/organization_id',
    /is required when client 41001 is not listed in clients/,
  ],
  [
    'a client of an organization not listed',
    { organizations: [{ id: 1, name: 'O' }], clients: [{ id: 5, organizationId: 2, name: 'C' }] },
    '/clients/0/organizationId',
    /organization 2 is not listed in organizations/,
  ],
  [
    'a document of an organization not listed',
    { organizations: [{ id: 2, name: 'O' }], documents: [doc()] },
    '/documents/0/organization_id',
    /organization 1 is not listed in organizations/,
  ],
  [
    'an API key of an organization not listed',
    { organizations: [{ id: 1, name: 'O' }], apiKeys: [{ keyId: 'k', secret: 's', organizationId: 3 }] },
    '/apiKeys/0/organizationId',
    /organization 3 is not listed in organizations/,
  ],
  [
    'duplicate organization ids',
    {
      organizations: [
        { id: 1, name: 'A' },
        { id: 1, name: 'B' },
      ],
    },
    '/organizations/1/id',
    /duplicate id 1 \(first at \/organizations\/0\/id\)/,
  ],
  [
    'duplicate client ids',
    {
      clients: [
        { id: 1, organizationId: 1, name: 'A' },
        { id: 1, organizationId: 1, name: 'B' },
      ],
    },
    '/clients/1/id',
    /duplicate id 1/,
  ],
  [
    'duplicate template ids',
    {
      templates: [
        { id: 1, name: 'A', type: 'custom', fields: [] },
        { id: 1, name: 'B', type: 'ssl', fields: [] },
      ],
    },
    '/templates/1/id',
    /duplicate id 1/,
  ],
  ['duplicate document ids', { documents: [doc(), doc()] }, '/documents/1/id', /duplicate id 1/],
  [
    'duplicate key IDs',
    {
      apiKeys: [
        { keyId: 'k', secret: 'a', organizationId: 1 },
        { keyId: 'k', secret: 'b', organizationId: 1 },
      ],
    },
    '/apiKeys/1/keyId',
    /duplicate keyId "k"/,
  ],
  [
    'duplicate field keys in a template',
    {
      templates: [
        {
          id: 1,
          name: 'T',
          type: 'custom',
          fields: [
            { key: 'a', name: 'A' },
            { key: 'a', name: 'B' },
          ],
        },
      ],
    },
    '/templates/0/fields/1/key',
    /duplicate field key "a" \(first at \/templates\/0\/fields\/0\/key\)/,
  ],
];

describe('rejecting invalid fixture sets', () => {
  it.each([...SCHEMA_CASES, ...REFERENCE_CASES])('reports %s', (_name, raw, path, message) => {
    const problems = problemsOf(() => buildDataset(raw, 'set.json'));
    expect(problems).toContainEqual({ file: 'set.json', path, message: expect.stringMatching(message) });
  });

  it('reports every problem at once, sorted, and caps the message at 20', () => {
    const documents = Array.from({ length: 24 }, (_, i) => doc({ id: i + 1, templateId: 6 }));
    documents.push(doc({ id: 99, label: 5 }));
    const error = (() => {
      try {
        buildDataset({ documents }, 'set.json');
      } catch (e) {
        return e as FixtureError;
      }
    })();
    expect(error).toBeInstanceOf(FixtureError);
    expect(error?.problems).toHaveLength(25);
    expect(error?.problems[1]?.path).toBe('/documents/1/templateId');
    expect(error?.problems.at(-1)).toEqual({
      file: 'set.json',
      path: '/documents/24/label',
      message: 'must be a string',
    });
    expect(error?.message).toMatch(/^fixture set rejected: 25 problems\n/);
    expect(error?.message).toContain(
      'set.json at /documents/0/templateId: template 6 is not in the built-in catalogue',
    );
    expect(error?.message).toMatch(/\.\.\. and 5 more$/);
  });

  it('names the file of a folder that holds the problem, and unknown files', async () => {
    const problems = await problemsOfLoad(here('bad-folder'));
    expect(problems).toEqual([
      {
        file: join(here('bad-folder'), 'apikeys.json'),
        path: '',
        message: 'unknown fixture file (did you mean apiKeys.json?)',
      },
      {
        file: join(here('bad-folder'), 'documents.json'),
        path: '/documents/1/client_id',
        message: 'client 99999 is not listed in clients',
      },
    ]);
  });

  it('reports malformed JSON with its file and position', async () => {
    const [problem, ...rest] = await problemsOfLoad(here('malformed.json'));
    expect(rest).toEqual([]);
    expect(problem?.file).toBe(here('malformed.json'));
    expect(problem?.path).toBe('');
    expect(problem?.message).toMatch(/^malformed JSON: .*line 3 column 16/);
  });

  it('reports a path that cannot be read', async () => {
    const missing = here('no-such-set.json');
    expect(await problemsOfLoad(missing)).toEqual([
      { file: missing, path: '', message: 'cannot read: no such file or directory' },
    ]);
  });
});

describe('default API keys', () => {
  it('are deterministic per organization: 64 lower-case hex key ID and a fixed secret', () => {
    const key = defaultApiKey(1);
    expect(key).toEqual(defaultApiKey(1));
    expect(key.keyId).toMatch(/^[0-9a-f]{64}$/);
    expect(key.keyId).toBe('375f86c493d3b504cbab9bf6a2f61d3f0b3ac334884bb150d193cfec08077bd0');
    expect(key.secret).toBe('fake-secret-1-0799cc6103334c167a65e28e');
    expect(defaultApiKey(2).keyId).not.toBe(key.keyId);
  });
});

describe('template catalogue', () => {
  it('has one template per type with 5-12 unique fields and the ids seen live', () => {
    const catalogue = templateCatalogue();
    expect(catalogue.map((t) => t.type).sort()).toEqual([...TEMPLATE_TYPES].sort());
    for (const t of catalogue) {
      expect(t.fields.length).toBeGreaterThanOrEqual(5);
      expect(t.fields.length).toBeLessThanOrEqual(12);
      expect(new Set(t.fields.map((f) => f.key)).size).toBe(t.fields.length);
      expect(t.fields.every((f) => f.key !== '' && f.name !== '')).toBe(true);
    }
    const ids = Object.fromEntries(catalogue.map((t) => [t.type, t.id]));
    expect(ids).toMatchObject({ asset: 79, active_directory: 22, application: 31, backup: 34, email: 37 });
    expect(ids).toMatchObject({ file_sharing: 40, contact: 5000, location: 5001 });
    expect(catalogue.find((t) => t.id === 5001)?.fields.map((f) => f.key)).toContain('state/province');
  });
});

describe('generated documents', () => {
  const base = (): Dataset =>
    buildDataset(
      { documents: [doc({ id: 500 }), doc({ id: 7, client_id: 52001, organization_id: 2 })] },
      'set.json',
    );

  it('are deterministic for a seed and differ for another seed', () => {
    const a = generateDocuments(base(), 50, 42);
    const b = generateDocuments(base(), 50, 42);
    const c = generateDocuments(base(), 50, 43);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(c));
  });

  it('are added by the loader with ids above the maximum, spread over clients and templates', async () => {
    const { dataset } = await loadFixtureSource(here('minimal.json'), { generate: 1000, seed: 5 });
    const generated = dataset.documents.slice(2);
    expect(generated).toHaveLength(1000);
    expect(generated.map((d) => d.id)).toEqual(Array.from({ length: 1000 }, (_, i) => 101103 + i));
    expect(new Set(generated.map((d) => d.client_id))).toEqual(new Set([41001, 52001]));
    expect(new Set(generated.map((d) => d.templateId)).size).toBe(19);
    for (const d of generated) {
      expect(d.organization_id).toBe(d.client_id === 41001 ? 1 : 2);
      expect(Object.getPrototypeOf(d.details)).toBeNull();
    }
  });

  it('satisfy the fixture rules: the generated set loads again unchanged', () => {
    const dataset = buildDataset({}, 'set.json', { generate: 300, seed: 9 });
    const again = buildDataset(JSON.parse(JSON.stringify(dataset)), 'again.json');
    expect(JSON.stringify(again)).toBe(JSON.stringify(dataset));
    const entries = dataset.documents.flatMap((d) => Object.values(d.details));
    expect(entries.some((e) => e === null)).toBe(true);
    expect(entries.some((e) => typeof e === 'string')).toBe(true);
    expect(entries.some((e) => Array.isArray(e) && e.length > 0)).toBe(true);
    expect(entries.some((e) => e !== null && typeof e === 'object' && 'value' in e)).toBe(true);
  });

  it('need a client to spread documents over', () => {
    const problems = problemsOf(() => buildDataset({ clients: [] }, 'set.json', { generate: 1 }));
    expect(problems[0]?.message).toMatch(/at least one client/);
  });
});
