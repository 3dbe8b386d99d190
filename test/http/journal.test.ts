import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_SPEC_PATH } from '../../src/contract/spec-document.js';
import { computeHash } from '../../src/domain/tokens.js';
import { createMockServer } from '../../src/index.js';
import { requestToken } from '../support/request-token.js';
import { ACME_KEY, createTestServer, issueToken, SMALL_SET } from '../support/test-server.js';

/** The request journal and the contract violations. */

const PATCH_BODY = {
  serial_number: { name: 'Serial Number', description: '', value: { type: 'string', text: 'SN-2' } },
};

describe('GET /__admin/requests', () => {
  it("keeps a cookie header by its cookies' names only (a browser sends every localhost app's cookies)", async () => {
    const server = await createTestServer();
    const token = await server.token();
    await server.http
      .get('/api/v2/documents')
      .set('x-access-token', token)
      .set('cookie', 'other_app_session=s%3Asecret-value; theme=dark;  csrftoken=abc123=tail; flag')
      .expect(200);
    const journal = await server.http.get('/__admin/requests');
    const listed = journal.body.requests.at(-1);
    expect(listed.headers.cookie).toBe('other_app_session; theme; csrftoken; flag');
    expect(listed.headers['x-access-token']).toBe(token);
    const text = JSON.stringify(journal.body);
    for (const value of ['secret-value', 'dark', 'abc123']) expect(text).not.toContain(value);
    const one = await server.http.get(`/__admin/requests/${listed.id}`);
    expect(one.body.headers.cookie).toBe('other_app_session; theme; csrftoken; flag');
    expect((await server.mock.requests()).at(-1)?.headers.cookie).toBe(
      'other_app_session; theme; csrftoken; flag',
    );
  });

  it('records what the client sent and what it got, newest last', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const res = await server.http
      .patch('/api/v2/documents/101103?trace=1')
      .set('x-access-token', token)
      .set('x-client', 'suite-a')
      .send(PATCH_BODY);
    expect(res.status).toBe(200);

    const journal = await server.http.get('/__admin/requests');
    expect(journal.status).toBe(200);
    const [tokenCall, patch] = journal.body.requests;
    expect(tokenCall).toMatchObject({ method: 'POST', path: '/api/v2/auth/client_token', status: 200 });
    expect(tokenCall.headers['x-key']).toBe(ACME_KEY.keyId);
    expect(tokenCall.response.access_token).toBe(token);
    expect(patch).toMatchObject({
      method: 'PATCH',
      path: '/api/v2/documents/101103',
      query: { trace: '1' },
      body: PATCH_BODY,
      status: 200,
      response: res.body,
      operationId: 'patchDocument',
      violations: [],
    });
    expect(patch.headers['x-access-token']).toBe(token);
    expect(patch.headers['x-client']).toBe('suite-a');
    expect(patch.id).toBeGreaterThan(tokenCall.id);
    expect(Date.parse(patch.time)).not.toBeNaN();
    expect(patch.durationMs).toEqual(expect.any(Number));
  });

  it('records error responses as sent, and a non-JSON body as text', async () => {
    const server = await createTestServer();
    const res = await server.http
      .post('/api/v2/auth/client_token')
      .set('content-type', 'text/plain')
      .send('hi');
    expect(res.status).toBeGreaterThanOrEqual(400);
    const [entry] = (await server.http.get('/__admin/requests')).body.requests;
    expect(entry.body).toBe('hi');
    expect(entry.status).toBe(res.status);
    expect(entry.response).toEqual(res.body);
  });

  it('still lists a request whose JSON body is nested too deeply to serialise', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const res = await server.http
      .patch('/api/v2/documents/101103')
      .set('x-access-token', token)
      .set('content-type', 'application/json')
      .send(deep);
    expect(res.status).toBe(400);
    const listed = await server.http.get('/__admin/requests?method=PATCH');
    expect(listed.status).toBe(200);
    const [entry] = listed.body.requests;
    expect(entry).toMatchObject({ bodyTruncated: true, bodyBytes: deep.length });
    expect(entry.body).toBe(deep.slice(0, 256));
    const whole = await server.http.get(`/__admin/requests/${entry.id}`);
    expect(whole.status).toBe(200);
    expect(whole.body.body).toMatch(/nested too deeply/);
    expect((await server.http.get('/__admin/violations')).status).toBe(200);
  });

  it('filters by method, path, status and since', async () => {
    const server = await createTestServer();
    const token = await server.token();
    await server.http.get('/api/v2/documents').set('x-access-token', token);
    await server.http.get('/api/v2/documents/101101').set('x-access-token', token);
    await server.http.get('/api/v2/documents/999999').set('x-access-token', token);
    await server.http.patch('/api/v2/documents/101103').set('x-access-token', token).send(PATCH_BODY);
    const list = async (query: string) =>
      (await server.http.get(`/__admin/requests${query}`)).body.requests.map(
        (e: { method: string; path: string }) => `${e.method} ${e.path}`,
      );

    expect(await list('?method=patch')).toEqual(['PATCH /api/v2/documents/101103']);
    expect(await list('?path=/api/v2/documents/101101')).toEqual(['GET /api/v2/documents/101101']);
    expect(await list('?status=403')).toEqual(['GET /api/v2/documents/999999']);
    expect(await list('?method=GET&status=200')).toEqual([
      'GET /api/v2/documents',
      'GET /api/v2/documents/101101',
    ]);
    const all = (await server.http.get('/__admin/requests')).body.requests;
    const notFound = all.find((e: { status: number }) => e.status === 403).id;
    expect(await list(`?since=${notFound}`)).toEqual(['PATCH /api/v2/documents/101103']);
  });

  it('DELETE clears it; ids keep increasing', async () => {
    const server = await createTestServer();
    await server.http.get('/api/v2/documents');
    const before = (await server.http.get('/__admin/requests')).body.requests;
    expect((await server.http.delete('/__admin/requests')).body).toEqual({ success: true });
    expect((await server.http.get('/__admin/requests')).body.requests).toEqual([]);
    expect((await server.http.get('/__admin/violations')).body.violations).toEqual([]);
    await server.http.get('/api/v2/documents');
    const after = (await server.http.get('/__admin/requests')).body.requests;
    expect(after).toHaveLength(1);
    expect(after[0].id).toBeGreaterThan(before[0].id);
  });

  it('keeps at most journalLimit entries, dropping the oldest', async () => {
    const server = await createTestServer({ journalLimit: 3 });
    for (let page = 1; page <= 7; page++) await server.http.get(`/api/v2/documents?pageNum=${page}`);
    const entries = (await server.http.get('/__admin/requests')).body.requests;
    expect(entries.map((e: { query: { pageNum: string } }) => e.query.pageNum)).toEqual(['5', '6', '7']);
    expect((await server.http.get('/__admin/violations')).body.violations).toHaveLength(3);
  });

  it('does not record admin calls, health or the spec document', async () => {
    const server = await createTestServer();
    await server.http.get('/__admin/health');
    await server.http.get('/__admin/state');
    await server.http.get('/openapi.json');
    await server.http.get('/openapi.yaml');
    expect((await server.http.get('/__admin/requests')).body.requests).toEqual([]);
  });
});

describe('GET /__admin/violations', () => {
  it('lists only requests that broke the contract, naming the parameter that was wrong', async () => {
    const server = await createTestServer();
    const token = await server.token();
    await server.http.get('/api/v2/documents?pageNum=0').set('x-access-token', token);
    await server.http.get('/api/v2/documents').set('x-access-token', token);
    await server.http.get('/api/v2/documents?orderBy=colour').set('x-access-token', token);

    const res = await server.http.get('/__admin/violations');
    expect(res.status).toBe(200);
    const { violations } = res.body;
    expect(violations).toHaveLength(2);
    expect(violations[0]).toMatchObject({
      method: 'GET',
      path: '/api/v2/documents',
      status: 404,
      violations: [{ location: 'query.pageNum', message: expect.stringMatching(/between 1 and 9999/) }],
    });
    expect(violations[1].violations[0].location).toBe('query.orderBy');
    const journal = (await server.http.get('/__admin/requests')).body.requests;
    expect(violations.map((v: { requestId: number }) => v.requestId)).toEqual([journal[1].id, journal[3].id]);
  });

  it.each([
    [
      'a body that breaks the schema',
      'patch',
      '/api/v2/documents/101103',
      { serial_number: 5 },
      true,
      'body/serial_number',
    ],
    ['a bad document id', 'get', '/api/v2/documents/abc', undefined, true, 'path.documentId'],
    ['no token header', 'get', '/api/v2/documents', undefined, false, 'header.x-access-token'],
    ['an unknown route', 'get', '/api/v2/folders', undefined, true, 'path'],
    ['a wrong method', 'delete', '/api/v2/documents', undefined, true, 'method'],
    [
      'a missing x-hash',
      'post',
      '/api/v2/auth/client_token',
      { scope: 'docs_api', content: 'x' },
      false,
      'header.x-hash',
    ],
  ] as const)('%s is a violation', async (_name, method, path, body, withToken, location) => {
    const server = await createTestServer();
    const token = await server.token();
    let req = server.http[method](path);
    if (withToken) req = req.set('x-access-token', token);
    if (method === 'post') req = req.set('x-key', ACME_KEY.keyId);
    const res = await (body === undefined ? req : req.send(body));
    expect(res.status).toBeGreaterThanOrEqual(400);
    const [record] = (await server.http.get('/__admin/violations')).body.violations;
    expect(record.status).toBe(res.status);
    expect(record.violations.map((v: { location: string }) => v.location)).toContain(location);
  });

  it('a body too large (413) and a query too long (414) are violations', async () => {
    const server = await createTestServer({ bodyLimit: 100, maxQueryLength: 20 });
    const token = await server.token();
    await server.http
      .patch('/api/v2/documents/101103')
      .set('x-access-token', token)
      .send({ serial_number: 'x'.repeat(200) });
    await server.http.get(`/api/v2/documents?searchTxt=${'y'.repeat(30)}`).set('x-access-token', token);
    const { violations } = (await server.http.get('/__admin/violations')).body;
    expect(violations.map((v: { status: number }) => v.status)).toEqual([413, 414]);
    expect(violations[0].violations[0].location).toBe('body');
    expect(violations[1].violations[0].location).toBe('query');
  });

  it('state issues are not violations: a bad, expired or revoked token, a wrong hash, a foreign document', async () => {
    const server = await createTestServer();
    const token = await server.token();
    await server.http.get('/api/v2/documents').set('x-access-token', 'not-a-token');
    await server.http.get('/api/v2/documents/201101').set('x-access-token', token);
    await server.http
      .post('/api/v2/auth/client_token')
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', computeHash('wrong-secret', 'x'))
      .send({ scope: 'docs_api', content: 'x' });
    await server.http.post('/__admin/tokens/revoke');
    await server.http.get('/api/v2/documents').set('x-access-token', token);
    const statuses = (await server.http.get('/__admin/requests')).body.requests.map(
      (e: { status: number }) => e.status,
    );
    expect(statuses).toEqual([200, 401, 403, 401, 401]);
    expect((await server.http.get('/__admin/violations')).body.violations).toEqual([]);
  });
});

describe('runtime response validation (validateResponses)', () => {
  /** A copy of the spec that declares expiry_time a string: the fake's numbers now break it. */
  function specWithStringExpiry(): string {
    const text = readFileSync(DEFAULT_SPEC_PATH, 'utf8');
    const from = '        expiry_time:\n          type: integer';
    expect(text).toContain(from);
    const dir = mkdtempSync(join(tmpdir(), 'fake-spec-'));
    const path = join(dir, 'openapi.yaml');
    writeFileSync(path, text.replace(from, '        expiry_time:\n          type: string'));
    return path;
  }

  it('adds response violations to the journal entry and logs each at warn, never changing the response', async () => {
    const mock = await createMockServer({
      fixtures: SMALL_SET,
      logLevel: 'silent',
      specPath: specWithStringExpiry(),
    });
    const warn = vi.spyOn(mock.logger, 'warn');
    const url = await mock.listen(0, '127.0.0.1');
    try {
      const admin = (path: string, init?: RequestInit) => fetch(`${url}/__admin${path}`, init);
      const put = await admin('/settings', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ validateResponses: true }),
      });
      expect(put.status).toBe(200);
      const content = 'c';
      const res = await requestToken(url, ACME_KEY, content);
      expect(res.status).toBe(200);
      expect(typeof ((await res.json()) as { expiry_time: unknown }).expiry_time).toBe('number');

      const violations = (
        (await (await admin('/violations')).json()) as {
          violations: Array<{ violations: Array<{ location: string }> }>;
        }
      ).violations;
      expect(violations).toHaveLength(1);
      expect(violations[0]?.violations.map((v) => v.location)).toEqual(['response.body/expiry_time']);
      const journal = (await mock.requests())[0];
      expect(journal?.violations[0]?.location).toBe('response.body/expiry_time');
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({
          violation: expect.objectContaining({ location: 'response.body/expiry_time' }),
        }),
        expect.stringContaining('response breaks the contract'),
      );
    } finally {
      await mock.close();
    }
  });

  it('is off by default: conforming or not, nothing is checked', async () => {
    const mock = await createMockServer({
      fixtures: SMALL_SET,
      logLevel: 'silent',
      specPath: specWithStringExpiry(),
    });
    const url = await mock.listen(0, '127.0.0.1');
    try {
      const content = 'c';
      await requestToken(url, ACME_KEY, content);
      expect(await mock.violations()).toEqual([]);
    } finally {
      await mock.close();
    }
  });

  it('finds nothing to report on the shipped spec', async () => {
    const server = await createTestServer({ validateResponses: true });
    const token = await issueToken(server.http);
    await server.http.get('/api/v2/documents').set('x-access-token', token);
    await server.http.get('/api/v2/documents/101101').set('x-access-token', token);
    await server.http.patch('/api/v2/documents/101103').set('x-access-token', token).send(PATCH_BODY);
    expect((await server.http.get('/__admin/violations')).body.violations).toEqual([]);
    const entries = await server.mock.requests();
    expect(entries).toHaveLength(4);
  });
});
