import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse as parseJunit, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '../../src/client/admin-client.js';
import { BEHAVIOUR_IDS } from '../../src/harness/verdicts/behaviours.js';
import type { Report } from '../../src/harness/verdicts/report.js';
import type { MockServer, MockSession } from '../../src/index.js';
import { reportCommand as report } from '../support/in-process-command.js';
import { accessToken } from '../support/request-token.js';
import { runCli } from '../support/run-cli.js';
import { ACME_KEY, createTestServer, type TestServer, textEntry } from '../support/test-server.js';
import { schemaErrors } from '../support/xml-schema.js';

/**
 * The reports a CI step reads after a suite: a small client suite meets some behaviours and not
 * others in its own session; the report lists exactly those as exercised and the rest as never,
 * its JUnit XML validates against a JUnit schema (libxml2's xmllint) and reads back through a JUnit reader,
 * its CTRF JSON validates against the CTRF project's schema, and the `report` command's gates exit
 * as documented (docs/reports.md).
 */

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const JUNIT_XSD = fileURLToPath(new URL('../fixtures/junit/junit.xsd', import.meta.url));
const CTRF_SCHEMA = fileURLToPath(
  new URL('../../node_modules/ctrf/src/ctrf-schema-0.0.json', import.meta.url),
);

/** What the small suite below meets, and nothing else. */
const MET = ['tokenIssued', 'shortLastPage', 'error.unknownDetailKeys', 'notice.pageNumOmitted'];

/** A client suite as a team would write it: a token, a list, a read, and a PATCH with a typo. */
async function runSmallSuite(base: string): Promise<void> {
  const headers = { 'x-access-token': await accessToken(base, ACME_KEY), 'content-type': 'application/json' };
  // No pageNum: a notice. ACME has fewer than 100 documents: a short last page.
  expect((await fetch(`${base}/api/v2/documents?resultsPerPage=100`, { headers })).status).toBe(200);
  // A detail key the template lacks: a violation (400).
  const patched = await fetch(`${base}/api/v2/documents/101101`, {
    method: 'PATCH',
    headers,
    body: JSON.stringify({ name: textEntry('Name', 'Dundee'), colour: textEntry('Colour', 'red') }),
  });
  expect(patched.status).toBe(400);
}

let t: TestServer;
let mock: MockServer;
let url: string;
let session: MockSession;

beforeAll(async () => {
  t = await createTestServer();
  mock = t.mock;
  url = await mock.listen(0, '127.0.0.1');
  session = await mock.session();
  await runSmallSuite(session.baseUrl);
});
afterAll(async () => {
  await mock.close();
});

describe('the report of a session after a small client suite', () => {
  it('lists exactly what the suite met as exercised, the rest as never exercised, most likely first', async () => {
    const report = await session.report();
    const exercised = report.behaviours.filter((b) => b.count > 0).map((b) => b.id);
    expect(exercised.sort()).toEqual([...MET].sort());
    expect(report.neverExercised.map((n) => n.id).sort()).toEqual(
      BEHAVIOUR_IDS.filter((id) => !MET.includes(id)).sort(),
    );
    const likelihoods = report.neverExercised.map((n) => n.likelihood);
    expect(likelihoods).toEqual([...likelihoods].sort((a, b) => b - a));
    for (const gap of report.neverExercised) expect(gap.how.length).toBeGreaterThan(10);
    expect(report.coverage.behaviours).toEqual({
      exercised: MET.length,
      total: BEHAVIOUR_IDS.length,
      percent: Math.floor((MET.length * 1000) / BEHAVIOUR_IDS.length) / 10,
    });
    expect(report.operations.filter((o) => o.count > 0)).toEqual([
      { operationId: 'createClientToken', count: 1 },
      { operationId: 'listDocuments', count: 1 },
      { operationId: 'patchDocument', count: 1 },
    ]);
    expect(report.violations).toHaveLength(1);
    expect(report.violations[0]).toMatchObject({
      method: 'PATCH',
      path: '/api/v2/documents/101101',
      status: 400,
    });
    expect(report.notices.flatMap((f) => f.notices.map((n) => n.code))).toEqual(['pageNumOmitted']);
    expect(report.requests).toEqual({ total: 3, held: 3, noLongerHeld: 0 });
    // Each exercised behaviour links to the requests that exercised it.
    const journal = await session.requests();
    const patchId = journal.find((e) => e.method === 'PATCH')?.id;
    expect(report.behaviours.find((b) => b.id === 'error.unknownDetailKeys')?.requests).toEqual([patchId]);
  });

  it('holds only its own requests: the root saw none of them, and the admin API answers the same', async () => {
    const root = await mock.report();
    expect(root.instance).toBe('root');
    expect(root.requests.total).toBe(0);
    expect(root.behaviours.every((b) => b.count === 0)).toBe(true);
    const overHttp = (await createAdminClient(session.baseUrl).report()) as Report;
    expect(overHttp.instance).toBe(`session ${session.id}`);
    expect(overHttp.coverage).toEqual((await session.report()).coverage);
  });

  it('writes JUnit XML that validates against a JUnit schema and reads back with each violation a named failing case', async () => {
    const xml = await session.report('junit');
    // xmllint (libxml2) is the consumer CI systems' schema checks use.
    expect(await schemaErrors(xml, JUNIT_XSD)).toEqual([]);

    const parsed = (await parseJunit(xml)) as TestSuites;
    const suites = parsed.testsuite ?? [];
    const patchSuite = suites.find((s) => s.name === 'patchDocument');
    const failing = patchSuite?.testcase?.filter((c) => (c.failure?.length ?? 0) > 0) ?? [];
    expect(failing).toHaveLength(1);
    expect(failing[0]?.name).toMatch(/^#\d+ PATCH \/api\/v2\/documents\/101101 -> 400: /);
    expect(failing[0]?.failure?.[0]?.message).toContain('colour');
    expect(failing[0]?.failure?.[0]?.inner).toContain('PATCH /api/v2/documents/101101');
    // Only the verdict's cases: the failing one, and one passing case per operation called cleanly.
    expect(parsed.tests).toBe(3);
    expect(xml).toMatch(/<testsuites [^>]*skipped="0"/);
    expect(suites.flatMap((s) => s.testcase ?? []).filter((c) => c.skipped !== undefined)).toEqual([]);
    // The notice is a property of its operation's suite, saying what to do instead.
    const listSuite = suites.find((s) => s.name === 'listDocuments');
    expect(listSuite?.testcase?.map((c) => c.name)).toEqual(['no contract violations']);
    const noticed = listSuite?.properties?.find((p) => p.name === 'notice.1');
    expect(String(noticed?.value)).toMatch(
      /^pageNumOmitted at query\.pageNum: .*pageNum.* \(#\d+ GET \/api\/v2\/documents -> 200\)$/,
    );
    expect(parsed.failures).toBe(1);
    // Coverage: the properties of its own suite, which has no case; every behaviour named.
    const coverage = suites.find((s) => s.name === 'behaviour coverage');
    expect(coverage?.testcase ?? []).toEqual([]);
    const properties = new Map((coverage?.properties ?? []).map((p) => [p.name, String(p.value)]));
    expect(properties.get('behaviours.exercised')).toBe(String(MET.length));
    expect(properties.get('behaviours.total')).toBe(String(BEHAVIOUR_IDS.length));
    const exercised = BEHAVIOUR_IDS.filter((id) =>
      properties.get(`behaviour.${id}`)?.startsWith('exercised by'),
    );
    expect(exercised.sort()).toEqual([...MET].sort());
    expect(properties.get('behaviour.tokenExpired')).toMatch(/^never exercised \(likelihood 5\/5\): /);
    expect(properties.get('operation.getDocument')).toBe('never called');
  });

  it('writes CTRF JSON that validates against the CTRF schema', async () => {
    const ctrf = JSON.parse(await session.report('ctrf')) as {
      results: {
        summary: { failed: number; tests: number };
        tests: Array<{ name: string; status: string }>;
      };
      extra: unknown;
    };
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(CTRF_SCHEMA, 'utf8')) as object);
    expect(validate(ctrf), JSON.stringify(validate.errors)).toBe(true);
    expect(ctrf.results.summary).toMatchObject({ tests: 3, failed: 1, passed: 2, skipped: 0 });
    // Coverage and notices are in `extra`, never tests.
    expect(ctrf.results.tests.filter((c) => c.name.startsWith('behaviour coverage'))).toEqual([]);
    const extra = ctrf.extra as {
      notices: Array<{ code: string }>;
      exercised: Array<{ id: string }>;
      neverExercised: Array<{ id: string }>;
    };
    expect(extra.notices.map((n) => n.code)).toEqual(['pageNumOmitted']);
    expect(extra.exercised.map((b) => b.id).sort()).toEqual([...MET].sort());
    expect(extra.neverExercised).toHaveLength(BEHAVIOUR_IDS.length - MET.length);
  });

  it('writes Markdown for the job summary with the violation, the notice and the never-exercised list', async () => {
    const md = await session.report('markdown');
    expect(md).toContain('❌ 1 request broke the contract');
    expect(md).toMatch(/\| #\d+ PATCH \/api\/v2\/documents\/101101 -> 400 \| /);
    expect(md).toContain('| `tokenExpired` | 5/5 |');
    expect(md).toContain(`behaviours exercised: **${MET.length}/${BEHAVIOUR_IDS.length}`);
  });
});

describe('the JUnit report of a clean suite that leaves most behaviours unexercised', () => {
  it('holds the verdict only: one passing case per operation called, no skipped case, coverage and notices as properties', async () => {
    const clean = await mock.session();
    const base = clean.baseUrl;
    const headers = { 'x-access-token': await accessToken(base, ACME_KEY) };
    expect((await fetch(`${base}/api/v2/documents?resultsPerPage=10`, { headers })).status).toBe(200);
    expect((await fetch(`${base}/api/v2/documents/101101`, { headers })).status).toBe(200);

    const xml = await clean.report('junit');
    expect(await schemaErrors(xml, JUNIT_XSD)).toEqual([]);
    const parsed = (await parseJunit(xml)) as TestSuites;
    expect({ tests: parsed.tests, failures: parsed.failures }).toEqual({ tests: 3, failures: 0 });
    expect(xml).toMatch(/<testsuites [^>]*skipped="0"/);
    const suites = parsed.testsuite ?? [];
    const cases = suites.flatMap((s) => (s.testcase ?? []).map((c) => `${s.name}: ${c.name}`));
    expect(cases).toEqual([
      'createClientToken: no contract violations',
      'listDocuments: no contract violations',
      'getDocument: no contract violations',
    ]);
    expect(suites.flatMap((s) => s.testcase ?? []).every((c) => c.skipped === undefined)).toBe(true);
    // Nothing lost: the notice and the coverage gaps are properties.
    const list = suites.find((s) => s.name === 'listDocuments');
    expect(list?.properties?.map((p) => p.name)).toEqual(['requests', 'notice.1']);
    const coverage = new Map(
      (suites.find((s) => s.name === 'behaviour coverage')?.properties ?? []).map((p) => [
        p.name,
        String(p.value),
      ]),
    );
    expect(coverage.get('notices.pageNumOmitted')).toBe('1');
    const gaps = [...coverage].filter(
      ([name, value]) => name?.startsWith('behaviour.') && value.startsWith('never'),
    );
    expect(gaps.length).toBe((await clean.report()).neverExercised.length);
    expect(gaps.length).toBeGreaterThan(40);
    clean.delete();
  });
});

describe('the report command', () => {
  it('run from the command line, exits 1 on violations by default, naming the gate, and writes the report to --out', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'fake-report-')), 'report.xml');
    const run = await runCli(['report', '--url', session.baseUrl, '--format', 'junit', '--out', out]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('gate failed: --fail-on violations: 1 request broke the contract');
    expect(readFileSync(out, 'utf8')).toContain('<testsuites');
  });

  it('exits 0 with --fail-on none, 1 with --fail-on notices or an unmet --min-coverage, and prints Markdown by default', async () => {
    const none = await report(['--url', session.baseUrl, '--fail-on', 'none']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('## Passportal fake: session');
    const notices = await report(['--url', session.baseUrl, '--fail-on', 'notices']);
    expect(notices.code).toBe(1);
    expect(notices.stderr).toContain(
      'gate failed: --fail-on notices: 1 request relied on something undocumented',
    );
    const coverage = await report(['--url', session.baseUrl, '--fail-on', 'none', '--min-coverage', '50']);
    expect(coverage.code).toBe(1);
    expect(coverage.stderr).toMatch(/gate failed: --min-coverage 50: behaviours exercised 4\/\d+/);
    const met = await report(['--url', session.baseUrl, '--fail-on', 'none', '--min-coverage', '1']);
    expect(met.code).toBe(0);
    // The root has no findings: the default gate passes.
    const root = await report(['--url', url, '--format', 'json']);
    expect(root.code, root.stderr).toBe(0);
    expect((JSON.parse(root.stdout) as Report).instance).toBe('root');
  });

  it('exits 2 on a usage error or when no report can be had', async () => {
    const badFormat = await report(['--url', url, '--format', 'html']);
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toContain('--format');
    const noUrl = await runCli(['report']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--url');
    const badCoverage = await report(['--url', url, '--min-coverage', '120']);
    expect(badCoverage.code).toBe(2);
    const unknownSession = await report(['--url', `${url}/sessions/nobody`]);
    expect(unknownSession.code).toBe(2);
    expect(unknownSession.stderr).toContain('Session not found');
  });
});

describe('what a report covers', () => {
  it('survives resets (one report for a suite that resets before each test) and starts afresh on DELETE /__admin/report', async () => {
    const s = await mock.session();
    await runSmallSuite(s.baseUrl);
    s.reset();
    await runSmallSuite(s.baseUrl);
    const report = await s.report();
    expect(report.requests.total).toBe(6);
    // The reset cleared the journal: the first suite's requests are no longer held.
    expect(report.requests.noLongerHeld).toBe(3);
    expect(report.violations).toHaveLength(2);
    const cleared = await fetch(`${s.baseUrl}/__admin/report`, { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect((await s.report()).requests.total).toBe(0);
  });

  it('over a full journal says how many requests it no longer holds, with exact counts', async () => {
    const small = await createTestServer({ journalLimit: 5 });
    const token = await small.token();
    for (let i = 0; i < 11; i++)
      await small.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);
    const report = await small.mock.report();
    expect(report.requests).toEqual({ total: 12, held: 5, noLongerHeld: 7 });
    expect(report.behaviours.find((b) => b.id === 'shortLastPage')?.count).toBe(11);
    expect(await small.mock.report('markdown')).toContain(
      'all are counted, though the journal (cleared by resets, bounded in size) no longer shows 7 of them',
    );
    await small.mock.close();
  });
});
