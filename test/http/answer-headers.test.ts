import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../support/raw-http.js';
import { createTestServer, type TestServer } from '../support/test-server.js';

/**
 * Every JSON answer carries `X-Content-Type-Options: nosniff`: they hold what clients sent
 * (document text, journal bodies), and a browser must never read one as HTML or script.
 */

describe('X-Content-Type-Options on JSON answers', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await createTestServer();
    token = await server.token();
  });
  afterAll(async () => server.mock.close());

  it.each<[string, 'GET' | 'DELETE', string, number, boolean?]>([
    ['a vendor read', 'GET', '/api/v2/documents', 200],
    ['a vendor error (no token)', 'GET', '/api/v2/documents/101101', 401, false],
    ['a validation error', 'GET', '/api/v2/documents?pageNum=0', 404],
    ['an unknown route', 'GET', '/nothing/here', 404],
    ['a wrong method', 'DELETE', '/api/v2/documents', 405],
    ['an admin answer', 'GET', '/__admin/requests', 200],
    ['a session that is not there', 'GET', '/sessions/none/api/v2/documents', 404],
    ['the spec as JSON', 'GET', '/openapi.json', 200],
    ['the summary at /', 'GET', '/', 200],
  ])('%s', async (_name, method, path, status, withToken = true) => {
    let call = method === 'GET' ? server.http.get(path) : server.http.delete(path);
    if (withToken) call = call.set('x-access-token', token);
    const res = await call;
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('on the answers Node gives before Express (a malformed request)', async () => {
    const url = new URL(await server.mock.listen(0, '127.0.0.1'));
    const raw = await exchange({ host: '127.0.0.1', port: Number(url.port) }, 'NOT HTTP AT ALL\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw.toLowerCase()).toContain('x-content-type-options: nosniff\r\n');
  });
});
