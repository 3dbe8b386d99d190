import { describe, expect, it } from 'vitest';
import { createTestServer } from '../support/test-server.js';

/** Clock control: GET/POST /__admin/clock; token expiry follows the fake's clock. */

describe('/__admin/clock', () => {
  it('reads real time with no offset at start', async () => {
    const server = await createTestServer();
    const before = Math.floor(Date.now() / 1000);
    const res = await server.http.get('/__admin/clock');
    const after = Math.ceil(Date.now() / 1000);
    expect(res.status).toBe(200);
    expect(res.body.offsetSeconds).toBe(0);
    expect(res.body.now).toBeGreaterThanOrEqual(before);
    expect(res.body.now).toBeLessThanOrEqual(after);
  });

  it('advancing past the token TTL makes old tokens fail with 401; new ones work', async () => {
    const server = await createTestServer();
    const old = await server.token();
    expect((await server.http.get('/api/v2/documents').set('x-access-token', old)).status).toBe(200);

    const moved = await server.http.post('/__admin/clock').send({ advanceSeconds: 3301 });
    expect(moved.status).toBe(200);
    expect(moved.body.offsetSeconds).toBe(3301);

    const expired = await server.http.get('/api/v2/documents').set('x-access-token', old);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ code: 1006, message: expect.stringMatching(/expired/) });
    const fresh = await server.token();
    expect((await server.http.get('/api/v2/documents').set('x-access-token', fresh)).status).toBe(200);
  });

  it('a token stays valid just before its expiry_time', async () => {
    const server = await createTestServer({ tokenTtlSeconds: 600 });
    const token = await server.token();
    await server.http.post('/__admin/clock').send({ advanceSeconds: 590 }).expect(200);
    expect((await server.http.get('/api/v2/documents').set('x-access-token', token)).status).toBe(200);
  });

  it('{now} sets an absolute Unix time; expiry_time of new tokens follows it', async () => {
    const server = await createTestServer();
    const now = 1_735_693_200;
    const set = await server.http.post('/__admin/clock').send({ now });
    expect(set.status).toBe(200);
    expect(set.body.now - now).toBeGreaterThanOrEqual(0);
    expect(set.body.now - now).toBeLessThanOrEqual(2);
    const read = (await server.http.get('/__admin/clock')).body;
    expect(read.now - now).toBeLessThanOrEqual(2);
    expect(read.offsetSeconds).toBeLessThan(0);

    const { computeHash } = await import('../../src/domain/tokens.js');
    const { ACME_KEY } = await import('../support/test-server.js');
    const token = await server.http
      .post('/api/v2/auth/client_token')
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', computeHash(ACME_KEY.secret, 'c'))
      .send({ scope: 'docs_api', content: 'c' });
    expect(token.body.expiry_time - (now + 3300)).toBeGreaterThanOrEqual(0);
    expect(token.body.expiry_time - (now + 3300)).toBeLessThanOrEqual(2);
  });

  it('rejects a move past the representable range and keeps the clock', async () => {
    const server = await createTestServer();
    await server.http.post('/__admin/clock').send({ advanceSeconds: 60 }).expect(200);
    const res = await server.http.post('/__admin/clock').send({ advanceSeconds: 10_000_000_000_000 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, status: 400 });
    expect((await server.http.get('/__admin/clock')).body.offsetSeconds).toBe(60);
  });
});
