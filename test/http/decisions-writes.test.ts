import { beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, textEntry as entry, OTHER_KEY, type TestServer } from '../support/test-server.js';

/** The decisions table, write rows (PATCH one, batch PUT/PATCH, success literals), through HTTP. */

let server: TestServer;
let token: string;
beforeEach(async () => {
  server = await createTestServer();
  token = await server.token();
});

const read = async (id: number) =>
  (await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token)).body;
const state = () => JSON.stringify(server.mock.root.fake.snapshot());

describe('read one document', () => {
  it('returns the detail envelope with details exactly as stored', async () => {
    const body = await read(101101);
    expect(body).toEqual({
      success: true,
      templateUid: 'tpl-5001',
      id: 101101,
      details: {
        name: entry('Name', 'Dundee Office'),
        tags: [],
        address_1: entry('Address 1', '1 High St'),
        city: null,
        country: 'Scotland',
      },
      apiRequestUid: expect.any(String),
    });
  });
  it('keeps reference entries with their extra keys', async () => {
    const body = await read(101103);
    expect(body.details.vendor.value).toEqual({ text: 'Dell', id: 1843839, type: 'vendors' });
    expect(body.details.vendor.attribute).toHaveLength(1);
  });
  it.each([
    ['a missing document', 999999],
    ['a document of another organization', 201101],
  ])('%s is 403 not found.', async (_name, id) => {
    const res = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, message: 'not found.', code: 0, status: 403 });
  });
});

describe('PATCH one document: the body replaces details', () => {
  it('template fields absent become null; stored non-template entries stay; visible at once', async () => {
    const res = await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send({
        address_1: entry('Address 1', '2 Low St'),
        'state/province': entry('State/Province', 'Angus'),
      });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 'true' });
    const body = await read(101101);
    expect(body.details).toEqual({
      name: null,
      tags: [],
      address_1: entry('Address 1', '2 Low St'),
      city: null,
      country: null,
      'state/province': entry('State/Province', 'Angus'),
    });
    const search = await server.http
      .get('/api/v2/documents')
      .query({ searchTxt: 'low st' })
      .set('x-access-token', token);
    expect(search.body.results.map((d: { id: number }) => d.id)).toEqual([101101]);
  });

  it('a stored non-template entry sent in the body is replaced', async () => {
    await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send({ tags: entry('Tags', 'vip') });
    expect((await read(101101)).details.tags).toEqual(entry('Tags', 'vip'));
  });

  it('unknown detail keys are rejected, naming them, and nothing changes', async () => {
    const before = state();
    const res = await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send({ address_1: entry('Address 1', 'x'), colour: entry('Colour', 'red'), size: entry('Size', 'L') });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('colour');
    expect(res.body.message).toContain('size');
    expect(state()).toBe(before);
  });

  it('unknownDetailKeys=accept stores them', async () => {
    server = await createTestServer({ unknownDetailKeys: 'accept' });
    token = await server.token();
    const res = await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send({ colour: entry('Colour', 'red') });
    expect(res.status).toBe(200);
    expect((await read(101101)).details.colour).toEqual(entry('Colour', 'red'));
  });

  it('successLiterals=boolean answers success: true', async () => {
    server = await createTestServer({ successLiterals: 'boolean' });
    token = await server.token();
    const res = await server.http.patch('/api/v2/documents/101101').set('x-access-token', token).send({});
    expect(res.body).toEqual({ success: true });
  });

  it('a foreign document is 403 and unchanged', async () => {
    const before = state();
    const res = await server.http.patch('/api/v2/documents/201101').set('x-access-token', token).send({});
    expect(res.status).toBe(403);
    expect(state()).toBe(before);
  });

  it('__proto__, constructor and prototype keys are data, never prototypes', async () => {
    server = await createTestServer({ unknownDetailKeys: 'accept' });
    token = await server.token();
    const body =
      '{"__proto__": {"name": "P", "description": "", "value": {"type": "string", "text": "polluted"}}, "constructor": {"name": "C", "description": "", "value": {"type": "string", "text": "c"}}}';
    const res = await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .type('json')
      .send(body);
    expect(res.status).toBe(200);
    const stored = await read(101101);
    expect(Object.keys(stored.details)).toContain('__proto__');
    expect(stored.details.constructor.value.text).toBe('c');
    expect(({} as Record<string, unknown>).name).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

describe('batch PUT (replace) and PATCH (merge)', () => {
  const put = (body: unknown) =>
    server.http
      .put('/api/v2/documents')
      .set('x-access-token', token)
      .send(body as object);
  const patch = (body: unknown) =>
    server.http
      .patch('/api/v2/documents')
      .set('x-access-token', token)
      .send(body as object);

  it('PUT answers boolean true; batch PATCH answers the string "true"', async () => {
    expect((await put({ templateUid: 'TPL-79', id: 101103, title: 'Laptop 01' })).body).toEqual({
      success: true,
    });
    expect((await patch({ templateUid: '79', id: 101103, title: 'Laptop 01' })).body).toEqual({
      success: 'true',
    });
  });

  it('PUT replaces: description/customId cleared, template fields not sent become null, label from title', async () => {
    const res = await put({
      templateUid: 'TPL-5001',
      id: 101101,
      title: 'Dundee HQ',
      details: { city: entry('City', 'Dundee') },
    });
    expect(res.status).toBe(200);
    const body = await read(101101);
    expect(body.details).toMatchObject({
      name: null,
      address_1: null,
      city: entry('City', 'Dundee'),
      country: null,
      tags: [],
    });
    const row = (
      await server.http
        .get('/api/v2/documents')
        .query({ searchTxt: 'dundee hq' })
        .set('x-access-token', token)
    ).body.results[0];
    expect(row).toMatchObject({ id: 101101, label: 'Dundee HQ', description: '', customId: '' });
  });

  it('PATCH merges: only what is sent changes', async () => {
    const res = await patch([
      { templateUid: 5001, id: 101101, title: 'Dundee Office', details: { city: entry('City', 'Dundee') } },
    ]);
    expect(res.status).toBe(200);
    const body = await read(101101);
    expect(body.details).toMatchObject({
      name: entry('Name', 'Dundee Office'),
      address_1: entry('Address 1', '1 High St'),
      city: entry('City', 'Dundee'),
    });
    const row = (
      await server.http.get('/api/v2/documents').query({ searchTxt: 'loc-1' }).set('x-access-token', token)
    ).body.results[0];
    expect(row).toMatchObject({ description: 'Head office', customId: 'LOC-1' });
  });

  it.each([
    ['an empty string', ''],
    ['null', null],
    ['absent', undefined],
  ])('a blank id (%s) creates a document in the first client of the organization', async (_name, id) => {
    const item: Record<string, unknown> = { templateUid: 'TPL-79', title: 'New Laptop' };
    if (id !== undefined) item.id = id;
    const res = await put([item]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = (
      await server.http
        .get('/api/v2/documents')
        .query({ searchTxt: 'new laptop' })
        .set('x-access-token', token)
    ).body.results;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      label: 'New Laptop',
      client_id: 41001,
      templateId: 79,
      organization_id: 1,
    });
    expect(rows[0].id).toBeGreaterThan(201101);
  });

  it('a create may name its client', async () => {
    await put({ templateUid: 'TPL-79', id: '', title: 'Museum Laptop', clientId: 41002 });
    const rows = (
      await server.http
        .get('/api/v2/documents')
        .query({ clientId: 41002, searchTxt: 'museum laptop' })
        .set('x-access-token', token)
    ).body.results;
    expect(rows).toHaveLength(1);
  });

  it.each([
    [
      'a templateUid that is not the document template',
      [{ templateUid: 'TPL-5001', id: 101103, title: 'x' }],
      'body/0',
    ],
    [
      'a second item that is bad',
      [
        { templateUid: 'TPL-79', id: 101103, title: 'ok' },
        { templateUid: 'TPL-5001', id: 101104, title: 'bad' },
      ],
      'body/1',
    ],
    ['an unknown template on create', [{ templateUid: 'TPL-123456', title: 'x' }], 'body/0'],
    ['a client of another organization', [{ templateUid: 'TPL-79', title: 'x', clientId: 42001 }], 'body/0'],
    [
      'an unknown detail key',
      [{ templateUid: 'TPL-79', id: 101103, title: 'x', details: { colour: entry('Colour', 'red') } }],
      'body/0',
    ],
  ])('%s rejects the whole batch, naming the index; nothing applied', async (_name, body, location) => {
    const before = state();
    const res = await put(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, status: 400 });
    expect(JSON.stringify(res.body.errors)).toContain(location);
    expect(state()).toBe(before);
  });

  it('a foreign or missing document rejects the batch with 403 and applies nothing', async () => {
    const before = state();
    const res = await patch([
      { templateUid: 'TPL-79', id: 101103, title: 'changed' },
      { templateUid: 'TPL-5001', id: 201101, title: 'theirs' },
    ]);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(JSON.stringify(res.body)).toContain('body/1');
    expect(state()).toBe(before);
  });

  it('maxBatchItems bounds a batch with a clear 400', async () => {
    server = await createTestServer({ maxBatchItems: 2 });
    token = await server.token();
    const item = { templateUid: 'TPL-79', id: 101103, title: 'x' };
    const res = await put([item, item, item]);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('2');
  });

  it('documents created in one organization stay invisible to the other', async () => {
    await put({ templateUid: 'TPL-79', title: 'Acme only' });
    const other = await server.token(OTHER_KEY);
    const rows = (
      await server.http
        .get('/api/v2/documents')
        .query({ searchTxt: 'acme only' })
        .set('x-access-token', other)
    ).body.results;
    expect(rows).toEqual([]);
  });
});
