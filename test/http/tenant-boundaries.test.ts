import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TAG, listOperations, type Operation, TENANCIES } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';
import { writeTenantsFile } from '../support/tenants-file.js';
import { createTestServer, readSmallSet, type TestServer } from '../support/test-server.js';

/**
 * Tenants' boundaries over HTTP, for every admin operation of the spec: the table is the spec's
 * admin operations, each with the `x-tenant` it declares, so a new admin operation fails here
 * (named) until it declares what a tenant may do with it and this file knows how to call it.
 * Both ways: team-a on team-b's session and team-b on team-a's; a tenant on the root and on an
 * operator's session; each refusal a 403 in the vendor's shape saying what a tenant may do, with
 * nothing changed (the target's whole admin view read by the operator before and after); each
 * allowed call answered; the operator's token everywhere.
 */

const OPERATOR = 'operator-token-0123456789';
const TOKEN_A = 'team-a-token-abcdef';
const TOKEN_B = 'team-b-token-uvwxyz';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const ADMIN_OPERATIONS: readonly Operation[] = listOperations(loadSpec().document).filter((op) =>
  op.tags.includes(ADMIN_TAG),
);

/** The ids a call on an instance needs in its path: made there before each call. */
interface Made {
  sessionId: string;
  requestId: number;
  expectationId: string;
  faultId: string;
  rateLimitId: string;
}

/** How to call each admin operation: its body and query (path parameters come from `Made`). */
const CALLS: Record<string, { body?: unknown; query?: Record<string, string> }> = {
  getHealth: {},
  drainReplica: {},
  resetState: {},
  loadFixtures: { body: readSmallSet() },
  getState: {},
  listRequests: {},
  clearRequests: {},
  getRequest: {},
  listViolations: {},
  listNotices: {},
  getReport: {},
  getHar: {},
  clearReport: {},
  listExpectedViolations: {},
  createExpectedViolation: {
    body: { method: 'patch', path: '/api/v2/documents/*', location: 'body/colour' },
  },
  clearExpectedViolations: {},
  deleteExpectedViolation: {},
  listFaults: {},
  createFault: { body: { status: 503 } },
  clearFaults: {},
  deleteFault: {},
  listRateLimits: {},
  createRateLimit: { body: { per: 'token', limit: 2, windowSeconds: 30 } },
  clearRateLimits: {},
  deleteRateLimit: {},
  listScenarios: {},
  applyScenario: { body: { name: 'throttled', limit: 2, windowSeconds: 30 } },
  clearScenarios: {},
  getClock: {},
  setClock: { body: { advanceSeconds: 600 } },
  revokeTokens: {},
  getSettings: {},
  updateSettings: { body: { tokenTtlSeconds: 60 } },
  listSessions: {},
  createSession: { body: {} },
  deleteSession: {},
};

function pathOf(op: Operation, made: Made): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: keyof Made) => encodeURIComponent(String(made[name])));
}

let server: TestServer;
/** Sessions of team-a, team-b and the operator that refused calls leave as they are (checked). */
let shared: { a: Prepared; b: Prepared; o: Prepared };

const bearer = (token: string) => `Bearer ${token}`;

/** Sends `op` at `prefix` (a session's, or '' for the root) with `token`. */
function send(op: Operation, prefix: string, made: Made, token: string) {
  const call = CALLS[op.operationId] ?? {};
  const req = server.http[op.method as 'get'](`${prefix}${pathOf(op, made)}`)
    .set('authorization', bearer(token))
    .query(call.query ?? {});
  return call.body === undefined ? req : req.send(call.body as object);
}

/** A session created by `token` at the root, with one of each thing the calls address by id. */
interface Prepared {
  prefix: string;
  made: Made;
}

async function prepared(token: string): Promise<Prepared> {
  const created = await server.http
    .post('/__admin/sessions')
    .set('authorization', bearer(token))
    .send({ run: 'shared-label' })
    .expect(201);
  const sessionId = created.body.id as string;
  const prefix = `/sessions/${sessionId}`;
  const admin = (method: 'post', path: string, body: object) =>
    server.http[method](`${prefix}${path}`).set('authorization', bearer(OPERATOR)).send(body).expect(201);
  await server.http.get(`${prefix}/api/v2/documents`).expect(401);
  const requests = await server.http.get(`${prefix}/__admin/requests`).set('authorization', bearer(OPERATOR));
  const made: Made = {
    sessionId,
    requestId: requests.body.requests[0].id,
    expectationId: (
      await admin('post', '/__admin/expected-violations', CALLS.createExpectedViolation?.body as object)
    ).body.id,
    faultId: (await admin('post', '/__admin/faults', { status: 502, path: '/nothing' })).body.id,
    rateLimitId: (
      await admin('post', '/__admin/rate-limits', { per: 'instance', limit: 1000, windowSeconds: 1 })
    ).body.id,
  };
  return { prefix, made };
}

/** Everything the operator sees of an instance through the admin API (reads change nothing). */
async function view(prefix: string): Promise<unknown> {
  const read = async (path: string) => {
    const res = await server.http.get(`${prefix}${path}`).set('authorization', bearer(OPERATOR));
    return [res.status, res.body];
  };
  const paths = [
    '/__admin/state',
    '/__admin/requests',
    '/__admin/violations',
    '/__admin/notices',
    '/__admin/expected-violations',
    '/__admin/faults',
    '/__admin/rate-limits',
    '/__admin/scenarios',
    '/__admin/settings',
  ];
  const [clock, sessions, report, health, ...rest] = await Promise.all(
    ['/__admin/clock', '/__admin/sessions', '/__admin/report', '/__admin/health', ...paths].map(read),
  );
  const bodyOf = <T>(read: unknown[] | undefined): T => (read ?? [])[1] as T;
  return {
    ...Object.fromEntries(paths.map((path, i) => [path, rest[i]])),
    clockOffset: bodyOf<{ offsetSeconds?: number }>(clock).offsetSeconds,
    sessions: bodyOf<{ sessions: Array<{ id: string }> }>(sessions)
      .sessions.map((s) => s.id)
      .sort(),
    report: bodyOf<{ summary?: unknown }>(report).summary,
    documents: bodyOf<{ documents?: number }>(health).documents,
  };
}

/** A 403 in the vendor's error shape that says what a tenant may do. */
function expectRefused(
  res: { status: number; body: Record<string, unknown> },
  op: Operation,
  who: string,
): void {
  expect(res.status, `${who}: ${op.operationId} should be refused (403): ${JSON.stringify(res.body)}`).toBe(
    403,
  );
  expect(res.body).toMatchObject({ success: false, status: 403 });
  expect(res.body.message).toMatch(/^Forbidden: /);
  expect(res.body.message).toContain('a tenant may create sessions (POST /__admin/sessions)');
}

function expectAnswered(res: { status: number; body: unknown }, op: Operation, who: string): void {
  expect(
    res.status,
    `${who}: ${op.operationId} should be answered: ${JSON.stringify(res.body)}`,
  ).toBeLessThan(300);
}

beforeAll(async () => {
  const tenants = writeTenantsFile([
    { name: 'team-a', tokenSha256: sha256(TOKEN_A) },
    { name: 'team-b', token: TOKEN_B },
  ]);
  server = await createTestServer({ adminToken: OPERATOR, tenants, maxSessions: 1000 });
  shared = { a: await prepared(TOKEN_A), b: await prepared(TOKEN_B), o: await prepared(OPERATOR) };
});

afterAll(async () => {
  await server.mock.close();
});

describe('every admin operation of the spec declares what a tenant may do (x-tenant)', () => {
  it.each(ADMIN_OPERATIONS.map((op) => [op.operationId, op] as const))('%s', (id, op) => {
    expect(
      op.raw['x-tenant'],
      `${id}: declare x-tenant (one of ${TENANCIES.join(', ')}) in spec/openapi.yaml`,
    ).toBeDefined();
    expect(
      TENANCIES,
      `${id}: x-tenant ${String(op.raw['x-tenant'])} is not one of ${TENANCIES.join(', ')}`,
    ).toContain(op.raw['x-tenant']);
    expect(CALLS[id], `${id}: add how to call it to CALLS in this file`).toBeDefined();
    // Only an operation open without any token is open to tenants.
    const open = Array.isArray(op.raw.security) && op.raw.security.length === 0;
    expect(op.tenancy === 'open', `${id}: x-tenant open exactly when its security is []`).toBe(open);
  });
});

describe.each(ADMIN_OPERATIONS.map((op) => [op.operationId, op] as const))('%s over HTTP', (_id, op) => {
  it('a tenant on another tenant\u2019s session (both ways) and on an operator\u2019s session: refused, nothing changed; open calls answered', async () => {
    const { a, b, o } = shared;
    for (const [who, token, target] of [
      ['team-a on team-b\u2019s session', TOKEN_A, b],
      ['team-b on team-a\u2019s session', TOKEN_B, a],
      ['team-a on the operator\u2019s session', TOKEN_A, o],
    ] as const) {
      const before = await view(target.prefix);
      const res = await send(op, target.prefix, target.made, token);
      if (op.tenancy === 'open') expectAnswered(res, op, who);
      else expectRefused(res, op, who);
      expect(await view(target.prefix), `${who}: ${op.operationId} changed nothing`).toEqual(before);
    }
    // At the root with the other's session id (deleteSession names a session in its path).
    if (op.path.includes('{sessionId}')) {
      const before = await view(b.prefix);
      expectRefused(await send(op, '', b.made, TOKEN_A), op, 'team-a at the root on team-b\u2019s session');
      expect(await view(b.prefix)).toEqual(before);
    }
  });

  it('a tenant at the root: refused unless the operation is open or tenant-creatable, the root unchanged', async () => {
    const a = await prepared(TOKEN_A);
    const before = await view('');
    const made = { ...a.made, requestId: 1 };
    const res = await send(op, '', made, TOKEN_A);
    if (op.tenancy === 'open' || op.tenancy === 'tenant-creatable') {
      expectAnswered(res, op, 'team-a at the root');
    } else {
      expectRefused(res, op, 'team-a at the root');
      expect(await view(''), `team-a at the root: ${op.operationId} changed nothing`).toEqual(before);
    }
  });

  it('a tenant on its own session, and the operator on a tenant\u2019s session: answered', async () => {
    const a = await prepared(TOKEN_A);
    if (op.tenancy === 'operator') expectRefused(await send(op, a.prefix, a.made, TOKEN_A), op, 'team-a');
    else if (op.operationId !== 'createSession')
      expectAnswered(await send(op, a.prefix, a.made, TOKEN_A), op, 'team-a');
    const b = await prepared(TOKEN_B);
    // Outside a fleet a drain passes the boundary and is answered 409 notInFleet (docs/fleet.md).
    if (op.operationId === 'drainReplica')
      expect((await send(op, b.prefix, b.made, OPERATOR)).body.message).toContain('not a fleet replica');
    else if (op.operationId !== 'createSession')
      expectAnswered(await send(op, b.prefix, b.made, OPERATOR), op, 'operator');
  });
});

describe('the admin origin rules hold for tenants\u2019 tokens', () => {
  it('a page on another site, or a host the fake does not serve, gets 403 with a tenant\u2019s token too, and no session is made', async () => {
    const before = server.mock.sessions.countOf('team-a');
    const fromPage = await server.http
      .post('/__admin/sessions')
      .set('authorization', bearer(TOKEN_A))
      .set('origin', 'https://evil.example')
      .send({});
    expect(fromPage.status).toBe(403);
    expect(fromPage.body.errors).toEqual([
      { location: 'header.origin', message: 'is not an allowed origin' },
    ]);
    const rebound = await server.http
      .get(`${shared.a.prefix}/__admin/state`)
      .set('authorization', bearer(TOKEN_A))
      .set('host', 'rebound.example.com');
    expect(rebound.status).toBe(403);
    expect(rebound.body.errors?.[0]?.location).toBe('header.host');
    expect(server.mock.sessions.countOf('team-a')).toBe(before);
  });
});

describe('sessions and runs are per tenant', () => {
  it('a tenant lists only its own sessions (what the inspector\u2019s session list reads); the operator lists all, with their owners', async () => {
    const a = await prepared(TOKEN_A);
    const b = await prepared(TOKEN_B);
    const listed = async (token: string, prefix = '') =>
      (
        (await server.http.get(`${prefix}/__admin/sessions`).set('authorization', bearer(token)).expect(200))
          .body as {
          sessions: Array<{ id: string; owner?: string }>;
        }
      ).sessions;
    const ofA = await listed(TOKEN_A);
    expect(ofA.map((s) => s.id)).toContain(a.made.sessionId);
    expect(ofA.every((s) => s.owner === 'team-a')).toBe(true);
    expect(ofA.map((s) => s.id)).not.toContain(b.made.sessionId);
    expect((await listed(TOKEN_B)).every((s) => s.owner === 'team-b')).toBe(true);
    // From its own session's URL, the inspector there lists that session.
    expect((await listed(TOKEN_A, a.prefix)).map((s) => s.id)).toEqual([a.made.sessionId]);
    const all = await listed(OPERATOR);
    expect(all.find((s) => s.id === a.made.sessionId)?.owner).toBe('team-a');
    expect(all.find((s) => s.id === b.made.sessionId)?.owner).toBe('team-b');
  });

  it("team-a's run is not team-b's: the same label reports each tenant's own sessions; clearing one leaves the other", async () => {
    const fresh = await createTestServer({
      adminToken: OPERATOR,
      tenants: writeTenantsFile([
        { name: 'team-a', token: TOKEN_A },
        { name: 'team-b', token: TOKEN_B },
      ]),
    });
    try {
      const create = async (token: string) =>
        (
          await fresh.http
            .post('/__admin/sessions')
            .set('authorization', bearer(token))
            .send({ run: '42' })
            .expect(201)
        ).body.id as string;
      const a1 = await create(TOKEN_A);
      const a2 = await create(TOKEN_A);
      const b1 = await create(TOKEN_B);
      const report = async (token: string) =>
        fresh.http.get('/__admin/report').query({ run: '42' }).set('authorization', bearer(token));
      const sessionsOf = (res: { body: { sessions?: Array<{ id: string }> } }) =>
        (res.body.sessions ?? []).map((s) => s.id).sort();
      const ofA = await report(TOKEN_A);
      expect(ofA.status).toBe(200);
      expect(sessionsOf(ofA)).toEqual([a1, a2].sort());
      expect(sessionsOf(await report(TOKEN_B))).toEqual([b1]);
      // The operator's run 42 is neither: no operator session was labelled 42; the operator
      // names the tenant to read its run, a tenant may not name another.
      expect((await report(OPERATOR)).status).toBe(404);
      const asOperator = await fresh.http
        .get('/__admin/report')
        .query({ run: '42', tenant: 'team-a' })
        .set('authorization', bearer(OPERATOR));
      expect(sessionsOf(asOperator)).toEqual([a1, a2].sort());
      const prying = await fresh.http
        .get('/__admin/report')
        .query({ run: '42', tenant: 'team-a' })
        .set('authorization', bearer(TOKEN_B));
      expect(prying.status).toBe(403);
      expect(prying.body.message).toContain('tenant "team-b" reads and clears its own runs only');
      const alone = await fresh.http
        .get('/__admin/report')
        .query({ tenant: 'team-a' })
        .set('authorization', bearer(OPERATOR));
      expect(alone.status).toBe(400);
      expect(alone.body.errors).toEqual([{ location: 'query.tenant', message: 'needs run' }]);
      const unknown = await fresh.http
        .get('/__admin/report')
        .query({ run: '42', tenant: 'team-z' })
        .set('authorization', bearer(OPERATOR));
      expect(unknown.status).toBe(400);
      expect(unknown.body.message).toBe('no tenant named "team-z" (tenants: "team-a", "team-b")');
      await fresh.http
        .delete('/__admin/report')
        .query({ run: '42' })
        .set('authorization', bearer(TOKEN_B))
        .expect(200);
      expect(sessionsOf(await report(TOKEN_A))).toEqual([a1, a2].sort());
    } finally {
      await fresh.mock.close();
    }
  });
});
