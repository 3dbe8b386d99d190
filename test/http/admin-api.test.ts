import { describe, expect, it } from 'vitest';
import {
  ACME_KEY,
  createTestServer,
  issueToken,
  readSmallSet,
  type TestServer,
} from '../support/test-server.js';

/** The admin API on the root instance: every row of the table, and bad input. */

const RENAME = { name: { name: 'Name', description: '', value: { type: 'string', text: 'Renamed' } } };

function expectVendorError(body: Record<string, unknown>, status: number) {
  expect(body).toMatchObject({ success: false, status, code: expect.any(Number) });
  expect(typeof body.message).toBe('string');
  expect(typeof body.apiRequestUid).toBe('string');
}

async function nameOf(server: TestServer, token: string, id = 101101): Promise<string> {
  const res = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token);
  expect(res.status).toBe(200);
  return res.body.details.name.value.text;
}

describe('GET /__admin/health', () => {
  it('answers ok, also while a catch-all fault is active and after a reset', async () => {
    const server = await createTestServer();
    await server.http.post('/__admin/faults').send({ status: 503 }).expect(201);
    const health = await server.http.get('/__admin/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', session: null, documents: 5 });
    await server.http.post('/__admin/reset').expect(200);
    expect((await server.http.get('/__admin/health')).body.status).toBe('ok');
  });
});

describe('POST /__admin/reset', () => {
  it('restores state, journal, faults and clock, and keeps the tokens clients cached', async () => {
    const server = await createTestServer();
    const oldToken = await server.token();
    await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', oldToken)
      .send(RENAME)
      .expect(200);
    await server.http.post('/__admin/faults').send({ path: '/api/v2/documents/101102', status: 500 });
    await server.http.post('/__admin/clock').send({ advanceSeconds: 600 }).expect(200);
    expect((await server.http.get('/__admin/requests')).body.requests.length).toBeGreaterThan(0);

    const reset = await server.http.post('/__admin/reset');
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ success: true });

    expect((await server.http.get('/__admin/requests')).body.requests).toEqual([]);
    expect((await server.http.get('/__admin/faults')).body.faults).toEqual([]);
    expect((await server.http.get('/__admin/clock')).body.offsetSeconds).toBe(0);
    // The client's cached token still works after a reset (a suite resets between its tests).
    const cached = await server.http.get('/api/v2/documents').set('x-access-token', oldToken);
    expect(cached.status).toBe(200);
    const token = await server.token();
    expect(await nameOf(server, token)).toBe('Dundee Office');
    expect((await server.http.get('/api/v2/documents/101102').set('x-access-token', token)).status).toBe(200);
  });

  it('keeps the settings (they are options, not state)', async () => {
    const server = await createTestServer();
    await server.http.put('/__admin/settings').send({ successLiterals: 'boolean' }).expect(200);
    await server.http.post('/__admin/reset').expect(200);
    expect((await server.http.get('/__admin/settings')).body.successLiterals).toBe('boolean');
  });
});

describe('PUT /__admin/fixtures', () => {
  it('replaces the state, becomes the reset point, and clears tokens, journal and faults', async () => {
    const server = await createTestServer();
    const oldToken = await server.token();
    await server.http.post('/__admin/faults').send({ path: '/api/v2/documents', status: 500 });
    const set = readSmallSet();
    set.documents = set.documents?.filter((d) => d.id !== 101104);
    const first = set.documents?.[0];
    if (first) first.label = 'Loaded over HTTP';

    const res = await server.http.put('/__admin/fixtures').send(set);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, documents: 4 });
    expect((await server.http.get('/__admin/faults')).body.faults).toEqual([]);
    expect((await server.http.get('/__admin/requests')).body.requests).toEqual([]);
    expect((await server.http.get('/api/v2/documents').set('x-access-token', oldToken)).status).toBe(401);

    const token = await server.token();
    await server.http.patch('/api/v2/documents/101101').set('x-access-token', token).send(RENAME).expect(200);
    await server.http.post('/__admin/reset').expect(200);
    const state = (await server.http.get('/__admin/state')).body;
    expect(state.documents.map((d: { id: number }) => d.id)).toEqual([101101, 101102, 101103, 201101]);
    expect(state.documents[0].label).toBe('Loaded over HTTP');
    expect(state.documents[0].details.name.value.text).toBe('Dundee Office');
  });

  it('rejects a bad set naming every problem with file and JSON path, and keeps the old state', async () => {
    const server = await createTestServer();
    const token = await server.token();
    await server.http.patch('/api/v2/documents/101101').set('x-access-token', token).send(RENAME).expect(200);
    const set = readSmallSet() as Record<string, unknown>;
    const documents = set.documents as Array<Record<string, unknown>>;
    documents[0] = { ...documents[0], client_id: 99999 };
    delete documents[2]?.label;
    set.clients = 'nope';

    const res = await server.http.put('/__admin/fixtures').send(set);
    expect(res.status).toBe(400);
    expectVendorError(res.body, 400);
    const locations = res.body.errors.map((e: { location: string }) => e.location);
    expect(locations).toEqual(expect.arrayContaining(['body/clients', 'body/documents/2/label']));
    for (const e of res.body.errors) expect(e.message).toEqual(expect.any(String));
    expect(res.body.message).toMatch(/fixture set rejected: \d+ problems/);

    expect(await nameOf(server, token)).toBe('Renamed');
    await server.http.post('/__admin/reset').expect(200);
    expect(await nameOf(server, await server.token())).toBe('Dundee Office');
  });

  it('refuses a set nested too deeply to serialise, keeping the state readable', async () => {
    const server = await createTestServer();
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const body = JSON.stringify(readSmallSet()).replace('"tags":[]', `"tags":${deep}`);
    expect(body).toContain(deep);
    const res = await server.http.put('/__admin/fixtures').set('content-type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { location: 'body', message: expect.stringMatching(/nested too deeply/) },
    ]);
    expect((await server.http.get('/__admin/state')).status).toBe(200);
    const session = await server.http
      .post('/__admin/sessions')
      .set('content-type', 'application/json')
      .send(`{"fixtures":${body}}`);
    expect(session.status).toBe(400);
  });

  it('names a referential problem (a document of an unknown client)', async () => {
    const server = await createTestServer();
    const set = readSmallSet();
    const doc = set.documents?.[1];
    if (doc) doc.client_id = 99999;
    const res = await server.http.put('/__admin/fixtures').send(set);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(
      'body/documents/1/client_id',
    );
  });
});

describe('GET /__admin/state', () => {
  it('is the current state as a fixture set that loads back unchanged', async () => {
    const server = await createTestServer();
    const token = await server.token();
    await server.http.patch('/api/v2/documents/101101').set('x-access-token', token).send(RENAME).expect(200);
    const state = (await server.http.get('/__admin/state')).body;
    expect(Object.keys(state).sort()).toEqual([
      'apiKeys',
      'clients',
      'documents',
      'organizations',
      'templates',
    ]);
    expect(state.apiKeys).toContainEqual(ACME_KEY);
    expect(state.documents[0].details.name.value.text).toBe('Renamed');

    await server.http.put('/__admin/fixtures').send(state).expect(200);
    expect((await server.http.get('/__admin/state')).body).toEqual(state);
  });
});

describe('POST /__admin/tokens/revoke', () => {
  it('invalidates every token issued so far; new tokens work', async () => {
    const server = await createTestServer();
    const a = await server.token();
    const b = await server.token();
    const res = await server.http.post('/__admin/tokens/revoke');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, revoked: 2 });
    for (const token of [a, b]) {
      const denied = await server.http.get('/api/v2/documents').set('x-access-token', token);
      expect(denied.status).toBe(401);
      expect(denied.body.code).toBe(1006);
    }
    const fresh = await server.token();
    expect((await server.http.get('/api/v2/documents').set('x-access-token', fresh)).status).toBe(200);
  });
});

describe('GET and PUT /__admin/settings', () => {
  it('reads the settings and changes the ones sent, which take effect at once', async () => {
    const server = await createTestServer();
    const before = (await server.http.get('/__admin/settings')).body;
    expect(before).toMatchObject({ successLiterals: 'contract', latencyMs: 0, validateResponses: false });

    const res = await server.http
      .put('/__admin/settings')
      .send({ successLiterals: 'boolean', tokenTtlSeconds: 60 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, successLiterals: 'boolean', tokenTtlSeconds: 60 });

    const token = await server.token();
    const patched = await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send(RENAME);
    expect(patched.body).toEqual({ success: true });
  });

  it('applies nothing when one value is bad, and names each bad key', async () => {
    const server = await createTestServer();
    const res = await server.http
      .put('/__admin/settings')
      .send({ tokenTtlSeconds: 60, hashEncoding: 'rot13', maxResultsPerPage: 0 });
    expect(res.status).toBe(400);
    expectVendorError(res.body, 400);
    const locations = res.body.errors.map((e: { location: string }) => e.location);
    expect(locations.join(' ')).toMatch(/hashEncoding/);
    expect(locations.join(' ')).toMatch(/maxResultsPerPage/);
    expect((await server.http.get('/__admin/settings')).body.tokenTtlSeconds).toBe(3300);
  });
});

describe('bad input to the admin API', () => {
  it.each([
    ['PUT /__admin/fixtures, not JSON', 'put', '/__admin/fixtures', 'text/plain', 'hello', 400],
    ['PUT /__admin/fixtures, malformed JSON', 'put', '/__admin/fixtures', 'application/json', '{"a":', 400],
    ['PUT /__admin/fixtures, an array', 'put', '/__admin/fixtures', 'application/json', '[]', 400],
    ['PUT /__admin/fixtures, no body', 'put', '/__admin/fixtures', undefined, undefined, 400],
    ['POST /__admin/clock, empty', 'post', '/__admin/clock', 'application/json', '{}', 400],
    [
      'POST /__admin/clock, both',
      'post',
      '/__admin/clock',
      'application/json',
      '{"advanceSeconds":1,"now":1}',
      400,
    ],
    [
      'POST /__admin/clock, a string',
      'post',
      '/__admin/clock',
      'application/json',
      '{"advanceSeconds":"x"}',
      400,
    ],
    [
      'POST /__admin/clock, past 9999',
      'post',
      '/__admin/clock',
      'application/json',
      '{"now":253402300800}',
      400,
    ],
    ['POST /__admin/clock, negative now', 'post', '/__admin/clock', 'application/json', '{"now":-1}', 400],
    ['PUT /__admin/settings, unknown key', 'put', '/__admin/settings', 'application/json', '{"port":1}', 400],
    [
      'PUT /__admin/settings, out of range',
      'put',
      '/__admin/settings',
      'application/json',
      '{"latencyMs":-1}',
      400,
    ],
    ['POST /__admin/faults, an array', 'post', '/__admin/faults', 'application/json', '[]', 400],
    [
      'POST /__admin/faults, unknown key',
      'post',
      '/__admin/faults',
      'application/json',
      '{"statu":500}',
      400,
    ],
    [
      'POST /__admin/sessions, fixtures not an object',
      'post',
      '/__admin/sessions',
      'application/json',
      '{"fixtures":5}',
      400,
    ],
    [
      'GET /__admin/requests, status not a number',
      'get',
      '/__admin/requests?status=abc',
      undefined,
      undefined,
      400,
    ],
    ['GET /__admin/requests, since negative', 'get', '/__admin/requests?since=-1', undefined, undefined, 400],
    ['GET /__admin/requests, limit 0', 'get', '/__admin/requests?limit=0', undefined, undefined, 400],
    ['GET /__admin/requests, order sideways', 'get', '/__admin/requests?order=up', undefined, undefined, 400],
    ['GET /__admin/requests/0', 'get', '/__admin/requests/0', undefined, undefined, 400],
    ['GET /__admin/requests/999 (not held)', 'get', '/__admin/requests/999', undefined, undefined, 404],
    ['DELETE /__admin/faults/nope', 'delete', '/__admin/faults/nope', undefined, undefined, 404],
    ['DELETE /__admin/sessions/nope', 'delete', '/__admin/sessions/nope', undefined, undefined, 404],
    ['PATCH /__admin/reset (wrong method)', 'patch', '/__admin/reset', undefined, undefined, 405],
    ['GET /__admin/nope (unknown call)', 'get', '/__admin/nope', undefined, undefined, 404],
  ] as const)(
    '%s → %i in the vendor shape, nothing changed',
    async (_name, method, path, type, body, status) => {
      const server = await createTestServer();
      const before = (await server.http.get('/__admin/state')).body;
      const clockBefore = (await server.http.get('/__admin/clock')).body.offsetSeconds;
      let req = server.http[method](path);
      if (type) req = req.set('content-type', type);
      const res = await (body === undefined ? req : req.send(body));
      expect(res.status).toBe(status);
      expectVendorError(res.body, status);
      expect((await server.http.get('/__admin/state')).body).toEqual(before);
      expect((await server.http.get('/__admin/clock')).body.offsetSeconds).toBe(clockBefore);
      expect((await server.http.get('/__admin/settings')).body.latencyMs).toBe(0);
      expect((await server.http.get('/__admin/faults')).body.faults).toEqual([]);
      expect((await server.http.get('/__admin/sessions')).body.sessions).toEqual([]);
    },
  );

  it('admin calls are not journaled', async () => {
    const server = await createTestServer();
    await server.http.get('/__admin/state');
    await server.http.post('/__admin/clock').send({});
    await server.http.get('/openapi.json');
    expect((await server.http.get('/__admin/requests')).body.requests).toEqual([]);
    expect((await server.http.get('/__admin/violations')).body.violations).toEqual([]);
  });
});

describe('ADMIN_TOKEN', () => {
  const ADMIN_CALLS: Array<[string, string, object | undefined]> = [
    ['post', '/__admin/reset', undefined],
    ['put', '/__admin/fixtures', {}],
    ['get', '/__admin/state', undefined],
    ['get', '/__admin/requests', undefined],
    ['delete', '/__admin/requests', undefined],
    ['get', '/__admin/violations', undefined],
    ['post', '/__admin/faults', { status: 500 }],
    ['get', '/__admin/faults', undefined],
    ['delete', '/__admin/faults', undefined],
    ['delete', '/__admin/faults/some-id', undefined],
    ['get', '/__admin/clock', undefined],
    ['post', '/__admin/clock', { advanceSeconds: 1 }],
    ['post', '/__admin/tokens/revoke', undefined],
    ['get', '/__admin/settings', undefined],
    ['put', '/__admin/settings', {}],
    ['post', '/__admin/sessions', {}],
    ['get', '/__admin/sessions', undefined],
    ['delete', '/__admin/sessions/some-id', undefined],
  ];

  it.each(ADMIN_CALLS)('%s %s needs the bearer token', async (method, path, body) => {
    const server = await createTestServer({ adminToken: 's3cret-admin' });
    const call = (authorization?: string) => {
      let req = server.http[method as 'get'](path);
      if (authorization) req = req.set('authorization', authorization);
      return body === undefined ? req : req.send(body);
    };
    for (const authorization of [
      undefined,
      'Bearer wrong',
      'Basic s3cret-admin',
      's3cret-admin',
      'Bearer s3cret-admin2',
    ]) {
      const denied = await call(authorization);
      expect(denied.status).toBe(401);
      expect(denied.body).toMatchObject({ success: false, status: 401, code: 1006 });
      expect(denied.body.message).toMatch(/admin token/i);
    }
    const allowed = await call('Bearer s3cret-admin');
    expect(allowed.status).not.toBe(401);
    expect(allowed.status).toBeLessThan(500);
  });

  it('leaves health open, the vendor API untouched, and protects session admin calls too', async () => {
    const server = await createTestServer({ adminToken: 's3cret-admin' });
    expect((await server.http.get('/__admin/health')).status).toBe(200);
    const token = await server.token();
    expect((await server.http.get('/api/v2/documents').set('x-access-token', token)).status).toBe(200);
    const created = await server.http.post('/__admin/sessions').set('authorization', 'bearer s3cret-admin');
    expect(created.status).toBe(201);
    const prefix = `/sessions/${created.body.id}`;
    expect((await server.http.get(`${prefix}/__admin/health`)).status).toBe(200);
    expect((await server.http.get(`${prefix}/__admin/requests`)).status).toBe(401);
    const sessionToken = await issueToken(server.http, prefix);
    expect(
      (await server.http.get(`${prefix}/api/v2/documents`).set('x-access-token', sessionToken)).status,
    ).toBe(200);
  });

  it('without ADMIN_TOKEN the admin API is open', async () => {
    const server = await createTestServer();
    expect((await server.http.get('/__admin/state')).status).toBe(200);
  });
});
