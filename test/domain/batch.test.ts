import { describe, expect, it } from 'vitest';
import { apiError, entry, makeFake, ORG1, ORG2, ORG3 } from '../fixtures/domain/dataset.js';

const row = (fake: ReturnType<typeof makeFake>['fake'], id: number) =>
  fake.listDocuments(ORG1, { orderBy: 'id', resultsPerPage: 1000 }).rows.find((r) => r.id === id);

describe('batchUpdate: shapes and creation', () => {
  it('takes one object or an array', () => {
    const { fake } = makeFake();
    expect(fake.batchUpdate(ORG1, { templateUid: 'TPL-79', id: 102, title: 'one' }, 'replace')).toMatchObject(
      {
        created: [],
        updated: [102],
      },
    );
    expect(
      fake.batchUpdate(
        ORG1,
        [
          { templateUid: 'TPL-79', id: 102, title: 'two' },
          { templateUid: 'tpl-79', id: 103, title: 'three' },
        ],
        'replace',
      ),
    ).toMatchObject({ created: [], updated: [102, 103] });
    expect(row(fake, 103)?.label).toBe('three');
  });

  it.each([
    ['empty string', { id: '' }],
    ['null', { id: null }],
    ['absent', {}],
  ])('creates a document when id is blank (%s), client defaulting to the lowest client id', (_n, idPart) => {
    const { fake, clock } = makeFake();
    clock.set(1_800_000_000);
    const result = fake.batchUpdate(ORG1, { templateUid: 7, title: 'New place', ...idPart }, 'replace');
    expect(result).toMatchObject({ created: [202], updated: [] });
    expect(row(fake, 202)).toMatchObject({
      label: 'New place',
      description: '',
      customId: '',
      client_id: 5,
      templateId: 7,
      organization_id: 1,
      last_modified: '2027-01-15T08:00:00.000Z',
    });
    expect(fake.getDocument(ORG1, '202')).toEqual({
      templateUid: 'tpl-7',
      id: 202,
      details: { name: null, address_1: null, city: null, 'phone/fax': null },
    });
    expect(fake.documentCount()).toBe(7);
  });

  it('accepts an empty title, as the spec does', () => {
    const { fake } = makeFake();
    expect(fake.batchUpdate(ORG1, { templateUid: 7, title: '' }, 'replace').created).toEqual([202]);
    expect(fake.listDocuments(ORG1, {}).rows.map((r) => r.id)[0]).toBe(202);
  });

  it('creates with clientId, description, customId and details; ids continue above the highest', () => {
    const { fake } = makeFake();
    const result = fake.batchUpdate(
      ORG1,
      [
        {
          templateUid: '79',
          title: 'Box',
          clientId: 11,
          description: 'd',
          customId: 'c',
          details: { serial: entry('Serial', 'S1') },
        },
        { templateUid: 'tpl-22', title: 'Domain', clientID: 10 },
      ],
      'merge',
    );
    expect(result).toMatchObject({ created: [202, 203], updated: [] });
    expect(row(fake, 202)).toMatchObject({
      client_id: 11,
      description: 'd',
      customId: 'c',
      templateName: 'Generic Asset',
    });
    expect(row(fake, 203)?.client_id).toBe(10);
    expect(fake.getDocument(ORG1, '202').details).toEqual({ name: null, serial: entry('Serial', 'S1') });
    expect(fake.listDocuments(ORG1, { searchTxt: 's1' }).rows.map((r) => r.id)).toEqual([202]);
  });
});

describe('batchUpdate: replace vs merge', () => {
  it('replace: description/customId default to "", details rebuilt with PATCH semantics', () => {
    const { fake } = makeFake();
    fake.batchUpdate(
      ORG1,
      { templateUid: 79, id: 102, title: 'Alpha 2', details: { serial: entry('Serial', 'X') } },
      'replace',
    );
    expect(row(fake, 102)).toMatchObject({ label: 'Alpha 2', description: '', customId: '' });
    expect(fake.getDocument(ORG1, '102').details).toEqual({ name: null, serial: entry('Serial', 'X') });
  });

  it('replace without details sends none: template fields become null, other entries stay', () => {
    const { fake } = makeFake();
    const before = fake.getDocument(ORG1, '101').details;
    fake.batchUpdate(ORG1, { templateUid: 7, id: 101, title: 'Dundee HQ' }, 'replace');
    const after = fake.getDocument(ORG1, '101').details;
    expect(after).toMatchObject({ name: null, address_1: null, city: null, 'phone/fax': null });
    for (const key of Object.keys(before)) expect(Object.hasOwn(after, key)).toBe(true);
  });

  it('merge without details leaves the details alone', () => {
    const { fake } = makeFake();
    const before = fake.getDocument(ORG1, '101').details;
    fake.batchUpdate(ORG1, { templateUid: 7, id: 101, title: 'Dundee HQ' }, 'merge');
    expect(fake.getDocument(ORG1, '101').details).toBe(before);
  });

  it('reads an id sent as a string of digits', () => {
    const { fake } = makeFake();
    expect(fake.batchUpdate(ORG1, { templateUid: 7, id: '101', title: 'Dundee HQ' }, 'merge')).toMatchObject({
      updated: [101],
    });
  });

  it('ignores fields it does not know, with a notice naming each', () => {
    const { fake } = makeFake();
    const result = fake.batchUpdate(ORG1, [{ templateUid: 7, id: 101, title: 'D', folder: 3 }], 'merge');
    expect(result.notices).toEqual([
      { code: 'batchFieldIgnored', location: 'body/0/folder', message: expect.stringContaining('ignored') },
    ]);
  });

  it('create refuses an item with an id', () => {
    const { fake } = makeFake();
    expect(() => fake.batchUpdate(ORG1, { templateUid: 7, id: 101, title: 'x' }, 'create')).toThrow(
      /POST adds/,
    );
  });

  it('replace keeps non-template stored entries not sent', () => {
    const { fake } = makeFake();
    fake.batchUpdate(
      ORG1,
      { templateUid: 7, id: 101, title: 'D', details: { city: entry('City', 'Dundee') } },
      'replace',
    );
    expect(fake.getDocument(ORG1, '101').details).toEqual({
      name: null,
      tags: [],
      address_1: null,
      city: entry('City', 'Dundee'),
      country: 'Scotland',
      'phone/fax': null,
    });
  });

  it('merge: only what is sent changes', () => {
    const { fake } = makeFake();
    fake.batchUpdate(
      ORG1,
      { templateUid: '79', id: 102, title: 'Alpha 3', details: { serial: entry('Serial', 'Y') } },
      'merge',
    );
    expect(row(fake, 102)).toMatchObject({ label: 'Alpha 3', description: 'Main server', customId: 'A-1' });
    expect(fake.getDocument(ORG1, '102').details).toEqual({ serial: entry('Serial', 'Y') });
    fake.batchUpdate(
      ORG1,
      { templateUid: 7, id: 101, title: 'Dundee', description: 'new', details: { city: 'Dundee' } },
      'merge',
    );
    expect(row(fake, 101)?.description).toBe('new');
    expect(fake.getDocument(ORG1, '101').details).toEqual({
      name: entry('Name', 'Dundee Office'),
      tags: [],
      address_1: entry('Address 1', '1 High Street'),
      city: 'Dundee',
      country: 'Scotland',
    });
  });

  it('moves a document to another client of the organization', () => {
    const { fake } = makeFake();
    fake.batchUpdate(ORG1, { templateUid: 7, id: 101, title: 'Dundee Office', clientId: 11 }, 'merge');
    expect(row(fake, 101)?.client_id).toBe(11);
  });

  it('applies the same id twice in order, writing it once', () => {
    const { fake } = makeFake();
    const result = fake.batchUpdate(
      ORG1,
      [
        { templateUid: 79, id: 102, title: 'first', details: { serial: 'one' } },
        { templateUid: 79, id: 102, title: 'second', details: { name: 'two' } },
      ],
      'merge',
    );
    expect(result).toMatchObject({ created: [], updated: [102] });
    expect(row(fake, 102)?.label).toBe('second');
    expect(fake.getDocument(ORG1, '102').details).toEqual({ serial: 'one', name: 'two' });
  });

  it('re-sorts the label order after a rename', () => {
    const { fake } = makeFake();
    fake.batchUpdate(ORG1, { templateUid: 7, id: 105, title: 'aardvark' }, 'merge');
    expect(fake.listDocuments(ORG1, {}).rows.map((r) => r.id)).toEqual([105, 102, 103, 104, 101]);
    expect(fake.listDocuments(ORG1, { orderDir: 'desc' }).rows.map((r) => r.id)).toEqual([
      101, 104, 103, 102, 105,
    ]);
  });
});

describe('batchUpdate: validation and atomicity', () => {
  it.each<[string, unknown, string, string]>([
    ['templateUid form', { templateUid: 'template-7', title: 't' }, 'body/0/templateUid', 'templateUid'],
    ['unknown template', { templateUid: 'tpl-999', title: 't' }, 'body/0/templateUid', 'tpl-999'],
    [
      'template mismatch',
      { templateUid: 'TPL-7', id: 102, title: 't' },
      'body/0/templateUid',
      'tpl-79, not tpl-7',
    ],
    ['missing title', { templateUid: 7 }, 'body/0/title', 'title'],
    ['title type', { templateUid: 7, title: 42 }, 'body/0/title', 'title'],
    ['bad id', { templateUid: 7, id: -4, title: 't' }, 'body/0/id', 'positive integer'],
    ['id not digits', { templateUid: 7, id: '10a', title: 't' }, 'body/0/id', 'positive integer'],
    ['foreign client', { templateUid: 7, title: 't', clientId: 20 }, 'body/0/clientId', 'client 20'],
    ['unknown client', { templateUid: 7, title: 't', clientId: 999 }, 'body/0/clientId', 'client 999'],
    ['description type', { templateUid: 7, title: 't', description: 5 }, 'body/0/description', 'description'],
    ['customId type', { templateUid: 7, title: 't', customId: false }, 'body/0/customId', 'customId'],
    ['details type', { templateUid: 7, title: 't', details: [] }, 'body/0/details', 'details'],
    [
      'unknown detail key',
      { templateUid: 7, title: 't', details: { colour: 'red' } },
      'body/0/details/colour',
      'colour',
    ],
    ['not an object', 'nope', 'body/0', 'object'],
  ])('%s: rejects the batch naming index and field', (_name, bad, location, text) => {
    const { fake } = makeFake();
    const good = { templateUid: 79, id: 102, title: 'changed' };
    const err = apiError(() => fake.batchUpdate(ORG1, [bad, good], 'replace'));
    expect(err.kind).toBe('invalidBatch');
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^item 0: /);
    expect(err.message).toContain(text);
    expect(err.errors?.map((e) => e.location)).toContain(location);
    expect(row(fake, 102)?.label).toBe('alpha');
    expect(fake.documentCount()).toBe(6);
  });

  it('names the index of a bad item after good ones and nothing is applied', () => {
    const { fake } = makeFake();
    const err = apiError(() =>
      fake.batchUpdate(
        ORG1,
        [
          { templateUid: 79, id: 102, title: 'x' },
          { templateUid: 7, title: 'created' },
          { templateUid: 7, id: 101, title: 'y', details: { nope: 1 } },
          { templateUid: 7, id: 'z', title: 'y' },
        ],
        'merge',
      ),
    );
    expect(err.message).toBe(
      'item 2: unknown detail key "nope": not a field of the template and not stored on the document (and 1 more problem)',
    );
    expect(err.errors?.map((e) => e.location)).toEqual(['body/2/details/nope', 'body/3/id']);
    expect(row(fake, 102)?.label).toBe('alpha');
    expect(fake.documentCount()).toBe(6);
    // The failed batch did not consume ids.
    expect(fake.batchUpdate(ORG1, { templateUid: 7, title: 'n' }, 'merge').created).toEqual([202]);
  });

  it('uses body/<field> locations for a single-object body', () => {
    const err = apiError(() =>
      makeFake().fake.batchUpdate(ORG1, { templateUid: 'x', title: 't' }, 'replace'),
    );
    expect(err.errors?.[0]?.location).toBe('body/templateUid');
  });

  it('answers not found when every problem is a missing or foreign document', () => {
    const { fake } = makeFake();
    const err = apiError(() =>
      fake.batchUpdate(
        ORG1,
        [
          { templateUid: 7, id: 201, title: 'steal' },
          { templateUid: 7, id: 9999, title: 'ghost' },
        ],
        'replace',
      ),
    );
    expect(err.kind).toBe('notFound');
    expect(err.status).toBe(403);
    expect(err.message).toBe('not found.');
    expect(err.errors?.map((e) => e.location)).toEqual(['body/0/id', 'body/1/id']);
    expect(fake.getDocument(ORG2, '201').details.name).toEqual(entry('Name', 'Secret place'));
  });

  it('mixes not-found with other problems into invalidBatch', () => {
    const err = apiError(() =>
      makeFake().fake.batchUpdate(
        ORG1,
        [{ templateUid: 7, id: 201, title: 't' }, { templateUid: 7 }],
        'replace',
      ),
    );
    expect(err.kind).toBe('invalidBatch');
    expect(err.message).toMatch(/^item 0: document 201: not found\./);
  });

  it('accepts unknown detail keys when the setting says accept', () => {
    const { fake } = makeFake({ unknownDetailKeys: 'accept' });
    fake.batchUpdate(ORG1, { templateUid: 7, id: 105, title: 'Zulu', details: { colour: 'red' } }, 'merge');
    expect(fake.getDocument(ORG1, '105').details).toEqual({ colour: 'red' });
  });

  it('enforces maxBatchItems', () => {
    const { fake } = makeFake({ maxBatchItems: 2 });
    const item = { templateUid: 79, id: 102, title: 'x' };
    expect(fake.batchUpdate(ORG1, [item, item], 'merge').updated).toEqual([102]);
    const err = apiError(() => fake.batchUpdate(ORG1, [item, item, item], 'merge'));
    expect(err.kind).toBe('invalidBatch');
    expect(err.message).toContain('at most 2');
  });

  it.each([null, 'text', 42, true])('rejects a %j body', (body) => {
    expect(apiError(() => makeFake().fake.batchUpdate(ORG1, body, 'replace')).kind).toBe('invalidBody');
  });

  it('an empty array changes nothing', () => {
    expect(makeFake().fake.batchUpdate(ORG1, [], 'replace')).toEqual({
      created: [],
      updated: [],
      notices: [],
    });
  });

  it('an organization without clients must send clientId to create', () => {
    const err = apiError(() => makeFake().fake.batchUpdate(ORG3, { templateUid: 7, title: 't' }, 'replace'));
    expect(err.message).toContain('no client');
  });

  it('documents created by one organization stay invisible to others', () => {
    const { fake } = makeFake();
    fake.batchUpdate(ORG2, { templateUid: 7, title: 'Org two doc' }, 'replace');
    expect(fake.listDocuments(ORG2, {}).rows.map((r) => r.id)).toEqual([201, 202]);
    expect(fake.listDocuments(ORG1, { searchTxt: 'org two' }).rows).toEqual([]);
    expect(apiError(() => fake.getDocument(ORG1, '202')).kind).toBe('notFound');
  });
});
