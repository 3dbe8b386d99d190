import { describe, expect, it, vi } from 'vitest';
import type { Dataset } from '../../src/domain/types.js';
import { Instance } from '../../src/harness/instance/instance.js';
import { SessionRegistry } from '../../src/harness/sessions/sessions.js';
import { createTestServer, issueToken, readSmallSet, type TestServer } from '../support/test-server.js';

/** Sessions: whole isolated fakes under /sessions/{id}. */

const rename = (text: string) => ({
  name: { name: 'Name', description: '', value: { type: 'string', text } },
});

async function createSession(server: TestServer, body: object = {}) {
  const res = await server.http.post('/__admin/sessions').send(body);
  expect(res.status).toBe(201);
  return {
    id: res.body.id as string,
    baseUrl: res.body.baseUrl as string,
    prefix: `/sessions/${res.body.id}`,
  };
}

describe('POST /__admin/sessions', () => {
  it('answers a random URL-safe id and a baseUrl built from the Host header', async () => {
    const server = await createTestServer();
    const res = await server.http.post('/__admin/sessions').set('host', 'fake.localhost:8080').send({});
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(res.body.baseUrl).toBe(`http://fake.localhost:8080/sessions/${res.body.id}`);
    const other = await server.http.post('/__admin/sessions');
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(res.body.id);
  });

  it('starts from the root reset point without fixtures, from the given set with them', async () => {
    const server = await createTestServer();
    const rootToken = await server.token();
    await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', rootToken)
      .send(rename('Root edit'));
    const plain = await createSession(server);
    const token = await issueToken(server.http, plain.prefix);
    const read = await server.http
      .get(`${plain.prefix}/api/v2/documents/101101`)
      .set('x-access-token', token);
    expect(read.body.details.name.value.text).toBe('Dundee Office');

    const set = readSmallSet();
    set.documents = set.documents?.slice(0, 2);
    const custom = await createSession(server, { fixtures: set });
    expect((await server.http.get(`${custom.prefix}/__admin/health`)).body).toMatchObject({
      status: 'ok',
      session: custom.id,
      documents: 2,
    });
  });

  it('rejects bad fixtures naming every problem under body/fixtures, and creates nothing', async () => {
    const server = await createTestServer();
    const set = readSmallSet() as Record<string, unknown>;
    set.organizations = [{ id: 'one' }];
    const res = await server.http.post('/__admin/sessions').send({ fixtures: set });
    expect(res.status).toBe(400);
    const locations = res.body.errors.map((e: { location: string }) => e.location);
    expect(locations).toEqual(expect.arrayContaining(['body/fixtures/organizations/0/id']));
    expect((await server.http.get('/__admin/sessions')).body.sessions).toEqual([]);
  });

  it('answers 429 tooManySessions past maxSessions, and makes room when one is deleted', async () => {
    const server = await createTestServer({ maxSessions: 2 });
    const first = await createSession(server);
    await createSession(server);
    const refused = await server.http.post('/__admin/sessions').send({});
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, status: 429, code: 0 });
    expect(refused.body.message).toMatch(/too many sessions/);
    await server.http.delete(`/__admin/sessions/${first.id}`).expect(200);
    expect((await server.http.post('/__admin/sessions').send({})).status).toBe(201);
  });
});

describe('a session', () => {
  it('serves the vendor API and the admin API under its baseUrl, like the root', async () => {
    const server = await createTestServer();
    const s = await createSession(server);
    const token = await issueToken(server.http, s.prefix);
    const list = await server.http.get(`${s.prefix}/api/v2/documents`).set('x-access-token', token);
    expect(list.status).toBe(200);
    expect(list.headers['x-fake-session']).toBe(s.id);
    expect(list.body.results).toHaveLength(4);
    await server.http.get(`${s.prefix}/api/v2/documents?pageNum=0`).set('x-access-token', token);

    const journal = (await server.http.get(`${s.prefix}/__admin/requests`)).body.requests;
    expect(journal.map((e: { path: string }) => e.path)).toEqual([
      '/api/v2/auth/client_token',
      '/api/v2/documents',
      '/api/v2/documents',
    ]);
    const violations = (await server.http.get(`${s.prefix}/__admin/violations`)).body.violations;
    expect(violations).toHaveLength(1);
    expect((await server.http.get('/__admin/requests')).body.requests).toEqual([]);

    await server.http.post(`${s.prefix}/__admin/reset`).expect(200);
    expect((await server.http.get(`${s.prefix}/__admin/requests`)).body.requests).toEqual([]);
    // The session's token outlives its reset; revoking ends it.
    expect((await server.http.get(`${s.prefix}/api/v2/documents`).set('x-access-token', token)).status).toBe(
      200,
    );
    await server.http.post(`${s.prefix}/__admin/tokens/revoke`).expect(200);
    expect((await server.http.get(`${s.prefix}/api/v2/documents`).set('x-access-token', token)).status).toBe(
      401,
    );
  });

  it('two sessions with different fixtures, interleaved writes: no shared data, journal or faults', async () => {
    const server = await createTestServer();
    const setB = readSmallSet();
    const docB = setB.documents?.[0];
    if (docB) docB.label = 'Office of B';
    const a = await createSession(server);
    const b = await createSession(server, { fixtures: setB });
    const [tokenA, tokenB] = await Promise.all([
      issueToken(server.http, a.prefix),
      issueToken(server.http, b.prefix),
    ]);
    await server.http
      .post(`${a.prefix}/__admin/faults`)
      .send({ path: '/api/v2/documents/101102', status: 500 });

    const writes = [];
    for (let i = 0; i < 5; i++) {
      writes.push(
        server.http
          .patch(`${a.prefix}/api/v2/documents/101101`)
          .set('x-access-token', tokenA)
          .send(rename(`A${i}`)),
        server.http
          .patch(`${b.prefix}/api/v2/documents/101101`)
          .set('x-access-token', tokenB)
          .send(rename(`B${i}`)),
      );
    }
    for (const res of await Promise.all(writes)) expect(res.status).toBe(200);

    const readA = await server.http.get(`${a.prefix}/api/v2/documents/101101`).set('x-access-token', tokenA);
    const readB = await server.http.get(`${b.prefix}/api/v2/documents/101101`).set('x-access-token', tokenB);
    expect(readA.body.details.name.value.text).toBe('A4');
    expect(readB.body.details.name.value.text).toBe('B4');
    const listA = await server.http
      .get(`${a.prefix}/api/v2/documents?orderBy=id`)
      .set('x-access-token', tokenA);
    const listB = await server.http
      .get(`${b.prefix}/api/v2/documents?orderBy=id`)
      .set('x-access-token', tokenB);
    expect(listA.body.results[0].label).toBe('Dundee Office');
    expect(listB.body.results[0].label).toBe('Office of B');

    // Tokens, faults and journals stay in their session.
    expect((await server.http.get(`${b.prefix}/api/v2/documents`).set('x-access-token', tokenA)).status).toBe(
      401,
    );
    expect(
      (await server.http.get(`${a.prefix}/api/v2/documents/101102`).set('x-access-token', tokenA)).status,
    ).toBe(500);
    expect(
      (await server.http.get(`${b.prefix}/api/v2/documents/101102`).set('x-access-token', tokenB)).status,
    ).toBe(200);
    expect((await server.http.get(`${b.prefix}/__admin/faults`)).body.faults).toEqual([]);
    const journalA = (await server.http.get(`${a.prefix}/__admin/requests?method=PATCH`)).body.requests;
    const journalB = (await server.http.get(`${b.prefix}/__admin/requests?method=PATCH`)).body.requests;
    const texts = (entries: Array<{ body: ReturnType<typeof rename> }>) =>
      entries.map((e) => e.body.name.value.text).sort();
    expect(texts(journalA)).toEqual(['A0', 'A1', 'A2', 'A3', 'A4']);
    expect(texts(journalB)).toEqual(['B0', 'B1', 'B2', 'B3', 'B4']);
    // The root saw none of it.
    const rootToken = await issueToken(server.http);
    const rootRead = await server.http.get('/api/v2/documents/101101').set('x-access-token', rootToken);
    expect(rootRead.body.details.name.value.text).toBe('Dundee Office');
  });

  it('a session URL manages its own session only: it lists itself, cannot create or delete others', async () => {
    const server = await createTestServer();
    const a = await createSession(server);
    const b = await createSession(server);
    const created = await server.http.post(`${a.prefix}/__admin/sessions`).send({});
    expect(created.status).toBe(403);
    expect(created.body.message).toMatch(/create sessions from the root/);
    const listed = await server.http.get(`${a.prefix}/__admin/sessions`).set('host', 'fake.localhost:9000');
    expect(listed.body.sessions.map((x: { baseUrl: string }) => x.baseUrl)).toEqual([
      `http://fake.localhost:9000/sessions/${a.id}`,
    ]);
    expect((await server.http.delete(`${a.prefix}/__admin/sessions/${b.id}`)).status).toBe(404);
    expect((await server.http.get(`${b.prefix}/__admin/health`)).status).toBe(200);
    expect((await server.http.delete(`${a.prefix}/__admin/sessions/${a.id}`)).status).toBe(200);
    expect((await server.http.get(`${a.prefix}/__admin/health`)).status).toBe(404);
    expect(
      (await server.http.get('/__admin/sessions')).body.sessions.map((x: { id: string }) => x.id),
    ).toEqual([b.id]);
  });

  it('has its own clock and settings', async () => {
    const server = await createTestServer();
    const a = await createSession(server);
    const b = await createSession(server);
    await server.http.post(`${a.prefix}/__admin/clock`).send({ advanceSeconds: 3600 }).expect(200);
    await server.http.put(`${a.prefix}/__admin/settings`).send({ successLiterals: 'boolean' }).expect(200);
    expect((await server.http.get(`${b.prefix}/__admin/clock`)).body.offsetSeconds).toBe(0);
    expect((await server.http.get(`${b.prefix}/__admin/settings`)).body.successLiterals).toBe('contract');
    expect((await server.http.get('/__admin/settings')).body.successLiterals).toBe('contract');
  });

  it('is listed, and once deleted answers 404 sessionNotFound', async () => {
    const server = await createTestServer();
    const s = await createSession(server);
    const listed = (await server.http.get('/__admin/sessions')).body.sessions;
    expect(listed).toEqual([
      // supertest listens on a new port per request: the host part differs between calls.
      expect.objectContaining({
        id: s.id,
        baseUrl: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/sessions/${s.id}$`)),
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
      }),
    ]);
    expect((await server.http.delete(`/__admin/sessions/${s.id}`)).body).toEqual({ success: true });
    const gone = await server.http.get(`${s.prefix}/api/v2/documents`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ success: false, status: 404, code: 0 });
    expect(gone.body.message).toMatch(/Session not found/);
    expect((await server.http.delete(`/__admin/sessions/${s.id}`)).status).toBe(404);
    expect((await server.http.get('/__admin/sessions')).body.sessions).toEqual([]);
  });

  it('an unknown session id answers 404 sessionNotFound, on the vendor and the admin paths', async () => {
    const server = await createTestServer();
    const res = await server.http.get('/sessions/no-such-session/api/v2/documents');
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/Session not found/);
    const admin = await server.http.delete('/sessions/no-such-session/__admin/sessions/x');
    expect(admin.status).toBe(404);
    expect(admin.body.message).toMatch(/Session not found/);
  });

  it('idle longer than sessionIdleSeconds is removed by the reaper', async () => {
    const server = await createTestServer({ sessionIdleSeconds: 1 });
    const s = await createSession(server);
    expect((await server.http.get(`${s.prefix}/__admin/health`)).status).toBe(200);
    await vi.waitFor(
      async () => {
        const res = await server.http.get('/__admin/sessions');
        expect(res.body.sessions).toEqual([]);
      },
      { timeout: 5000, interval: 100 },
    );
    expect((await server.http.get(`${s.prefix}/api/v2/documents`)).status).toBe(404);
    await server.mock.close();
  });
});

describe('SessionRegistry', () => {
  const dataset: Dataset = { organizations: [], clients: [], templates: [], documents: [], apiKeys: [] };
  const settings = {
    tokenTtlSeconds: 3300,
    hashEncoding: 'hex',
    defaultPageNum: 1,
    maxResultsPerPage: 1000,
    unknownDetailKeys: 'reject',
    successLiterals: 'contract',
    errorSuccess: 'boolean',
    readShapedDetails: 'accept',
    latencyMs: 0,
    maxBatchItems: 1000,
    maxCreatedDocuments: 100_000,
    validateResponses: false,
  } as const;

  it('keeps a session that is used, and reaps it once idle for idleSeconds', async () => {
    let now = 1_000_000;
    const { Fake } = await import('../../src/domain/fake.js');
    const registry = new SessionRegistry({
      maxSessions: 5,
      idleSeconds: 10,
      now: () => now,
      createInstance: (id, data) =>
        new Instance(id, new Fake(data, settings), { entries: 10, bytes: 1 << 20, bodyBytes: 1 << 16 }),
    });
    const session = registry.create(dataset);
    now += 9_000;
    expect(registry.use(session.id)).toBe(session.instance);
    now += 9_000;
    expect(registry.reapIdle()).toEqual([]);
    now += 1_000;
    expect(registry.reapIdle()).toEqual([session.id]);
    expect(registry.use(session.id)).toBeUndefined();
    registry.stop();
  });

  it('never reaps a session created with expires: false, however long it is idle', async () => {
    const server = await createTestServer({ sessionIdleSeconds: 1 });
    const kept = await server.http.post('/__admin/sessions').send({ expires: false });
    const other = await server.http.post('/__admin/sessions').send({});
    expect(kept.status).toBe(201);
    const registry = server.mock.sessions;
    // Pretend both were last used a day ago.
    for (const s of registry.list()) s.lastUsedAt -= 86_400_000;
    expect(registry.reapIdle()).toEqual([other.body.id]);
    const listed = (await server.http.get('/__admin/sessions')).body.sessions;
    expect(listed).toEqual([expect.objectContaining({ id: kept.body.id, expires: false })]);
    expect((await server.http.get(`/sessions/${kept.body.id}/__admin/health`)).status).toBe(200);
  });
});
