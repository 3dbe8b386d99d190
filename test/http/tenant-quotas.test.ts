import { afterEach, describe, expect, it } from 'vitest';
import { reportCommand } from '../support/in-process-command.js';
import { writeTenantsFile } from '../support/tenants-file.js';
import { createTestServer, issueToken, readSmallSet, type TestServer } from '../support/test-server.js';

/**
 * Tenants' quotas (`maxSessions`, `memoryBytes` in the tenants file): a tenant at its cap gets
 * 429 naming its quota, its sessions together hold at most its bytes of the memory budget
 * (writes refused, journals trimmed, as the budget's kinds are), and another tenant, with the
 * same traffic, is unaffected.
 */

const OPERATOR = 'operator-token-quotas';
const TOKEN_A = 'quota-team-a-token';
const TOKEN_B = 'quota-team-b-token';

let server: TestServer | undefined;

afterEach(async () => {
  await server?.mock.close();
  server = undefined;
});

async function start(tenants: object[], options: object = {}): Promise<TestServer> {
  server = await createTestServer({ adminToken: OPERATOR, tenants: writeTenantsFile(tenants), ...options });
  return server;
}

const bearer = (token: string) => `Bearer ${token}`;

async function createSession(s: TestServer, token: string, body: object = {}) {
  return s.http.post('/__admin/sessions').set('authorization', bearer(token)).send(body);
}

describe('maxSessions of a tenant', () => {
  it('answers 429 naming the tenant and its maxSessions at the cap, creates nothing; the other tenant and the operator go on; a deleted session makes room', async () => {
    const s = await start([
      { name: 'team-a', token: TOKEN_A, maxSessions: 2 },
      { name: 'team-b', token: TOKEN_B, maxSessions: 3 },
    ]);
    const first = await createSession(s, TOKEN_A);
    expect(first.status).toBe(201);
    expect((await createSession(s, TOKEN_A)).status).toBe(201);
    const refused = await createSession(s, TOKEN_A);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, status: 429 });
    expect(refused.body.message).toBe(
      'too many sessions: tenant "team-a" holds 2, its maxSessions quota in the tenants file (delete one of its sessions, or raise its maxSessions)',
    );
    expect(s.mock.sessions.countOf('team-a')).toBe(2);
    for (let i = 0; i < 3; i++) expect((await createSession(s, TOKEN_B)).status).toBe(201);
    expect((await createSession(s, OPERATOR)).status).toBe(201);
    await s.http
      .delete(`/__admin/sessions/${first.body.id}`)
      .set('authorization', bearer(TOKEN_A))
      .expect(200);
    expect((await createSession(s, TOKEN_A)).status).toBe(201);
    // The first server of a process compiles the spec's validators: slow on a busy machine.
  }, 60_000);
});

describe('memoryBytes of a tenant', () => {
  const bigDocument = (i: number) => ({
    templateUid: 'tpl-5001',
    title: `Big ${i}`,
    description: 'x'.repeat(200_000),
  });

  /** Creates 200 KB documents in a session until one is refused; answers how many were stored and the refusal. */
  async function fill(s: TestServer, prefix: string, most: number) {
    const token = await issueToken(s.http, prefix);
    let created = 0;
    for (let i = 0; i < most; i++) {
      const res = await s.http
        .post(`${prefix}/api/v2/documents`)
        .set('x-access-token', token)
        .send(bigDocument(i));
      if (res.status !== 200) return { created, refused: res };
      created++;
    }
    return { created, refused: undefined };
  }

  it("refuses a tenant's document write past its quota with 429 naming the tenant and memoryBytes; the other tenant stores as much again, and a reset gives the bytes back", async () => {
    const s = await start([
      { name: 'team-a', token: TOKEN_A, memoryBytes: 700_000 },
      { name: 'team-b', token: TOKEN_B, memoryBytes: 2_000_000 },
    ]);
    const a = `/sessions/${(await createSession(s, TOKEN_A)).body.id}`;
    const b = `/sessions/${(await createSession(s, TOKEN_B)).body.id}`;
    const ofA = await fill(s, a, 10);
    expect(ofA.created).toBeGreaterThanOrEqual(1);
    expect(ofA.created).toBeLessThan(4);
    expect(ofA.refused?.status).toBe(429);
    expect(ofA.refused?.body.message).toMatch(
      /^memory budget reached: tenant quota: stored documents of tenant "team-a"’s sessions would hold \d+ bytes, over their share of its memoryBytes \(350000 of 700000 bytes\) in the tenants file; /,
    );
    // Each of its sessions' health says what the tenant holds of its quota (open, as health is).
    const health = (await s.http.get(`${a}/__admin/health`).expect(200)).body;
    expect(health.quota).toMatchObject({ tenant: 'team-a', limit: 700_000 });
    expect(health.quota.used).toBeGreaterThan(ofA.created * 200_000);
    expect(health.quota.used).toBeLessThanOrEqual(700_000);
    // The other tenant, with the same writes, is not held to team-a's quota.
    const ofB = await fill(s, b, ofA.created + 2);
    expect(ofB.refused).toBeUndefined();
    expect(ofB.created).toBe(ofA.created + 2);
    expect((await s.http.get(`${b}/__admin/health`)).body.quota).toMatchObject({
      tenant: 'team-b',
      limit: 2_000_000,
    });
    const operators = (await createSession(s, OPERATOR)).body.id as string;
    expect((await s.http.get(`/sessions/${operators}/__admin/health`)).body.quota).toBeUndefined();
    // team-a's own quota frees when it resets its session.
    await s.http.post(`${a}/__admin/reset`).set('authorization', bearer(TOKEN_A)).expect(200);
    expect((await fill(s, a, 1)).created).toBe(1);
  });

  it("drops the oldest entries of a tenant's journals past its quota, while the other tenant's journal with the same traffic keeps all", async () => {
    const s = await start([
      { name: 'team-a', token: TOKEN_A, memoryBytes: 200_000 },
      { name: 'team-b', token: TOKEN_B, memoryBytes: 10_000_000 },
    ]);
    const body = JSON.stringify({ filler: 'z'.repeat(30_000) });
    const journalOf = async (token: string) => {
      const prefix = `/sessions/${(await createSession(s, token)).body.id}`;
      for (let i = 0; i < 20; i++) {
        await s.http
          .post(`${prefix}/api/v2/nowhere-${i}`)
          .set('content-type', 'application/json')
          .send(body)
          .expect(404);
      }
      const res = await s.http
        .get(`${prefix}/__admin/requests`)
        .set('authorization', bearer(token))
        .expect(200);
      return res.body as { count: number; requests: Array<{ path: string }> };
    };
    const ofA = await journalOf(TOKEN_A);
    // 20 entries of 30 KB are 600 KB; team-a's quota holds 200 KB: the oldest went, the newest stay.
    expect(ofA.count).toBeLessThan(8);
    expect(ofA.count).toBeGreaterThan(0);
    expect(ofA.requests.map((r) => r.path)).toContain('/api/v2/nowhere-19');
    expect(ofA.requests.map((r) => r.path)).not.toContain('/api/v2/nowhere-0');
    const ofB = await journalOf(TOKEN_B);
    expect(ofB.count).toBe(20);
  });

  it("refuses a tenant's session whose fixture set does not fit its quota, naming it; the other tenant creates the same session", async () => {
    const s = await start([
      { name: 'team-a', token: TOKEN_A, memoryBytes: 100_000 },
      { name: 'team-b', token: TOKEN_B },
    ]);
    const set = readSmallSet();
    const first = set.documents?.[0] as Record<string, unknown>;
    const fixtures = {
      ...set,
      documents: Array.from({ length: 10 }, (_, i) => ({
        ...first,
        id: 600_000 + i,
        description: 'f'.repeat(20_000),
      })),
    };
    const refused = await createSession(s, TOKEN_A, { fixtures });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(
      /fixture sets loaded through the admin API of tenant "team-a"’s sessions would hold \d+ bytes, over their share of its memoryBytes \(50000 of 100000 bytes\)/,
    );
    expect(s.mock.sessions.countOf('team-a')).toBe(0);
    expect((await createSession(s, TOKEN_B, { fixtures })).status).toBe(201);
  });
});

describe('the 404 of an unknown run', () => {
  it("lists a tenant only its own runs' labels, the operator every tenant's too", async () => {
    const s = await start([
      { name: 'team-a', token: TOKEN_A },
      { name: 'team-b', token: TOKEN_B },
    ]);
    expect((await createSession(s, TOKEN_A, { run: 'a-run-1' })).status).toBe(201);
    expect((await createSession(s, TOKEN_B, { run: 'b-secret-run' })).status).toBe(201);
    expect((await createSession(s, OPERATOR, { run: 'operator-run' })).status).toBe(201);
    const unknown = (token: string) =>
      s.http.get('/__admin/report?run=no-such-run').set('authorization', bearer(token)).expect(404);
    const ofA = (await unknown(TOKEN_A)).body.message as string;
    expect(ofA).toContain('"a-run-1"');
    expect(ofA).not.toContain('b-secret-run');
    expect(ofA).not.toContain('operator-run');
    const ofB = (await unknown(TOKEN_B)).body.message as string;
    expect(ofB).toContain('"b-secret-run"');
    expect(ofB).not.toContain('a-run-1');
    const ofOperator = (await unknown(OPERATOR)).body.message as string;
    for (const label of ['operator-run', 'a-run-1', 'b-secret-run']) expect(ofOperator).toContain(label);
    const cleared = await s.http
      .delete('/__admin/report?run=no-such-run')
      .set('authorization', bearer(TOKEN_A))
      .expect(404);
    expect(cleared.body.message).not.toContain('b-secret-run');
  }, 60_000);
});

describe('memoryBytes of a tenant: tokens and findings', () => {
  it("refuses a tenant's token past its tokens share naming its quota, while the other tenant goes on issuing", async () => {
    // Tokens hold 10 % of a tenant's memoryBytes: 16,000 bytes are 100 tokens of 160 bytes.
    const s = await start([
      { name: 'team-a', token: TOKEN_A, memoryBytes: 160_000 },
      { name: 'team-b', token: TOKEN_B, memoryBytes: 10_000_000 },
    ]);
    const a = `/sessions/${(await createSession(s, TOKEN_A)).body.id}`;
    const b = `/sessions/${(await createSession(s, TOKEN_B)).body.id}`;
    let issued = 0;
    let refusal: Error | undefined;
    for (; issued < 200; issued++) {
      try {
        await issueToken(s.http, a);
      } catch (error) {
        refusal = error as Error;
        break;
      }
    }
    // Each issue holds an access and a refresh token: 16,000 / (2 × 160) = 50.
    expect(issued).toBe(50);
    expect(refusal?.message).toContain('tenant quota');
    expect(refusal?.message).toContain('team-a');
    expect(refusal?.message).toContain('429');
    expect(refusal?.message).toContain('memoryBytes');
    for (let i = 0; i < 200; i++) await issueToken(s.http, b);
  }, 60_000);

  it("drops the oldest listed findings of a tenant past its findings share, counting every one, while the other tenant's report lists all", async () => {
    const s = await start([
      { name: 'team-a', token: TOKEN_A, memoryBytes: 100_000 },
      { name: 'team-b', token: TOKEN_B, memoryBytes: 20_000_000 },
    ]);
    const reportOf = async (token: string) => {
      const prefix = `/sessions/${(await createSession(s, token)).body.id}`;
      const access = await issueToken(s.http, prefix);
      for (let i = 0; i < 60; i++) {
        await s.http
          .post(`${prefix}/api/v2/documents`)
          .set('x-access-token', access)
          .send({ templateUid: 7, title: `t-${i}` });
      }
      const res = await s.http
        .get(`${prefix}/__admin/report`)
        .set('authorization', bearer(token))
        .expect(200);
      return res.body as {
        summary: { violatingRequests: number };
        findingsDropped: number;
        violations: unknown[];
      };
    };
    const ofA = await reportOf(TOKEN_A);
    const ofB = await reportOf(TOKEN_B);
    // Findings hold 10 % of team-a's 100,000 bytes: fewer than its 60 violating requests are listed,
    // every one is counted, and the report says how many listings it dropped.
    expect(ofA.summary.violatingRequests).toBe(60);
    expect(ofA.violations.length).toBeLessThan(60);
    expect(ofA.findingsDropped).toBe(60 - ofA.violations.length);
    expect(ofB.summary.violatingRequests).toBe(60);
    expect(ofB.violations).toHaveLength(60);
    expect(ofB.findingsDropped).toBe(0);
  }, 60_000);
});

describe('report --run of the CLI with tenants', () => {
  it("writes a tenant's own run with its token, the operator's with --tenant, and refuses another tenant's run", async () => {
    const s = await start([
      { name: 'team-a', token: TOKEN_A },
      { name: 'team-b', token: TOKEN_B },
    ]);
    const url = await s.mock.listen(0, '127.0.0.1');
    const prefix = `/sessions/${(await createSession(s, TOKEN_A, { run: 'nightly' })).body.id}`;
    await s.http.get(`${prefix}/api/v2/documents`).expect(401);
    const json = ['--url', url, '--run', 'nightly', '--format', 'json', '--fail-on', 'none'];
    const own = await reportCommand([...json, '--admin-token', TOKEN_A]);
    expect(own.stderr).not.toContain('error');
    expect(own.code).toBe(0);
    expect(JSON.parse(own.stdout).requests.total).toBe(1);
    const byOperator = await reportCommand([...json, '--admin-token', OPERATOR, '--tenant', 'team-a']);
    expect(byOperator.code).toBe(0);
    expect(JSON.parse(byOperator.stdout).requests.total).toBe(1);
    // The operator's own runs hold no "nightly"; team-b's neither, and team-b may not name team-a.
    expect((await reportCommand([...json, '--admin-token', OPERATOR])).code).toBe(2);
    expect((await reportCommand([...json, '--admin-token', TOKEN_B])).code).toBe(2);
    const foreign = await reportCommand([...json, '--admin-token', TOKEN_B, '--tenant', 'team-a']);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('own runs only');
    expect(foreign.stdout).toBe('');
    const usage = await reportCommand(['--url', url, '--tenant', 'team-a', '--admin-token', OPERATOR]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('give --run too');
  }, 60_000);
});
