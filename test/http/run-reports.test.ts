import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseJunit, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminError, createAdminClient } from '../../src/client/admin-client.js';
import type { Report } from '../../src/harness/verdicts/report.js';
import { KEPT_RECORDS_SHARE } from '../../src/harness/verdicts/run-reports.js';
import type { MockServer } from '../../src/index.js';
import { reportCommand } from '../support/in-process-command.js';
import { accessToken } from '../support/request-token.js';
import { runCli } from '../support/run-cli.js';
import { ACME_KEY, createTestServer, textEntry } from '../support/test-server.js';
import { schemaErrors } from '../support/xml-schema.js';

/**
 * A CI job runs its suite in several sessions (one per module, parallel workers), each labelled
 * with the job's run; after the suite, one report for the run: counts added up, each finding
 * naming its session, coverage the union of what the sessions exercised, one JUnit file, the gates
 * on the whole; the sessions may be deleted (or expire) before the report is asked for
 * (docs/reports.md).
 */

const JUNIT_XSD = fileURLToPath(new URL('../fixtures/junit/junit.xsd', import.meta.url));

let mock: MockServer;
let url: string;

beforeAll(async () => {
  mock = (await createTestServer()).mock;
  url = await mock.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await mock.close();
});

/** An access token at `base` (the root or a session's URL) for the small set's ACME key. */
const tokenAt = (base: string): Promise<string> => accessToken(base, ACME_KEY);

/** Module one: a token and a PATCH with a detail key the template lacks (a violation). */
async function moduleWithViolation(base: string): Promise<void> {
  const token = await tokenAt(base);
  const res = await fetch(`${base}/api/v2/documents/101101`, {
    method: 'PATCH',
    headers: { 'x-access-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ name: textEntry('Name', 'Dundee'), colour: textEntry('Colour', 'red') }),
  });
  expect(res.status).toBe(400);
}

/** Module two: a token and a listing without pageNum (a notice; a short last page). */
async function moduleWithListing(base: string): Promise<void> {
  const token = await tokenAt(base);
  const res = await fetch(`${base}/api/v2/documents?resultsPerPage=100`, {
    headers: { 'x-access-token': token },
  });
  expect(res.status).toBe(200);
}

const exercised = (report: Report): string[] =>
  report.behaviours
    .filter((b) => b.count > 0)
    .map((b) => b.id)
    .sort();

describe("a run's report", () => {
  it('adds up two deleted sessions of the run: the violation naming its session, the union of behaviours, exit 1 under --fail-on violations; another run is not in it', async () => {
    const root = createAdminClient(url);
    const one = await root.createSession({ run: 'ci-1234' });
    const two = await root.createSession({ run: 'ci-1234' });
    const other = await root.createSession({ run: 'ci-9999' });
    expect(
      (await root.sessions())
        .filter((s) => s.run === 'ci-1234')
        .map((s) => s.id)
        .sort(),
    ).toEqual([one.id, two.id].sort());
    await moduleWithViolation(one.baseUrl);
    await moduleWithListing(two.baseUrl);
    await moduleWithViolation(other.baseUrl);
    await moduleWithViolation(other.baseUrl);
    const own = [exercised(await one.admin.report()), exercised(await two.admin.report())];
    await root.deleteSession(one.id);
    await root.deleteSession(two.id);

    const report = await root.report({ run: 'ci-1234' });
    expect(report.instance).toBe('run ci-1234');
    expect(report.summary).toMatchObject({
      violatingRequests: 1,
      requestsWithNotices: 1,
      unmetExpectations: 0,
    });
    expect(report.violations).toHaveLength(1);
    expect(report.violations[0]).toMatchObject({
      session: one.id,
      method: 'PATCH',
      path: '/api/v2/documents/101101',
    });
    expect(report.notices.map((n) => n.session)).toEqual([two.id]);
    expect(exercised(report)).toEqual([...new Set(own.flat())].sort());
    expect(own[0]).not.toEqual(own[1]);
    expect(report.requests.total).toBe(4);
    expect(report.operations.filter((o) => o.count > 0)).toEqual([
      { operationId: 'createClientToken', count: 2 },
      { operationId: 'listDocuments', count: 1 },
      { operationId: 'patchDocument', count: 1 },
    ]);
    expect((report as Report & { sessions: unknown[] }).sessions).toEqual([
      { id: one.id, live: false, requests: 2 },
      { id: two.id, live: false, requests: 2 },
    ]);

    const out = join(mkdtempSync(join(tmpdir(), 'fake-run-')), 'junit.xml');
    const cli = await runCli([
      'report',
      '--url',
      url,
      '--run',
      'ci-1234',
      '--format',
      'junit',
      '--out',
      out,
      '--fail-on',
      'violations',
    ]);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stderr).toContain('gate failed: --fail-on violations: 1 request broke the contract');
    expect(cli.stderr).toContain('run ci-1234: 1 violating request, 1 with notices');
    expect(await schemaErrors(readFileSync(out, 'utf8'), JUNIT_XSD)).toEqual([]);
    const parsed = (await parseJunit(readFileSync(out, 'utf8'))) as TestSuites;
    expect(parsed.failures).toBe(1);
    const failing = parsed.testsuite
      ?.find((s) => s.name === 'patchDocument')
      ?.testcase?.find((c) => c.failure);
    expect(failing?.name).toMatch(
      new RegExp(`^#\\d+ PATCH /api/v2/documents/101101 -> 400 \\(session ${one.id}\\): body/colour$`),
    );

    const md = await root.report({ run: 'ci-1234', format: 'markdown' });
    expect(md).toContain('## Passportal fake: run ci-1234');
    // As it reads rendered: the Markdown escapes every character that could start markup (`_` too).
    expect(md.replace(/\\(.)/g, '$1')).toContain(`(session ${one.id})`);

    // The other run holds its own session only, live.
    const theirs = await root.report({ run: 'ci-9999' });
    expect(theirs.summary.violatingRequests).toBe(2);
    expect(theirs.violations.every((v) => v.session === other.id)).toBe(true);
    await root.deleteSession(other.id);
  });

  it('keeps a live session of the run in it, and an expired one too; the same suite with the violation declared passes', async () => {
    const quick = (await createTestServer({ sessionIdleSeconds: 1 })).mock;
    try {
      const base = await quick.listen(0, '127.0.0.1');
      const live = await quick.session(undefined, { run: 'ci-live', expires: false });
      const expiring = await quick.session(undefined, { run: 'ci-live' });
      live.expectViolation({ location: 'body/colour' });
      await moduleWithViolation(live.baseUrl);
      await moduleWithListing(expiring.baseUrl);
      expect((await live.report()).summary.expectedViolations).toBe(1);
      // Idle expiry: the reaper removes the unused session after a second.
      await new Promise((resolve) => setTimeout(resolve, 1600));
      expect(quick.sessions.list().map((s) => s.id)).toEqual([live.id]);
      const report = await quick.report({ run: 'ci-live' });
      expect(report.requests.total).toBe(4);
      expect(report.summary).toMatchObject({
        violatingRequests: 0,
        expectedViolations: 1,
        unmetExpectations: 0,
      });
      expect(report.expectedViolations[0]?.session).toBe(live.id);
      expect((report as Report & { sessions: unknown[] }).sessions).toEqual([
        { id: expiring.id, live: false, requests: 2 },
        { id: live.id, live: true, requests: 2 },
      ]);
      const gate = await reportCommand([
        '--url',
        base,
        '--run',
        'ci-live',
        '--fail-on',
        'violations',
        '--format',
        'junit',
      ]);
      expect(gate.code, gate.stderr).toBe(0);
      expect(gate.stdout).toContain('expected violation #');
    } finally {
      await quick.close();
    }
  });

  it('fails the gate on a declaration a deleted session never met', async () => {
    const root = createAdminClient(url);
    const session = await root.createSession({ run: 'ci-unmet' });
    await session.admin.expectViolation({ method: 'POST', path: '/api/v2/documents' });
    await root.deleteSession(session.id);
    const gate = await reportCommand(['--url', url, '--run', 'ci-unmet']);
    expect(gate.code).toBe(1);
    expect(gate.stderr).toContain(
      `expected a violation that never came (1 declaration: POST /api/v2/documents (session ${session.id}) met 0 of 1)`,
    );
    const report = await root.report({ run: 'ci-unmet' });
    expect(report.unmetExpectations).toEqual([
      expect.objectContaining({ session: session.id, times: 1, met: 0 }),
    ]);
  });

  it('is cleared with DELETE /__admin/report?run=, after which the run is unknown (404, exit 2); a session URL cannot ask for it', async () => {
    const root = createAdminClient(url);
    const session = await root.createSession({ run: 'ci-clear' });
    await moduleWithViolation(session.baseUrl);
    await root.deleteSession(session.id);
    const before = mock.memory.used('journals');
    await root.clearReport({ run: 'ci-clear' });
    // What the deleted session left is given back to the memory budget.
    expect(mock.memory.used('journals')).toBeLessThan(before);
    const gone = await root.report({ run: 'ci-clear' }).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(AdminError);
    expect((gone as AdminError).status).toBe(404);
    expect((gone as AdminError).message).toContain('no run "ci-clear"');
    const cli = await reportCommand(['--url', url, '--run', 'ci-clear']);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('no run "ci-clear"');
    const live = await root.createSession({ run: 'ci-own' });
    const refused = await fetch(`${live.baseUrl}/__admin/report?run=ci-own`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toContain('ask the root URL');
    await root.deleteSession(live.id);
  });

  it('refuses a bad run label with 400 invalidRunLabel (code 4000) naming the rule, over HTTP and in process', async () => {
    for (const run of ['ci run #42', 'a+b', 'x'.repeat(129), '']) {
      const res = await fetch(`${url}/__admin/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ run }),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: number; message: string; errors: { location: string }[] };
      // Its own code: a client tells it from a fake that knows no run labels (code 0, unknown field).
      expect(body.code).toBe(4000);
      expect(body.message).toBe(
        'invalid run label: must be 1-128 characters of letters, digits and ._:@/- (e.g. ci-1234)',
      );
      expect(body.errors[0]?.location).toBe('body/run');
    }
    expect((await createAdminClient(url).sessions()).some((s) => s.run === 'ci run #42')).toBe(false);
    await expect(mock.session(undefined, { run: 'x'.repeat(129) })).rejects.toMatchObject({
      kind: 'invalidRunLabel',
      status: 400,
    });
    expect((await fetch(`${url}/__admin/report?run=bad%20label`)).status).toBe(400);
  });

  it('past 256 runs forgets the idle run touched longest ago, never a new run nor one with a live session', async () => {
    const many = (await createTestServer()).mock;
    try {
      const live = await many.session(undefined, { run: 'run-live' });
      const ended: string[] = [];
      for (let i = 0; i < 300; i++) {
        const session = await many.session(undefined, { run: `run-${i}` });
        session.delete();
        ended.push(`run-${i}`);
      }
      // The newest is kept while its session lives, and so is the oldest run with a live session.
      const newest = await many.session(undefined, { run: 'run-newest' });
      await expect(many.report({ run: 'run-newest' })).resolves.toMatchObject({ run: 'run-newest' });
      await expect(many.report({ run: 'run-live' })).resolves.toMatchObject({ run: 'run-live' });
      await expect(many.report({ run: 'run-299' })).resolves.toMatchObject({ run: 'run-299' });
      // The idle runs touched longest ago are gone.
      await expect(many.report({ run: 'run-0' })).rejects.toMatchObject({ kind: 'runNotFound' });
      const kept = many.sessions.runs?.labels() ?? [];
      expect(kept.length).toBe(256);
      expect(kept).toContain('run-live');
      expect(kept).toContain('run-newest');
      newest.delete();
      live.delete();
    } finally {
      await many.close();
    }
  });

  it('adds up 1,500 sessions of one run exactly', async () => {
    const many = (await createTestServer()).mock;
    try {
      // One listening server and fetch's kept-alive connection: 1,500 round trips, not 1,500 servers.
      await many.listen(0, '127.0.0.1');
      for (let i = 0; i < 1500; i++) {
        const session = await many.session(undefined, { run: 'run-1500' });
        const res = await fetch(`${session.baseUrl}/api/v2/documents?pageNum=1`);
        await res.arrayBuffer();
        expect(res.status).toBe(401);
        session.delete();
      }
      const report = (await many.report({ run: 'run-1500' })) as Report & {
        sessions: unknown[];
        sessionsNotListed: number;
      };
      expect(report.summary.violatingRequests).toBe(1500);
      expect(report.requests.total).toBe(1500);
      expect(report.sessions.length + report.sessionsNotListed).toBe(1500);
    } finally {
      await many.close();
    }
  }, 120_000);

  it('keeps exact counts when its records outgrow their share of the memory budget', async () => {
    // A small budget: the kept records may hold a quarter of the journals' share.
    const small = (await createTestServer({ memoryBudget: 400_000 })).mock;
    try {
      const bound = Math.floor(small.memory.limit('journals') * KEPT_RECORDS_SHARE);
      await small.listen(0, '127.0.0.1');
      let violating = 0;
      for (let i = 0; i < 12; i++) {
        const session = await small.session(undefined, { run: 'ci-big' });
        const token = await tokenAt(session.baseUrl);
        for (let j = 0; j < 10; j++) {
          const res = await fetch(`${session.baseUrl}/api/v2/documents/101101`, {
            method: 'PATCH',
            headers: { 'x-access-token': token, 'content-type': 'application/json' },
            body: JSON.stringify({ [`k${'x'.repeat(400)}${j}`]: textEntry('K', 'v') }),
          });
          expect(res.status).toBe(400);
          violating++;
        }
        session.delete();
      }
      const report = await small.report({ run: 'ci-big' });
      expect(report.summary.violatingRequests).toBe(violating);
      expect(report.violations.length).toBeLessThan(violating);
      expect(report.findingsDropped).toBe(violating - report.violations.length);
      const kept = small.sessions.runs?.bytes ?? 0;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThanOrEqual(bound);
    } finally {
      await small.close();
    }
  });
});
