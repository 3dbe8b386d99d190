import { beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, textEntry as entry, type TestServer } from '../support/test-server.js';

/**
 * Response bodies are assembled from JSON texts made once per stored row and details object.
 * What a client relies on: the bytes are exactly the JSON of the body, Content-Length counts
 * UTF-8 bytes, and a write is visible in the very next read and list.
 */

let server: TestServer;
let token: string;
beforeEach(async () => {
  server = await createTestServer();
  token = await server.token();
});

const get = (path: string) => server.http.get(path).set('x-access-token', token);
const patch = (id: number, body: object) =>
  server.http.patch(`/api/v2/documents/${id}`).set('x-access-token', token).send(body);

function expectExactJson(res: { text: string; body: unknown; headers: Record<string, string> }) {
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
  expect(res.text).toBe(JSON.stringify(res.body));
}

describe('read and list bodies', () => {
  it('a read is the JSON of its body, with Content-Length in UTF-8 bytes for non-ASCII details', async () => {
    expect((await patch(101101, { name: entry('Name', 'Zürich ☃ 😀 office') })).status).toBe(200);
    const res = await get('/api/v2/documents/101101');
    expect(res.status).toBe(200);
    expectExactJson(res);
    expect(res.body.details.name).toEqual(entry('Name', 'Zürich ☃ 😀 office'));
    expect(Buffer.byteLength(res.text)).toBeGreaterThan(res.text.length);
  });

  it('every write shows in the next read, however often the document was read before', async () => {
    for (const text of ['first', 'sécond', 'third']) {
      await get('/api/v2/documents/101101');
      expect((await patch(101101, { name: entry('Name', text) })).status).toBe(200);
      const res = await get('/api/v2/documents/101101');
      expectExactJson(res);
      expect(res.body.details.name.value.text).toBe(text);
    }
  });

  it('a list is the JSON of its body, rows included, and shows the rows as written', async () => {
    const before = await get('/api/v2/documents?orderBy=id');
    expect(before.status).toBe(200);
    expectExactJson(before);
    expect(before.body.results.length).toBeGreaterThan(1);
    await patch(101101, { name: entry('Name', 'Ünïcode Office ✓') });
    const after = await get('/api/v2/documents?searchTxt=office');
    expectExactJson(after);
    expect(after.body.results.map((row: { id: number }) => row.id)).toContain(101101);
    expect(after.body.apiRequestUid).toBe(after.headers['x-request-id']);
  });

  it('HEAD on a list or a read answers the headers of the GET without a body', async () => {
    for (const path of ['/api/v2/documents', '/api/v2/documents/101101']) {
      const res = await server.http.head(path).set('x-access-token', token);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.text).toBeUndefined();
    }
  });
});

describe('path parameters that are not valid percent-encoding', () => {
  it('are 400 in the vendor shape, naming the path, and journaled as violations', async () => {
    const res = await get('/api/v2/documents/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      message: 'invalid id: the path is not valid percent-encoding',
      status: 400,
      errors: [{ location: 'path', message: 'is not valid percent-encoding' }],
    });
    const [violation] = await server.mock.violations();
    expect(violation).toMatchObject({ method: 'GET', path: '/api/v2/documents/%E0%A4%A', status: 400 });
  });

  it('a valid encoding of an id reaches the document', async () => {
    const res = await get('/api/v2/documents/%31%30%31%31%30%31');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(101101);
  });
});
