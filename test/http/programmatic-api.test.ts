import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { FixtureError } from '../../src/domain/fixtures/fixture-error.js';
import { ApiError, createMockServer } from '../../src/index.js';
import { createTestServer, issueToken, readSmallSet, SMALL_SET } from '../support/test-server.js';

/** createMockServer's harness methods: the admin API's powers without HTTP. */

const RENAME = { name: { name: 'Name', description: '', value: { type: 'string', text: 'Renamed' } } };

describe('MockServer', () => {
  it.each([
    ['an unknown key', { status: 500, retries: 3 }, 'body/retries'],
    ['a status out of range', { status: 99 }, 'body/status'],
    ['a path with * in the middle', { path: '/api/*/documents', status: 500 }, 'body/path'],
    ['an odd method', { method: 'GE T', status: 500 }, 'body/method'],
    ['body without status', { body: { x: 1 } }, 'body/body'],
    ['nothing to do', {}, 'body'],
    ['an array', [500], 'body'],
  ])('addFault() rejects %s as POST /__admin/faults does, adding nothing', async (_name, fault, location) => {
    const { mock, http } = await createTestServer();
    const viaHttp = await http
      .post('/__admin/faults')
      .set('content-type', 'application/json')
      .send(JSON.stringify(fault));
    expect(viaHttp.status).toBe(400);
    let thrown: unknown;
    try {
      mock.addFault(fault as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const apiError = thrown as ApiError;
    expect(apiError.status).toBe(400);
    expect(apiError.message).toBe(viaHttp.body.message);
    expect(apiError.errors).toEqual(viaHttp.body.errors);
    expect(apiError.errors?.map((e) => e.location)).toContain(location);
    expect(mock.faults()).toEqual([]);
  });

  it('reset() restores state, journal, faults and clock, and keeps the tokens clients hold', async () => {
    const { mock, http, token } = await createTestServer();
    const old = await token();
    await http.patch('/api/v2/documents/101101').set('x-access-token', old).send(RENAME).expect(200);
    mock.addFault({ path: '/api/v2/documents', status: 500 });
    mock.advanceClock(120);
    mock.reset();
    expect(await mock.requests()).toEqual([]);
    expect(mock.faults()).toEqual([]);
    expect(mock.root.fake.clock.offsetSeconds()).toBe(0);
    expect(mock.state().documents[0]?.details.name).toMatchObject({ value: { text: 'Dundee Office' } });
    expect((await http.get('/api/v2/documents').set('x-access-token', old)).status).toBe(200);
    mock.revokeTokens();
    expect((await http.get('/api/v2/documents').set('x-access-token', old)).status).toBe(401);
  });

  it('load() takes an object or a path; a bad set throws FixtureError naming every problem and keeps the state', async () => {
    const { mock } = await createTestServer();
    const set = readSmallSet();
    set.documents = set.documents?.slice(0, 1);
    await mock.load(set);
    expect(mock.state().documents).toHaveLength(1);
    await mock.load(SMALL_SET);
    expect(mock.state().documents).toHaveLength(5);

    const bad = readSmallSet() as Record<string, unknown>;
    bad.clients = 5;
    bad.organizations = [{ id: 'x', name: 'X' }];
    const failure = await mock.load(bad).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(FixtureError);
    expect((failure as FixtureError).problems.map((p) => `${p.file}${p.path}`)).toEqual(
      expect.arrayContaining(['fixtures/clients', 'fixtures/organizations/0/id']),
    );
    expect(mock.state().documents).toHaveLength(5);
  });

  it('requests() and violations() read the journal', async () => {
    const { mock, http, token } = await createTestServer();
    const t = await token();
    await http.get('/api/v2/documents?resultsPerPage=0').set('x-access-token', t);
    const entries = await mock.requests({ method: 'get' });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      path: '/api/v2/documents',
      status: 404,
      query: { resultsPerPage: '0' },
    });
    const violations = await mock.violations();
    expect(violations).toEqual([
      expect.objectContaining({
        status: 404,
        violations: [expect.objectContaining({ location: 'query.resultsPerPage' })],
      }),
    ]);
    mock.clearRequests();
    expect(await mock.violations()).toEqual([]);
  });

  it('advanceClock() expires tokens; revokeTokens() and settings() work like the admin calls', async () => {
    const { mock, http, token } = await createTestServer();
    const t = await token();
    mock.advanceClock(3300);
    expect((await http.get('/api/v2/documents').set('x-access-token', t)).status).toBe(401);
    const fresh = await token();
    expect(mock.revokeTokens()).toBe(1);
    expect((await http.get('/api/v2/documents').set('x-access-token', fresh)).status).toBe(401);
    expect(mock.settings({ successLiterals: 'boolean' }).successLiterals).toBe('boolean');
    expect(() => mock.settings({ latencyMs: -1 })).toThrow(ApiError);
    expect(mock.settings().latencyMs).toBe(0);
  });

  it('session() gives a path-prefix baseUrl when not listening, a full URL when listening', async () => {
    const mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent' });
    const http = supertest(mock.app);
    const set = readSmallSet();
    set.documents = set.documents?.slice(0, 2);
    const session = await mock.session(set);
    expect(session.baseUrl).toBe(`/sessions/${session.id}`);
    const t = await issueToken(http, session.baseUrl);
    const list = await http.get(`${session.baseUrl}/api/v2/documents`).set('x-access-token', t);
    expect(list.body.results).toHaveLength(2);
    expect(await session.requests()).toHaveLength(2);
    expect(await mock.requests()).toEqual([]);
    session.reset();
    expect(await session.requests()).toEqual([]);

    const url = await mock.listen(0, '127.0.0.1');
    try {
      const listening = await mock.session();
      expect(listening.baseUrl).toBe(`${url}/sessions/${listening.id}`);
      expect((await fetch(`${listening.baseUrl}/__admin/health`)).status).toBe(200);
      listening.delete();
      expect((await fetch(`${listening.baseUrl}/__admin/health`)).status).toBe(404);
    } finally {
      await mock.close();
    }
  });

  it('session() past maxSessions throws tooManySessions', async () => {
    const mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', maxSessions: 1 });
    await mock.session();
    await expect(mock.session()).rejects.toMatchObject({ kind: 'tooManySessions', status: 429 });
    await mock.close();
  });

  it('close() stops the session reaper', async () => {
    const mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', sessionIdleSeconds: 1 });
    const session = await mock.session();
    await mock.close();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    // With the reaper stopped the idle session was not removed.
    expect(mock.sessions.list().map((s) => s.id)).toEqual([session.id]);
  });
});
