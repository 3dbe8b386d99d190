import { beforeAll, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { ACME_KEY, createTestServer, type TestServer } from '../support/test-server.js';

/** Every operation accepts a valid request shape and rejects each kind of invalid one. */

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await createTestServer();
  token = await server.token();
});

function expectVendorError(body: Record<string, unknown>, status: number, code: number) {
  expect(body).toMatchObject({ success: false, status, code });
  expect(typeof body.message).toBe('string');
  expect(typeof body.apiRequestUid).toBe('string');
}

describe('valid request shapes are accepted', () => {
  const hash = computeHash(ACME_KEY.secret, 'x');
  it.each([
    [
      'token (JSON)',
      () =>
        server.http
          .post('/api/v2/auth/client_token')
          .set('x-key', ACME_KEY.keyId)
          .set('x-hash', hash)
          .send({ scope: 'docs_api', content: 'x' }),
    ],
    [
      'token (form, upper-case headers, docs-api)',
      () =>
        server.http
          .post('/api/v2/auth/client_token')
          .set('X-KEY', ACME_KEY.keyId)
          .set('X-HASH', hash)
          .type('form')
          .send({ scope: 'docs-api', content: 'x' }),
    ],
    [
      'list with every parameter',
      () =>
        server.http
          .get('/api/v2/documents')
          .query({
            resultsPerPage: 20,
            pageNum: 1,
            orderBy: 'ID',
            orderDir: 'DESC',
            type: 'asset',
            templateUid: 'TPL-79',
            clientID: 41001,
            searchTxt: 'lap',
          })
          .set('x-access-token', token),
    ],
    ['list with x-api-token', () => server.http.get('/api/v2/documents').set('x-api-token', token)],
    ['read', () => server.http.get('/api/v2/documents/101101').set('x-access-token', token)],
    [
      'patch one',
      () =>
        server.http
          .patch('/api/v2/documents/101103')
          .set('x-access-token', token)
          .send({
            serial_number: {
              name: 'Serial Number',
              description: '',
              value: { type: 'string', text: 'SN-2' },
            },
          }),
    ],
    [
      'batch put (object)',
      () =>
        server.http
          .put('/api/v2/documents')
          .set('x-access-token', token)
          .send({ templateUid: 'TPL-79', id: 101104, title: 'laptop 01' }),
    ],
    [
      'batch patch (array, bare number)',
      () =>
        server.http
          .patch('/api/v2/documents')
          .set('x-access-token', token)
          .send([{ templateUid: '79', id: 101104, title: 'laptop 01' }]),
    ],
  ])('%s → 200', async (_name, send) => {
    const res = await send();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe('query values outside their range: 404 code 0 naming the parameter', () => {
  it.each([
    ['pageNum=0', { pageNum: 0 }, 'pageNum needs to be an integer between 1 and 9999.'],
    ['pageNum=10000', { pageNum: 10000 }, 'pageNum needs to be an integer between 1 and 9999.'],
    ['pageNum=abc', { pageNum: 'abc' }, 'pageNum needs to be an integer between 1 and 9999.'],
    [
      'pageNum twice, the last out of range',
      'pageNum=1&pageNum=0',
      'pageNum needs to be an integer between 1 and 9999.',
    ],
    ['resultsPerPage=0', { resultsPerPage: 0 }, 'resultsPerPage needs to be an integer of at least 1.'],
    ['resultsPerPage=1.5', { resultsPerPage: 1.5 }, 'resultsPerPage needs to be an integer of at least 1.'],
    ['orderBy=name', { orderBy: 'name' }, 'orderBy needs to be one of: label, id (any case).'],
    ['orderDir=up', { orderDir: 'up' }, 'orderDir needs to be one of: asc, desc (any case).'],
    ['templateUid=tpl-x', { templateUid: 'tpl-x' }, 'templateUid needs to be tpl-<number>'],
    ['clientId=abc', { clientId: 'abc' }, 'clientId needs to be an integer'],
    ['clientID=-1 (read as clientId)', { clientID: -1 }, 'clientId needs to be an integer'],
  ])('%s', async (_name, query, message) => {
    const res = await server.http.get('/api/v2/documents').query(query).set('x-access-token', token);
    expect(res.status).toBe(404);
    expectVendorError(res.body, 404, 0);
    expect(res.body.message).toContain(message);
    expect(res.body.errors[0].location).toMatch(/^query\./);
  });
});

describe('document ids', () => {
  it.each(['abc', '0', '-3', '1.5', '12abc', '99999999999999999999'])('%s → 400 invalid id', async (id) => {
    const res = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token);
    expect(res.status).toBe(400);
    expectVendorError(res.body, 400, 0);
    expect(res.body.message).toBe('invalid id');
  });
});

describe('token call: credentials and body', () => {
  const post = () => server.http.post('/api/v2/auth/client_token');
  it('a missing x-key is 401 code 1000 naming the header', async () => {
    const res = await post().set('x-hash', 'abc').send({ scope: 'docs_api', content: 'x' });
    expectVendorError(res.body, 401, 1000);
    expect(res.body.message).toContain('x-key');
  });
  it('a missing x-hash is 401 code 1000 naming the header', async () => {
    const res = await post().set('x-key', ACME_KEY.keyId).send({ scope: 'docs_api', content: 'x' });
    expectVendorError(res.body, 401, 1000);
    expect(res.body.message).toContain('x-hash');
  });
  it.each([
    ['an unknown scope', { scope: 'docs', content: 'x' }, 'body/scope'],
    ['no content', { scope: 'docs_api' }, 'body/content'],
    ['a numeric content', { scope: 'docs_api', content: 5 }, 'body/content'],
  ])('%s is 400 naming the field', async (_name, body, location) => {
    const res = await post().set('x-key', ACME_KEY.keyId).set('x-hash', 'abc').send(body);
    expectVendorError(res.body, 400, 0);
    expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
    expect(res.body.message).toContain(location);
  });
  it('a text/plain body is 400 naming the accepted types', async () => {
    const res = await post()
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', 'abc')
      .type('text/plain')
      .send('scope=docs_api');
    expectVendorError(res.body, 400, 0);
    expect(res.body.message).toContain('application/json');
  });
});

describe('bodies of the document calls', () => {
  const patchOne = () => server.http.patch('/api/v2/documents/101101').set('x-access-token', token);
  const batch = () => server.http.put('/api/v2/documents').set('x-access-token', token);
  it.each([
    ['an entry that is a number', () => patchOne().send({ address_1: 5 }), 'body/address_1'],
    [
      'an entry whose text is a number',
      () =>
        patchOne().send({ address_1: { name: 'A', description: '', value: { type: 'string', text: 5 } } }),
      'body/address_1/value/text',
    ],
    ['an array body', () => patchOne().send([]), 'body'],
    ['a batch item without title', () => batch().send({ templateUid: 'TPL-79', id: 101104 }), 'body/title'],
    [
      'a batch array item without title',
      () =>
        batch().send([
          { templateUid: 'TPL-79', id: 101104, title: 'x' },
          { templateUid: 'TPL-79', id: 101103 },
        ]),
      'body/1/title',
    ],
    [
      'a boolean templateUid',
      () => batch().send({ templateUid: true, id: 101104, title: 'x' }),
      'body/templateUid',
    ],
    ['an empty batch array', () => batch().send([]), 'body'],
  ])('%s is 400 naming %s', async (_name, send, location) => {
    const res = await send();
    expect(res.status).toBe(400);
    expectVendorError(res.body, 400, 0);
    expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
  });
  it('malformed JSON is 400', async () => {
    const res = await patchOne().set('content-type', 'application/json').send('{"address_1": ');
    expectVendorError(res.body, 400, 0);
    expect(res.body.message).toMatch(/malformed JSON/);
  });
  it('a missing body is 400', async () => {
    const res = await patchOne();
    expectVendorError(res.body, 400, 0);
    expect(res.body.message).toContain('request body is required');
  });
});

describe('routes, methods and limits', () => {
  it('an unknown route is 404 code 0', async () => {
    const res = await server.http.get('/api/v2/nothing-here');
    expectVendorError(res.body, 404, 0);
  });
  it('a known path with a wrong method is 405 code 3000', async () => {
    const res = await server.http.delete('/api/v2/documents').set('x-access-token', token);
    expectVendorError(res.body, 405, 3000);
    expect(res.body.message).toBe('Method not allowed');
  });
  it('a body over the limit is 413', async () => {
    const small = await createTestServer({ bodyLimit: 1024 });
    const t = await small.token();
    const res = await small.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', t)
      .send({ name: { name: 'Name', description: 'x'.repeat(2000), value: { type: 'string', text: '' } } });
    expect(res.status).toBe(413);
    expectVendorError(res.body, 413, 0);
  });
  it('a query string over the limit is 414', async () => {
    const res = await server.http
      .get(`/api/v2/documents?searchTxt=${'a'.repeat(9000)}`)
      .set('x-access-token', token);
    expectVendorError(res.body, 414, 0);
  });
});

describe('the served spec', () => {
  it('is served as JSON and YAML', async () => {
    const json = await server.http.get('/openapi.json');
    expect(json.status).toBe(200);
    expect(json.body.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(json.body.paths)).toContain('/api/v2/documents/{documentId}');
    const yaml = await server.http.get('/openapi.yaml');
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toContain('yaml');
    expect(yaml.text).toContain('openapi: 3.1');
  });
});
