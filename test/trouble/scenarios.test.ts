/**
 * Named scenarios as a client's suite uses them: the catalogue, the four built-ins, scenarios of
 * the user's own as steps (checked, each error naming its step), cleared with what they installed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.mock.close());
beforeEach(() => {
  server.mock.reset();
  server.mock.clearReport();
});

const list = (token: string, page = 1) =>
  server.http.get(`/api/v2/documents?pageNum=${page}&resultsPerPage=1`).set('x-access-token', token);

describe('the scenario catalogue', () => {
  it('lists each built-in with what it does, the bug it catches and its parameters', async () => {
    const { scenarios, applied } = (await server.http.get('/__admin/scenarios').expect(200)).body;
    expect(scenarios.map((s: { name: string }) => s.name)).toEqual([
      'token-expires-mid-crawl',
      'throttled',
      'flaky',
      'changed-under-you',
    ]);
    for (const s of scenarios) {
      expect(s.description.length).toBeGreaterThan(20);
      expect(s.catches.length).toBeGreaterThan(20);
      expect(s.parameters.type).toBe('object');
    }
    expect(applied).toEqual([]);
  });
});

describe('built-in scenarios', () => {
  it('throttled: a client with no back-off gets 429 with Retry-After; after advancing the clock by it the same request succeeds', async () => {
    await server.http
      .post('/__admin/scenarios')
      .send({ name: 'throttled', limit: 2, windowSeconds: 30 })
      .expect(201);
    const token = await server.token(); // the key's first request of the window
    expect((await list(token)).status).toBe(200);
    const refused = await list(token);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    await server.http.post('/__admin/clock').send({ advanceSeconds: retryAfter }).expect(200);
    expect((await list(token)).status).toBe(200);
  });

  it('token-expires-mid-crawl afterRequests 3: the fourth list request fails as an expired token would; renewing succeeds', async () => {
    await server.http
      .post('/__admin/scenarios')
      .send({ name: 'token-expires-mid-crawl', afterRequests: 3 })
      .expect(201);
    const token = await server.token();
    for (const page of [1, 2, 3]) expect((await list(token, page)).status).toBe(200);
    const fourth = await list(token, 4);
    expect(fourth.status).toBe(401);
    expect(fourth.body).toMatchObject({
      success: false,
      code: 1006,
      message: 'Invalid token: token expired',
    });
    const renewed = await server.token();
    expect((await list(renewed, 4)).status).toBe(200);
    for (const page of [5, 6, 7]) expect((await list(renewed, page)).status).toBe(200);
    const [entry] = await server.mock.requests({ status: 401 });
    expect(entry?.behaviours).toContain('tokenExpired');
  });

  it('flaky: seeded 5xx on API requests, the same ones in two runs', async () => {
    const run = async () => {
      await server.http.post('/__admin/reset').expect(200);
      await server.http
        .post('/__admin/scenarios')
        .send({ name: 'flaky', probability: 0.5, seed: 11, status: 502 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await server.http.get('/api/v2/documents/9')).status);
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first).toContain(502);
    expect(first.some((s) => s !== 502)).toBe(true);
  });

  it("changed-under-you: another user's change lands between the client's read and its PATCH, which overwrites it", async () => {
    await server.http.post('/__admin/scenarios').send({ name: 'changed-under-you' }).expect(201);
    const token = await server.token();
    const rows = (await list(token)).body.results;
    const id = rows[0].id;
    const read = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token).expect(200);
    // Between the read and the PATCH another user changes it: the fake's state shows their edit.
    const changedBefore = JSON.stringify(read.body.details);
    expect(changedBefore).not.toContain('changed by another user');
    const patch = await server.http
      .patch(`/api/v2/documents/${id}`)
      .set('x-access-token', token)
      .send(read.body.details);
    expect(patch.status).toBe(200);
    const all = (await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token)).body
      .results;
    const row = all.find((r: { id: number }) => r.id === id);
    expect(row.label).toMatch(/\(changed by another user\)$/);
    // The PATCH sent the details as read: the other user's detail change is lost (last write wins).
    const after = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token).expect(200);
    expect(JSON.stringify(after.body.details)).not.toContain('changed by another user');
    // Their detail change is there until a PATCH overwrites it: a refused PATCH leaves it to be read.
    const second = (await list(token, 2)).body.results[0].id;
    await server.http.get(`/api/v2/documents/${second}`).set('x-access-token', token).expect(200);
    await server.http
      .patch(`/api/v2/documents/${second}`)
      .set('x-access-token', token)
      .send({ no_such_field: 'x' })
      .expect(400);
    const theirs = await server.http.get(`/api/v2/documents/${second}`).set('x-access-token', token);
    expect(JSON.stringify(theirs.body.details)).toContain('(changed by another user)');
    const [entry] = await server.mock.requests({ method: 'PATCH' });
    expect(entry?.behaviours).toContain('documentChangedUnderYou');
  });

  it('refuses an unknown name or a bad parameter, naming it; clearing removes what they installed', async () => {
    const unknown = await server.http.post('/__admin/scenarios').send({ name: 'slow' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('throttled');
    const bad = await server.http.post('/__admin/scenarios').send({ name: 'throttled', limit: 0, burst: 3 });
    expect(bad.status).toBe(400);
    const locations = bad.body.errors.map((e: { location: string }) => e.location);
    expect(locations).toEqual(expect.arrayContaining(['body/limit', 'body/burst']));
    await server.mock.applyScenario({ name: 'throttled' });
    await server.mock.applyScenario({ name: 'flaky' });
    expect(await server.mock.rateLimits()).toHaveLength(1);
    expect(await server.mock.faults()).toHaveLength(1);
    expect((await server.mock.scenarios()).applied.map((a) => a.name)).toEqual(['throttled', 'flaky']);
    await server.http.delete('/__admin/scenarios').expect(200);
    expect(await server.mock.rateLimits()).toEqual([]);
    expect(await server.mock.faults()).toEqual([]);
    expect((await server.mock.scenarios()).applied).toEqual([]);
  });
});

describe("scenarios of the user's own", () => {
  it('run their steps when their when is met: a fault after two requests, a clock move on a request', async () => {
    const token = await server.token();
    await server.http
      .post('/__admin/scenarios')
      .send({
        name: 'down-after-two',
        steps: [
          {
            kind: 'fault',
            fault: { path: '/api/v2/documents', status: 503, headers: { 'Retry-After': '2' }, times: 1 },
            when: { afterRequests: 2 },
          },
          {
            kind: 'clock',
            advanceSeconds: 4000,
            when: { onRequest: { method: 'GET', path: '/api/v2/documents/clients' } },
          },
        ],
      })
      .expect(201);
    expect((await list(token)).status).toBe(200);
    expect((await list(token)).status).toBe(200);
    const third = await list(token);
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('2');
    expect((await list(token)).status).toBe(200);
    // The clock moves past the token's lifetime on the clients call itself.
    const clients = await server.http.get('/api/v2/documents/clients').set('x-access-token', token);
    expect(clients.status).toBe(401);
    const { applied } = await server.mock.scenarios();
    expect(applied[0]).toMatchObject({ name: 'down-after-two', steps: 2, pendingSteps: 0 });
  });

  it('change state: a patchDocument step edits a document as another user would', async () => {
    const token = await server.token();
    const id = (await list(token)).body.results[0].id;
    await server.mock.applyScenario({
      name: 'renamed',
      steps: [{ kind: 'patchDocument', documentId: id, label: 'Renamed elsewhere' }],
    });
    const rows = (await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token)).body
      .results;
    expect(rows.find((r: { id: number }) => r.id === id)).toMatchObject({ label: 'Renamed elsewhere' });
  });

  it('are checked whole before anything applies, each error naming its step', async () => {
    const res = await server.http.post('/__admin/scenarios').send({
      name: 'broken',
      steps: [
        { kind: 'rateLimit', rateLimit: { per: 'key', limit: 1, windowSeconds: 5 } },
        { kind: 'fault', fault: { status: 99 } },
        { kind: 'fault', fault: { status: 503 }, when: { afterRequest: 2 } },
        { kind: 'teleport' },
        { kind: 'clock' },
        { kind: 'patchDocument', documentId: 0, details: { a: 1 } },
      ],
    });
    expect(res.status).toBe(400);
    const locations = res.body.errors.map((e: { location: string }) => e.location);
    expect(locations).toEqual(
      expect.arrayContaining([
        'body/steps/1/fault/status',
        'body/steps/2/when/afterRequest',
        'body/steps/3/kind',
        'body/steps/4',
        'body/steps/5/documentId',
        'body/steps/5/details/a',
      ]),
    );
    expect(await server.mock.rateLimits()).toEqual([]);
    expect((await server.mock.scenarios()).applied).toEqual([]);
  });

  it('apply to one session only, and a reset of it ends them', async () => {
    const session = (await server.http.post('/__admin/sessions').send({})).body;
    const prefix = new URL(session.baseUrl).pathname;
    await server.http.post(`${prefix}/__admin/scenarios`).send({ name: 'flaky', probability: 1 }).expect(201);
    expect((await server.http.get(`${prefix}/api/v2/documents/9`)).status).toBe(503);
    expect((await server.http.get('/api/v2/documents/9')).status).toBe(401);
    await server.http.post(`${prefix}/__admin/reset`).expect(200);
    expect((await server.http.get(`${prefix}/__admin/scenarios`)).body.applied).toEqual([]);
    expect((await server.http.get(`${prefix}/api/v2/documents/9`)).status).toBe(401);
  });
});
