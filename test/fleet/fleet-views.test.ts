import type { ChildProcess } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '../../src/client/admin-client.js';
import { createMockServer } from '../../src/index.js';
import { fakeProcesses } from '../support/fake-processes.js';
import { startReplica } from '../support/fleet-kit.js';
import { callJson as call, freePort } from '../support/json-call.js';
import { accessToken } from '../support/request-token.js';
import { killChild, runCli } from '../support/run-cli.js';
import { ACME_KEY, SMALL_SET } from '../support/test-server.js';

/**
 * Three real fake processes on loopback as a fleet: a run's report (and its clearing) asked at any
 * replica combines every replica's share of the run, fails closed naming a replica that does not
 * answer (or says what is missing with `?partial=1`); a drained replica refuses to create sessions
 * while it serves its own.
 */

const SECRET = 'fleet-secret-for-the-view-tests-0123';
const RUN = 'nightly-42';
const { children } = fakeProcesses('fake-fleet-views-', 'file');

interface RunReportBody {
  instance: string;
  run: string;
  sessions: Array<{ id: string; live: boolean; requests: number }>;
  requests: { total: number; held: number };
  summary: { violatingRequests: number };
  violations: Array<{ session: string }>;
  operations: Array<{ operationId: string; count: number }>;
  partial?: boolean;
  missing?: number[];
}

describe('views across a fleet of three replicas', () => {
  let urls: string[] = [];
  let replicas: ChildProcess[] = [];
  /** The run's sessions, two created on each replica (index / 2 = its owner). */
  const ids: string[] = [];
  /** How many document lists the run's sessions made. */
  let lists = 0;

  beforeAll(async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    urls = ports.map((port) => `http://127.0.0.1:${port}`);
    const start = async (ordinal: number) => {
      const child = await startReplica(ordinal, ports, SECRET, ['--fixtures', SMALL_SET]);
      children.push(child);
      return child;
    };
    replicas = await Promise.all([0, 1, 2].map(start));
    // Two sessions of the run on each replica, each with its own requests: a list with a token,
    // and, on every other session, a request that breaks the contract (a violation).
    for (const url of urls) {
      for (let n = 0; n < 2; n++) {
        const created = await call('POST', `${url}/__admin/sessions`, { run: RUN });
        expect(created.status).toBe(201);
        const id = created.body.id as string;
        ids.push(id);
        const base = `${url}/sessions/${id}`;
        const token = await accessToken(base, ACME_KEY);
        for (let i = 0; i <= ids.length % 3; i++) {
          const listed = await call('GET', `${base}/api/v2/documents?pageNum=1`, undefined, {
            'x-access-token': token,
          });
          expect(listed.status).toBe(200);
          lists++;
        }
        if (n === 1)
          await call('GET', `${base}/api/v2/documents?pageNum=zero`, undefined, { 'x-access-token': token });
      }
    }
  }, 90_000);

  /** The sum of the sessions' own reports (each asked at its own URL). */
  async function ownTotals(sessionIds: string[]) {
    let total = 0;
    let violating = 0;
    for (const id of sessionIds) {
      const owner = Number(/^f(\d+)-/.exec(id)?.[1]);
      const own = await call('GET', `${urls[owner]}/sessions/${id}/__admin/report`);
      expect(own.status).toBe(200);
      total += (own.body.requests as { total: number }).total;
      violating += (own.body.summary as { violatingRequests: number }).violatingRequests;
    }
    return { total, violating };
  }

  it("answers a run's report from any replica as the union of every replica's sessions", async () => {
    const expected = await ownTotals(ids);
    expect(expected.total).toBeGreaterThan(ids.length);
    expect(expected.violating).toBe(3);
    for (const url of urls) {
      const report = await call('GET', `${url}/__admin/report?run=${RUN}`);
      expect(report.status).toBe(200);
      const body = report.body as unknown as RunReportBody;
      expect(body.run).toBe(RUN);
      expect(body.sessions.map((s) => s.id).sort()).toEqual([...ids].sort());
      expect(body.requests.total).toBe(expected.total);
      expect(body.summary.violatingRequests).toBe(expected.violating);
      // Each finding names its session; coverage is the union (the list operation in every session).
      expect(new Set(body.violations.map((v) => v.session))).toEqual(new Set([ids[1], ids[3], ids[5]]));
      expect(Math.max(...body.operations.map((o) => o.count))).toBeGreaterThanOrEqual(lists);
      expect(body.partial).toBeUndefined();
    }
    // Every format is rendered once from the whole: one JUnit document, one CTRF summary.
    const junit = await call('GET', `${urls[1]}/__admin/report?run=${RUN}&format=junit`);
    expect(junit.status).toBe(200);
    expect(junit.headers.get('content-type')).toContain('xml');
    expect(junit.text.match(/<testsuites/g)?.length).toBe(1);
    const ctrf = await call('GET', `${urls[2]}/__admin/report?run=${RUN}&format=ctrf`);
    expect(ctrf.status).toBe(200);
    expect((ctrf.body.results as { tool: unknown }).tool).toBeDefined();
    const markdown = await call('GET', `${urls[0]}/__admin/report?run=${RUN}&format=markdown`);
    expect(markdown.status).toBe(200);
    expect(markdown.headers.get('content-type')).toContain('text/markdown');
    // The report command works through it unchanged, its gate applied to the whole run.
    const cli = await runCli([
      'report',
      '--url',
      urls[2] as string,
      '--run',
      RUN,
      '--format',
      'json',
      '--fail-on',
      'none',
    ]);
    expect(cli.stderr).toContain(`run ${RUN}: 3 violating requests`);
    expect(cli.code).toBe(0);
    expect((JSON.parse(cli.stdout) as RunReportBody).requests.total).toBe(expected.total);
    const gated = await runCli([
      'report',
      '--url',
      urls[0] as string,
      '--run',
      RUN,
      '--format',
      'json',
      '--fail-on',
      'violations',
    ]);
    expect(gated.code).toBe(1);

    // The TypeScript client reads it as any client does; a format the spec does not know is refused.
    const viaClient = await createAdminClient(urls[1] as string).report({ run: RUN, partial: '1' });
    expect(viaClient.requests.total).toBe(expected.total);
    expect((await call('GET', `${urls[0]}/__admin/report?run=${RUN}&format=xml`)).status).toBe(400);

    // 404 only when no replica has the run; a run cleared at one replica is cleared on all.
    expect((await call('GET', `${urls[0]}/__admin/report?run=no-such-run`)).status).toBe(404);
    const scratch: string[] = [];
    for (const url of [urls[1], urls[2]])
      scratch.push((await call('POST', `${url}/__admin/sessions`, { run: 'scratch' })).body.id as string);
    expect((await call('GET', `${urls[0]}/__admin/report?run=scratch`)).body.sessions).toHaveLength(2);
    expect((await call('DELETE', `${urls[0]}/__admin/report?run=scratch`)).status).toBe(200);
    const cleared = (await call('GET', `${urls[0]}/__admin/report?run=scratch`))
      .body as unknown as RunReportBody;
    expect(cleared.requests.total).toBe(0);
    expect((await call('DELETE', `${urls[0]}/__admin/report?run=no-such-run`)).status).toBe(404);
    for (const id of scratch) await call('DELETE', `${urls[0]}/__admin/sessions/${id}`);
  }, 90_000);

  it('drains a replica: it creates no sessions, serves its own, and the others still create', async () => {
    const before = await call('GET', `${urls[1]}/__admin/health`);
    expect((before.body.fleet as { draining: boolean }).draining).toBe(false);
    const drained = await call('POST', `${urls[1]}/__admin/fleet/drain`);
    expect(drained.status).toBe(200);
    expect(drained.body).toEqual({ ordinal: 1, draining: true });

    const refused = await call('POST', `${urls[1]}/__admin/sessions`, { run: RUN });
    expect(refused.status).toBe(503);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toContain('replica 1');
    expect(refused.headers.get('retry-after')).toBe('1');
    // Its own sessions still answer, directly and through the others; it still forwards.
    const own = ids[2] as string;
    expect((await call('GET', `${urls[1]}/sessions/${own}/__admin/health`)).status).toBe(200);
    expect((await call('GET', `${urls[0]}/sessions/${own}/__admin/health`)).status).toBe(200);
    expect((await call('GET', `${urls[1]}/sessions/${ids[0]}/__admin/health`)).status).toBe(200);
    // The other replicas create as ever.
    const elsewhere = await call('POST', `${urls[0]}/__admin/sessions`, {});
    expect(elsewhere.status).toBe(201);
    await call('DELETE', `${urls[1]}/__admin/sessions/${elsewhere.body.id as string}`);

    const health = await call('GET', `${urls[1]}/__admin/health`);
    expect((health.body.fleet as { draining: boolean }).draining).toBe(true);
    expect(
      ((await call('GET', `${urls[0]}/__admin/health`)).body.fleet as { draining: boolean }).draining,
    ).toBe(false);
    // A session's URL is not the replica's: the drain is asked at a replica's root.
    expect((await call('POST', `${urls[0]}/sessions/${ids[0]}/__admin/fleet/drain`)).status).toBe(403);
  }, 60_000);

  it("fails a run's report closed naming a dead replica, and says what is missing with ?partial=1", async () => {
    await killChild(replicas[2]);
    const closed = await call('GET', `${urls[0]}/__admin/report?run=${RUN}&format=junit`);
    expect(closed.status).toBe(503);
    expect(closed.headers.get('retry-after')).toBe('1');
    expect(closed.body.message).toContain('replica 2');
    const clear = await call('DELETE', `${urls[1]}/__admin/report?run=${RUN}`);
    expect(clear.status).toBe(503);
    expect(clear.body.message).toContain('replica 2');

    const live = ids.slice(0, 4);
    const expected = await ownTotals(live);
    const partial = await call('GET', `${urls[1]}/__admin/report?run=${RUN}&partial=1`);
    expect(partial.status).toBe(200);
    const body = partial.body as unknown as RunReportBody;
    expect(body.partial).toBe(true);
    expect(body.missing).toEqual([2]);
    expect(body.sessions.map((s) => s.id).sort()).toEqual([...live].sort());
    expect(body.requests.total).toBe(expected.total);
    const text = await call('GET', `${urls[0]}/__admin/report?run=${RUN}&partial=1&format=markdown`);
    expect(text.status).toBe(200);
    expect(text.headers.get('x-fake-fleet-missing')).toBe('2');
  }, 60_000);
});

describe('a drained replica in process', () => {
  it('refuses a session from the programmatic API as from the admin API: 503 replicaDraining, Retry-After 1', async () => {
    const mock = await createMockServer({
      fixtures: SMALL_SET,
      fleetPeers: '0=http://127.0.0.1:1',
      fleetOrdinal: 0,
      fleetSecret: SECRET,
    });
    try {
      const before = await mock.session();
      expect(before.id.startsWith('f0-')).toBe(true);
      mock.drain();
      await expect(mock.session()).rejects.toMatchObject({ kind: 'replicaDraining', retryAfter: 1 });
      const url = await mock.listen(0, '127.0.0.1');
      const refused = await call('POST', `${url}/__admin/sessions`, {});
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe('1');
      // A session URL creates no session, drained or not.
      expect((await call('POST', `${url}/sessions/${before.id}/__admin/sessions`, {})).status).toBe(403);
    } finally {
      await mock.close();
    }
  });
});
