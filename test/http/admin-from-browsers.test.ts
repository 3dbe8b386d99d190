import { describe, expect, it } from 'vitest';
import { createTestServer } from '../support/test-server.js';

/**
 * The admin API reads and rewrites every state, with the API keys' secrets and the journal's
 * tokens. A page in the developer's browser, on any site, must not reach it: not by a
 * cross-origin call (CORS answers only configured origins; a request with a foreign Origin is
 * refused before it does anything, since a form post needs no preflight), and not by DNS
 * rebinding (a name the fake does not serve, pointed at 127.0.0.1, is refused by its Host).
 */

describe('/__admin and web pages', () => {
  it('refuses a Host it does not serve (DNS rebinding), except for the health check', async () => {
    const server = await createTestServer();
    const res = await server.http.get('/__admin/state').set('host', 'evil.example:4010');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 0, status: 403 });
    expect(res.body.errors).toEqual([{ location: 'header.host', message: 'is not a host the fake serves' }]);
    // A container user sets variables, not flags: the refusal names both.
    expect(res.body.message).toContain('--admin-hosts or ADMIN_HOSTS');
    expect(JSON.stringify(res.body)).not.toContain('secret');
    expect((await server.http.get('/__admin/health').set('host', 'evil.example:4010')).status).toBe(200);
    // The vendor API answers every host, as the live service does behind its names.
    expect((await server.http.get('/api/v2/documents').set('host', 'evil.example')).status).toBe(401);
  });

  it.each(['127.0.0.1:4010', 'localhost:4010', 'fake.localhost', '[::1]:4010', '10.1.2.3'])(
    'answers the host %s',
    async (host) => {
      const server = await createTestServer();
      expect((await server.http.get('/__admin/settings').set('host', host)).status).toBe(200);
    },
  );

  it('answers the names given with --admin-hosts (a Compose service name)', async () => {
    const server = await createTestServer({ adminHosts: 'fake, docs-fake.internal' });
    expect((await server.http.get('/__admin/settings').set('host', 'fake:4010')).status).toBe(200);
    expect((await server.http.get('/__admin/settings').set('host', 'DOCS-FAKE.internal')).status).toBe(200);
    expect((await server.http.get('/__admin/settings').set('host', 'other:4010')).status).toBe(403);
  });

  it('refuses a request from a foreign page before it changes anything', async () => {
    const server = await createTestServer();
    await server.http.post('/__admin/faults').send({ status: 503 }).expect(201);
    const res = await server.http.post('/__admin/reset').set('origin', 'https://evil.example');
    expect(res.status).toBe(403);
    expect(res.body.errors[0].location).toBe('header.origin');
    expect(res.body.message).toContain('--admin-origins or ADMIN_ORIGINS');
    expect(server.mock.faults()).toHaveLength(1);
    const wipe = await server.http.put('/__admin/fixtures').set('origin', 'https://evil.example').send({});
    expect(wipe.status).toBe(403);
    expect(server.mock.state().documents.length).toBeGreaterThan(0);
  });

  it("answers the fake's own pages (same origin) and origins given with --admin-origins", async () => {
    const server = await createTestServer({ adminOrigins: 'http://localhost:5173' });
    const same = await server.http
      .get('/__admin/settings')
      .set('host', '127.0.0.1:4010')
      .set('origin', 'http://127.0.0.1:4010');
    expect(same.status).toBe(200);
    const listed = await server.http.get('/__admin/settings').set('origin', 'http://localhost:5173');
    expect(listed.status).toBe(200);
    expect(listed.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  });

  it('gives a foreign page no CORS on /__admin while the vendor API keeps CORS_ORIGINS', async () => {
    const server = await createTestServer();
    const preflight = (path: string) =>
      server.http
        .options(path)
        .set('origin', 'https://evil.example')
        .set('access-control-request-method', 'PUT')
        .set('access-control-request-headers', 'content-type');
    const admin = await preflight('/__admin/fixtures');
    expect(admin.headers['access-control-allow-origin']).toBeUndefined();
    const inSession = await preflight('/sessions/abc/__admin/fixtures');
    expect(inSession.headers['access-control-allow-origin']).toBeUndefined();
    const vendor = await preflight('/api/v2/documents');
    expect(vendor.headers['access-control-allow-origin']).toBe('https://evil.example');
  });
});
