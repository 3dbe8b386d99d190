import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { ACME_KEY, createTestServer, OTHER_KEY } from '../support/test-server.js';

/** The decisions table, token rows, through HTTP. */

const CONTENT = 'api-content-hash';
const tokenCall = (server: Awaited<ReturnType<typeof createTestServer>>) =>
  server.http.post('/api/v2/auth/client_token');

describe('hash algorithm: HMAC-SHA256(secret, content)', () => {
  it('matches the published test vector', () => {
    expect(computeHash('secret', CONTENT)).toBe(
      'adb7d285c09c582d25e57ab006b0a5607e317fdd90d56d782ae602f521ec6e5f',
    );
  });

  it.each([
    ['lower-case hex (default)', {}, computeHash(ACME_KEY.secret, CONTENT), 200],
    ['upper-case hex', {}, computeHash(ACME_KEY.secret, CONTENT).toUpperCase(), 200],
    ['base64 under hex', {}, createHmac('sha256', ACME_KEY.secret).update(CONTENT).digest('base64'), 401],
    [
      'base64 with hashEncoding=base64',
      { hashEncoding: 'base64' as const },
      createHmac('sha256', ACME_KEY.secret).update(CONTENT).digest('base64'),
      200,
    ],
    [
      'hex with hashEncoding=base64',
      { hashEncoding: 'base64' as const },
      computeHash(ACME_KEY.secret, CONTENT),
      401,
    ],
    ['anything with hashEncoding=any', { hashEncoding: 'any' as const }, 'not-a-hash', 200],
    ['a hash of other content', {}, computeHash(ACME_KEY.secret, 'other'), 401],
  ])('%s → %s', async (_name, options, hash, status) => {
    const server = await createTestServer(options);
    const res = await tokenCall(server)
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', hash)
      .send({ scope: 'docs_api', content: CONTENT });
    expect(res.status).toBe(status);
    if (status === 401) expect(res.body).toMatchObject({ success: false, code: 1000, status: 401 });
  });
});

describe('token errors users can tell apart', () => {
  it('an unknown key ID and a hash mismatch get distinct messages, both 401 code 1000', async () => {
    const server = await createTestServer();
    const unknown = await tokenCall(server)
      .set('x-key', 'f'.repeat(64))
      .set('x-hash', 'abc')
      .send({ scope: 'docs_api', content: CONTENT });
    const mismatch = await tokenCall(server)
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', 'abc')
      .send({ scope: 'docs_api', content: CONTENT });
    expect(unknown.body).toMatchObject({ status: 401, code: 1000 });
    expect(mismatch.body).toMatchObject({ status: 401, code: 1000 });
    expect(unknown.body.message).toMatch(/unknown key/i);
    expect(mismatch.body.message).toMatch(/hash/i);
    expect(unknown.body.message).not.toBe(mismatch.body.message);
  });

  it('swapped key ID and secret are called out', async () => {
    const server = await createTestServer();
    const res = await tokenCall(server)
      .set('x-key', ACME_KEY.secret)
      .set('x-hash', computeHash(ACME_KEY.keyId, CONTENT))
      .send({ scope: 'docs_api', content: CONTENT });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/swap/i);
    // Noted too: a client that swallows the 401 still finds it in the run's report.
    const report = (await server.http.get('/__admin/report')).body;
    expect(report.summary.noticeCodes).toEqual({ keySecretSwapped: 1 });
    expect(report.notices[0].notices).toEqual([
      expect.objectContaining({ code: 'keySecretSwapped', location: 'header.x-key' }),
    ]);
    expect(JSON.stringify(report)).not.toContain(ACME_KEY.secret);
    const markdown = (await server.http.get('/__admin/report?format=markdown')).text;
    expect(markdown).toContain('keySecretSwapped');
  });

  it('an unknown key ID that is no secret gets no swapped notice', async () => {
    const server = await createTestServer();
    await tokenCall(server)
      .set('x-key', 'nobody')
      .set('x-hash', 'abc')
      .send({ scope: 'docs_api', content: CONTENT });
    expect((await server.http.get('/__admin/report')).body.summary.noticeCodes).toEqual({});
  });
});

describe('token body, scope and lifetime', () => {
  it.each([
    ['JSON, docs_api', 'json', 'docs_api', 200],
    ['JSON, docs-api', 'json', 'docs-api', 200],
    ['form-encoded, docs_api', 'form', 'docs_api', 200],
    ['JSON, another scope', 'json', 'documents', 400],
  ])('%s → %s', async (_name, type, scope, status) => {
    const server = await createTestServer();
    const res = await tokenCall(server)
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', computeHash(ACME_KEY.secret, CONTENT))
      .type(type)
      .send({ scope, content: CONTENT });
    expect(res.status).toBe(status);
  });

  it('expiry_time is a number: now + 3300 s by default, tokenTtlSeconds otherwise', async () => {
    for (const [options, ttl] of [
      [{}, 3300],
      [{ tokenTtlSeconds: 60 }, 60],
    ] as const) {
      const server = await createTestServer(options);
      const before = Math.floor(Date.now() / 1000);
      const res = await tokenCall(server)
        .set('x-key', ACME_KEY.keyId)
        .set('x-hash', computeHash(ACME_KEY.secret, CONTENT))
        .send({ scope: 'docs_api', content: CONTENT });
      expect(typeof res.body.expiry_time).toBe('number');
      expect(res.body.expiry_time).toBeGreaterThanOrEqual(before + ttl);
      expect(res.body.expiry_time).toBeLessThanOrEqual(before + ttl + 2);
      expect(res.body.success).toBe(true);
    }
  });

  it('replaying the same content and hash is accepted and gives a new opaque token each time', async () => {
    const server = await createTestServer();
    const a = await server.token();
    const b = await server.token();
    expect(a).not.toBe(b);
    expect(a).not.toContain(ACME_KEY.keyId);
  });
});

describe('using tokens', () => {
  it('both token headers are read', async () => {
    const server = await createTestServer();
    const token = await server.token();
    for (const header of ['x-access-token', 'x-api-token']) {
      const res = await server.http.get('/api/v2/documents').set(header, token);
      expect(res.status).toBe(200);
    }
  });

  it.each([
    ['no token', undefined],
    ['an unknown token', 'nope'],
  ])('%s → 401 code 1006', async (_name, token) => {
    const server = await createTestServer();
    const req = server.http.get('/api/v2/documents');
    const res = await (token ? req.set('x-access-token', token) : req);
    expect(res.body).toMatchObject({ success: false, status: 401, code: 1006 });
    expect(res.body.message).toMatch(/^Invalid token/);
  });

  it('the refresh token is issued but not usable as an access token', async () => {
    const server = await createTestServer();
    const issued = await tokenCall(server)
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', computeHash(ACME_KEY.secret, CONTENT))
      .send({ scope: 'docs_api', content: CONTENT });
    expect(typeof issued.body.refresh_token).toBe('string');
    const res = await server.http.get('/api/v2/documents').set('x-access-token', issued.body.refresh_token);
    expect(res.body).toMatchObject({ status: 401, code: 1006 });
  });

  it('a token expires when the fake clock passes expiry_time; a new one works', async () => {
    const server = await createTestServer({ tokenTtlSeconds: 100 });
    const old = await server.token();
    server.mock.root.fake.clock.advance(101);
    const expired = await server.http.get('/api/v2/documents').set('x-access-token', old);
    expect(expired.body).toMatchObject({ status: 401, code: 1006 });
    expect(expired.body.message).toMatch(/expired/);
    const fresh = await server.token();
    expect((await server.http.get('/api/v2/documents').set('x-access-token', fresh)).status).toBe(200);
  });

  it("a token sees only its key's organization", async () => {
    const server = await createTestServer();
    const other = await server.token(OTHER_KEY);
    const list = await server.http.get('/api/v2/documents').set('x-access-token', other);
    expect(list.body.results.map((d: { id: number }) => d.id)).toEqual([201101]);
    const foreign = await server.http.get('/api/v2/documents/101101').set('x-access-token', other);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ success: false, message: 'not found.', code: 0, status: 403 });
  });
});

describe('the default fixture set', () => {
  it('serves its deterministic default key for organization 1', async () => {
    const server = await createTestServer({ fixtures: undefined });
    const { defaultApiKey } = await import('../../src/domain/fixtures/default-keys.js');
    const key = defaultApiKey(1);
    const token = await server.token(key);
    const res = await server.http
      .get('/api/v2/documents')
      .query({ resultsPerPage: 5 })
      .set('x-access-token', token);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(5);
    expect(res.body.results.every((d: { organization_id: number }) => d.organization_id === 1)).toBe(true);
  });
});
