import { describe, expect, it } from 'vitest';
import { apiError, entry, makeDataset, makeFake, ORG1, ORG2, START_MS } from '../fixtures/domain/dataset.js';

describe('getDocument', () => {
  it('returns templateUid, id and the details exactly as stored', () => {
    const dataset = makeDataset();
    const { fake } = makeFake({}, dataset);
    const read = fake.getDocument(ORG1, '101');
    expect(read.templateUid).toBe('tpl-7');
    expect(read.id).toBe(101);
    expect(read.details).toEqual(dataset.documents[0]?.details);
    expect(Object.keys(read.details)).toEqual(['name', 'tags', 'address_1', 'city', 'country']);
    expect(JSON.stringify(read.details)).toBe(JSON.stringify(dataset.documents[0]?.details));
  });

  it.each([
    ['missing', ORG1, '999'],
    ['foreign', ORG1, '201'],
    ['foreign the other way', ORG2, '101'],
  ])('answers not found for a %s document', (_name, principal, id) => {
    const err = apiError(() => makeFake().fake.getDocument(principal, id));
    expect(err.kind).toBe('notFound');
    expect(err.status).toBe(403);
    expect(err.message).toBe('not found.');
  });

  it.each([
    'abc',
    '0',
    '00',
    '0101',
    '-1',
    '1.5',
    '',
    ' 101',
    '1e3',
    '0x10',
    '9007199254740993',
    '9'.repeat(400),
  ])('rejects id %j as invalid', (id) => {
    const err = apiError(() => makeFake().fake.getDocument(ORG1, id));
    expect(err.kind).toBe('invalidId');
    expect(err.status).toBe(400);
    expect(err.message).toBe('invalid id');
  });
});

describe('patchDocument (replace semantics)', () => {
  it('nulls absent template fields, keeps non-template entries, sets sent ones; keys with "/" work', () => {
    const { fake, clock } = makeFake();
    clock.set(1_800_000_000);
    fake.patchDocument(ORG1, '101', {
      name: entry('Name', 'Perth Office'),
      'phone/fax': entry('Phone/Fax', '+44 1738'),
    });
    const { details } = fake.getDocument(ORG1, '101');
    expect(details).toEqual({
      name: entry('Name', 'Perth Office'),
      tags: [],
      address_1: null,
      city: null,
      country: 'Scotland',
      'phone/fax': entry('Phone/Fax', '+44 1738'),
    });
    expect(Object.keys(details)).toEqual(['name', 'tags', 'address_1', 'city', 'country', 'phone/fax']);
    expect(Object.getPrototypeOf(details)).toBeNull();
    const row = fake.listDocuments(ORG1, { orderBy: 'id' }).rows[0];
    expect(row?.last_modified).toBe('2027-01-15T08:00:00.000Z');
  });

  it('replaces non-template stored entries the body sends', () => {
    const { fake } = makeFake();
    fake.patchDocument(ORG1, '101', { country: 'Wales', tags: ['hq'] });
    const { details } = fake.getDocument(ORG1, '101');
    expect(details.country).toBe('Wales');
    expect(details.tags).toEqual(['hq']);
    expect(details.name).toBeNull();
  });

  it('an empty body nulls every template field', () => {
    const { fake } = makeFake();
    fake.patchDocument(ORG1, '103', {});
    expect(fake.getDocument(ORG1, '103').details).toEqual({ serial: null, name: null });
  });

  it('rejects unknown keys, naming them, and changes nothing', () => {
    const { fake } = makeFake();
    const before = fake.getDocument(ORG1, '101').details;
    const err = apiError(() =>
      fake.patchDocument(ORG1, '101', {
        name: entry('Name', 'x'),
        colour: entry('Colour', 'red'),
        'a/b': 'y',
      }),
    );
    expect(err.kind).toBe('unknownDetailKeys');
    expect(err.status).toBe(400);
    expect(err.message).toContain('"colour", "a/b"');
    expect(err.errors).toEqual([
      { location: 'body/colour', message: expect.stringContaining('colour') },
      { location: 'body/a~1b', message: expect.stringContaining('a/b') },
    ]);
    expect(fake.getDocument(ORG1, '101').details).toBe(before);
    expect(fake.listDocuments(ORG1, { orderBy: 'id' }).rows[0]?.last_modified).toBe(
      '2025-06-01T00:00:00.000Z',
    );
  });

  it('accepts unknown keys when unknownDetailKeys is accept', () => {
    const { fake } = makeFake({ unknownDetailKeys: 'accept' });
    fake.patchDocument(ORG1, '105', { colour: entry('Colour', 'red') });
    expect(fake.getDocument(ORG1, '105').details).toEqual({
      name: null,
      address_1: null,
      city: null,
      'phone/fax': null,
      colour: entry('Colour', 'red'),
    });
  });

  it('never mutates the stored document or the loaded dataset', () => {
    const dataset = makeDataset();
    const original = dataset.documents[0];
    const snapshot = JSON.stringify(original);
    const { fake } = makeFake({}, dataset);
    const body = { name: entry('Name', 'Changed') };
    fake.patchDocument(ORG1, '101', body);
    expect(JSON.stringify(original)).toBe(snapshot);
    // The stored entry is a copy: changing the body afterwards changes nothing.
    body.name.value.text = 'mutated later';
    expect(fake.getDocument(ORG1, '101').details.name).toEqual(entry('Name', 'Changed'));
  });

  it('writes are visible at once to read, list and search', () => {
    const { fake } = makeFake();
    expect(fake.listDocuments(ORG1, { searchTxt: 'quokka' }).rows).toEqual([]);
    fake.patchDocument(ORG1, '104', { domain: entry('Domain', 'quokka.example') });
    expect(fake.listDocuments(ORG1, { searchTxt: 'QUOKKA' }).rows.map((r) => r.id)).toEqual([104]);
    expect(fake.listDocuments(ORG1, { searchTxt: 'green' }).rows.map((r) => r.id)).toEqual([104]);
  });

  it.each([
    ['foreign', ORG1, '201', 'notFound'],
    ['missing', ORG1, '12345', 'notFound'],
    ['invalid id', ORG1, 'x', 'invalidId'],
  ] as const)('rejects a %s document', (_name, principal, id, kind) => {
    const { fake } = makeFake();
    expect(apiError(() => fake.patchDocument(principal, id, {})).kind).toBe(kind);
    expect(fake.getDocument(ORG2, '201').details.name).toEqual(entry('Name', 'Secret place'));
  });

  it.each([
    ['an array body', [entry('Name', 'x')]],
    ['null', null],
  ])('rejects %s', (_name, body) => {
    const { fake } = makeFake();
    expect(
      apiError(() => fake.patchDocument(ORG1, '101', body as unknown as Record<string, unknown>)).kind,
    ).toBe('invalidBody');
  });

  it('rejects entries nested absurdly deep instead of crashing', () => {
    const { fake } = makeFake();
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const err = apiError(() => fake.patchDocument(ORG1, '101', { name: deep }));
    expect(err.kind).toBe('invalidBody');
    expect(err.errors?.[0]?.location).toBe('body/name');
    expect(fake.getDocument(ORG1, '101').details.name).toEqual(entry('Name', 'Dundee Office'));
  });

  it('stamps last_modified from the fake clock', () => {
    const { fake, time } = makeFake();
    time.ms = START_MS + 1234;
    fake.patchDocument(ORG1, '102', {});
    expect(fake.listDocuments(ORG1, { searchTxt: 'main server' }).rows[0]?.last_modified).toBe(
      '2026-01-01T00:00:01.234Z',
    );
  });
});
