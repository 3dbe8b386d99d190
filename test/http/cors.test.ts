import { describe, expect, it } from 'vitest';
import { createTestServer } from '../support/test-server.js';

/** CORS for browser apps, on the root and on session URLs. */

const preflight = (server: Awaited<ReturnType<typeof createTestServer>>, path: string, origin: string) =>
  server.http
    .options(path)
    .set('origin', origin)
    .set('access-control-request-method', 'PATCH')
    .set('access-control-request-headers', 'x-access-token,content-type');

describe('CORS', () => {
  it('answers a preflight from any origin by default, allowing the token headers and content-type', async () => {
    const server = await createTestServer();
    const res = await preflight(server, '/api/v2/documents/101101', 'http://localhost:5173');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const header of [
      'x-access-token',
      'x-api-token',
      'x-key',
      'x-hash',
      'content-type',
      'authorization',
      'baggage',
    ]) {
      expect(allowed).toContain(header);
    }
    expect(String(res.headers['access-control-allow-methods'])).toContain('PATCH');
  });

  it('answers a preflight to a session URL, without journaling it', async () => {
    const server = await createTestServer();
    const created = await server.http.post('/__admin/sessions').send({});
    const prefix = `/sessions/${created.body.id}`;
    const res = await preflight(server, `${prefix}/api/v2/documents`, 'https://app.example');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect((await server.http.get(`${prefix}/__admin/requests`)).body.requests).toEqual([]);
  });

  it('exposes the fake’s response headers to the browser', async () => {
    const server = await createTestServer();
    const res = await server.http.get('/api/v2/documents').set('origin', 'http://localhost:3000');
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
    expect(exposed).toContain('x-request-id');
    expect(exposed).toContain('x-fake-fault');
    expect(exposed).toContain('x-fake-session');
  });

  it('with a corsOrigins list, only listed origins get CORS headers', async () => {
    const server = await createTestServer({ corsOrigins: 'https://allowed.example, http://localhost:5173' });
    const ok = await preflight(server, '/api/v2/documents', 'https://allowed.example');
    expect(ok.headers['access-control-allow-origin']).toBe('https://allowed.example');
    const denied = await preflight(server, '/api/v2/documents', 'https://evil.example');
    expect(denied.headers['access-control-allow-origin']).toBeUndefined();
    expect(denied.headers['access-control-allow-headers']).toBeUndefined();
    expect((await server.http.get('/__admin/requests')).body.requests).toEqual([]);
    const simple = await server.http.get('/api/v2/documents').set('origin', 'https://evil.example');
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
  });
});
