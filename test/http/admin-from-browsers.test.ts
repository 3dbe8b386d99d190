import { describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { ACME_KEY, createTestServer, OTHER_KEY, type TestServer } from '../support/test-server.js';

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

  it('lets the refused page read its 403 (CORS headers on the refusal only), and opens nothing else', async () => {
    const server = await createTestServer();
    const origin = 'http://localhost:5173';
    const res = await server.http.get('/__admin/requests').set('origin', origin);
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toContain('Origin');
    // The landing page (key secrets) and a refusal by Host carry no CORS header.
    expect(
      (await server.http.get('/').set('origin', origin)).headers['access-control-allow-origin'],
    ).toBeUndefined();
    const byHost = await server.http.get('/__admin/state').set('host', 'evil.example').set('origin', origin);
    expect(byHost.status).toBe(403);
    expect(byHost.headers['access-control-allow-origin']).toBeUndefined();
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

  it("answers a foreign page's preflight so it can read the refusal, which still refuses the JSON call and changes nothing", async () => {
    const server = await createTestServer();
    const session = await server.mock.session(undefined, { run: 'preflight-run' });
    const origin = 'https://evil.example';
    const preflight = (path: string, method = 'PUT') =>
      server.http
        .options(path)
        .set('origin', origin)
        .set('access-control-request-method', method)
        .set('access-control-request-headers', 'content-type, authorization');
    for (const path of ['/__admin/fixtures', `/sessions/${session.id}/__admin/fixtures`, '/__admin/reset']) {
      const answer = await preflight(path);
      expect(answer.status, path).toBe(204);
      expect(answer.headers['access-control-allow-origin'], path).toBe(origin);
      expect(answer.headers['access-control-allow-methods'], path).toContain('PUT');
      expect(answer.headers['access-control-allow-headers'], path).toBe('content-type, authorization');
      expect(answer.headers['access-control-allow-credentials'], path).toBeUndefined();
      expect(answer.headers.vary, path).toContain('Origin');
    }
    // The real requests the browser then sends: refused, readable, and nothing changed.
    const before = JSON.stringify([server.mock.state(), session.state(), server.mock.settings()]);
    const wipe = await server.http.put('/__admin/fixtures').set('origin', origin).send({});
    expect(wipe.status).toBe(403);
    expect(wipe.headers['access-control-allow-origin']).toBe(origin);
    expect(wipe.body.message).toContain('--admin-origins or ADMIN_ORIGINS');
    const inSession = await server.http
      .put(`/sessions/${session.id}/__admin/settings`)
      .set('origin', origin)
      .send({ latencyMs: 5000 });
    expect(inSession.status).toBe(403);
    expect((await server.http.post('/__admin/reset').set('origin', origin).send({})).status).toBe(403);
    expect(JSON.stringify([server.mock.state(), session.state(), server.mock.settings()])).toBe(before);
    // Nothing else opens: the landing page's preflight and a foreign Host's stay unanswered.
    expect((await preflight('/', 'GET')).headers['access-control-allow-origin']).toBeUndefined();
    const byHost = await preflight('/__admin/fixtures').set('host', 'evil.example');
    expect(byHost.headers['access-control-allow-origin']).toBeUndefined();
    // The vendor API keeps CORS_ORIGINS (every origin by default).
    const vendor = await preflight('/api/v2/documents');
    expect(vendor.headers['access-control-allow-origin']).toBe(origin);
    session.delete();
  });
});

/**
 * The landing page lists the API keys; their secrets (and the sample x-hash made from them) are
 * shown only to a request the admin API would answer, and `/` gives other sites' pages no CORS.
 */
describe('the landing page and key secrets', () => {
  const HTML = 'text/html';
  const landing = (server: TestServer) => server.http.get('/').set('accept', HTML);
  const shownSecrets = (text: string) => [ACME_KEY.secret, OTHER_KEY.secret].filter((s) => text.includes(s));
  const sampleHash = computeHash(ACME_KEY.secret, 'api-content-hash');

  it('shows secrets to its own user: served host, no Origin or its own, no admin token set', async () => {
    const server = await createTestServer();
    const plain = await landing(server).set('host', '127.0.0.1:4010');
    expect(shownSecrets(plain.text)).toEqual([ACME_KEY.secret, OTHER_KEY.secret]);
    expect(plain.text).toContain(sampleHash);
    const sameOrigin = await landing(server)
      .set('host', 'localhost:4010')
      .set('origin', 'http://localhost:4010');
    expect(shownSecrets(sameOrigin.text)).toHaveLength(2);
  });

  it.each([
    ['a page on another origin', { origin: 'https://evil.example' }],
    ['a host the fake does not serve (DNS rebinding)', { host: 'evil.example:4010' }],
    ['the null origin of a sandboxed frame', { origin: 'null' }],
  ])('shows %s key IDs only, with a pointer to the secrets and no CORS grant', async (_name, headers) => {
    const server = await createTestServer();
    const res = await landing(server).set(headers);
    expect(res.status).toBe(200);
    expect(res.text).toContain(ACME_KEY.keyId);
    expect(res.text).toContain(OTHER_KEY.keyId);
    expect(shownSecrets(res.text)).toEqual([]);
    expect(res.text).not.toContain(sampleHash);
    expect(res.text).toContain('href="__admin/ui#keys"');
    expect(res.text).toContain('GET /__admin/state');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('with an admin token, shows secrets only to a request that carries it', async () => {
    const server = await createTestServer({ adminToken: 'let-me-in' });
    const without = await landing(server);
    expect(shownSecrets(without.text)).toEqual([]);
    expect(without.text).toContain(ACME_KEY.keyId);
    const wrong = await landing(server).set('authorization', 'Bearer guess');
    expect(shownSecrets(wrong.text)).toEqual([]);
    const withToken = await landing(server).set('authorization', 'Bearer let-me-in');
    expect(shownSecrets(withToken.text)).toHaveLength(2);
    // The token does not open the page to another site's page.
    const foreign = await landing(server)
      .set('authorization', 'Bearer let-me-in')
      .set('origin', 'https://evil.example');
    expect(shownSecrets(foreign.text)).toEqual([]);
  });

  it('answers a preflight to / from another origin without CORS, and grants --admin-origins', async () => {
    const server = await createTestServer({ adminOrigins: 'http://localhost:5173' });
    const preflight = (origin: string) =>
      server.http
        .options('/')
        .set('origin', origin)
        .set('access-control-request-method', 'GET')
        .set('access-control-request-headers', 'authorization');
    expect((await preflight('https://evil.example')).headers['access-control-allow-origin']).toBeUndefined();
    expect((await preflight('http://localhost:5173')).headers['access-control-allow-origin']).toBe(
      'http://localhost:5173',
    );
    const listed = await landing(server).set('origin', 'http://localhost:5173');
    expect(listed.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(shownSecrets(listed.text)).toHaveLength(2);
    // The vendor API keeps its CORS for every origin.
    const vendor = await server.http.get('/api/v2/documents').set('origin', 'https://evil.example');
    expect(vendor.headers['access-control-allow-origin']).toBe('https://evil.example');
  });
});

describe('a foreign page against the admin endpoints added since', () => {
  it('is refused 403 at the root and at a session URL for every one of them, and nothing changes', async () => {
    const server = await createTestServer();
    const session = await server.mock.session(undefined, { run: 'held-run' });
    const calls: [string, string, unknown][] = [
      ['post', '/__admin/faults', { status: 503 }],
      ['delete', '/__admin/faults', undefined],
      ['post', '/__admin/rate-limits', { per: 'key', limit: 1, windowSeconds: 60 }],
      ['delete', '/__admin/rate-limits', undefined],
      ['post', '/__admin/scenarios', { name: 'throttled', limit: 1, windowSeconds: 60 }],
      ['delete', '/__admin/scenarios', undefined],
      ['post', '/__admin/expected-violations', { location: 'query.pageNum' }],
      ['delete', '/__admin/expected-violations', undefined],
      ['delete', '/__admin/report', undefined],
      ['get', '/__admin/report', undefined],
      ['post', '/__admin/sessions', { run: 'foreign' }],
      ['put', '/__admin/settings', { latencyMs: 5000 }],
      ['post', '/__admin/clock', { advanceSeconds: 9999 }],
      ['post', '/__admin/tokens/revoke', undefined],
    ];
    const before = JSON.stringify([server.mock.faults(), server.mock.rateLimits(), session.faults()]);
    for (const prefix of ['', `/sessions/${session.id}`])
      for (const [method, path, body] of calls) {
        const call = (server.http as unknown as Record<string, (url: string) => import('supertest').Test>)[
          method
        ]?.(`${prefix}${path}`) as import('supertest').Test;
        const res = await call.set('origin', 'https://evil.example').send(body as object);
        expect(res.status, `${method} ${prefix}${path}`).toBe(403);
      }
    expect(JSON.stringify([server.mock.faults(), server.mock.rateLimits(), session.faults()])).toBe(before);
    expect(server.mock.sessions.list()).toHaveLength(1);
    expect(server.mock.settings().latencyMs).toBe(0);
    expect(session.scenarios().applied).toHaveLength(0);
    session.delete();
  });
});
