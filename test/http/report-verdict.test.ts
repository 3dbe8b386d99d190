import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseJunit, type TestSuites } from 'junit2json';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runReportCommand } from '../../src/commands/report.js';
import { DEFAULT_SPEC_PATH } from '../../src/contract/spec-document.js';
import type { Report } from '../../src/harness/verdicts/report.js';
import type { MockServer } from '../../src/index.js';
import { requestToken } from '../support/request-token.js';
import { ACME_KEY, createTestServer, type TestServer, textEntry } from '../support/test-server.js';

/**
 * The verdict comes from exact counts since the tally began, never from the bounded lists of
 * findings: whatever a client sends after a violation (a thousand requests with notices, a
 * thousand clean requests checked by `validateResponses`, more violations than the lists keep),
 * the Markdown verdict line, the JUnit and CTRF failures and the `report` command's exit status
 * still count it (docs/reports.md, "The verdict").
 */

let servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function server(
  options: Parameters<typeof createTestServer>[0] = {},
): Promise<TestServer & { url: string }> {
  const t = await createTestServer(options);
  servers.push(t.mock);
  const url = await t.mock.listen(0, '127.0.0.1');
  return { ...t, url };
}

/** One request that breaks the contract: a detail key the template lacks (400). */
async function violate(t: TestServer, token: string): Promise<void> {
  const res = await t.http
    .patch('/api/v2/documents/101101')
    .set('x-access-token', token)
    .send({ name: textEntry('Name', 'Dundee'), colour: textEntry('Colour', 'red') });
  expect(res.status).toBe(400);
}

/** `count` list calls, 20 at a time; `pageNum` left out gives each a notice. */
async function lists(t: { url: string }, token: string, count: number, pageNum: boolean): Promise<void> {
  const url = `${t.url}/api/v2/documents?resultsPerPage=5${pageNum ? '&pageNum=1' : ''}`;
  for (let i = 0; i < count; i += 20) {
    const batch = Array.from({ length: Math.min(20, count - i) }, async () => {
      const res = await fetch(url, { headers: { 'x-access-token': token } });
      await res.arrayBuffer();
      return res.status;
    });
    for (const status of await Promise.all(batch)) expect(status).toBe(200);
  }
}

/** The `report` command in process, its output captured. */
async function reportCommand(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await runReportCommand(args, {}), stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

async function failures(mock: MockServer): Promise<{ junit: number; ctrf: number }> {
  const junit = (await parseJunit(await mock.report('junit'))) as TestSuites;
  const ctrf = JSON.parse(await mock.report('ctrf')) as { results: { summary: { failed: number } } };
  return { junit: junit.failures ?? 0, ctrf: ctrf.results.summary.failed };
}

describe('the verdict counts every violating request since the tally began', () => {
  it('one violation, then 1,000 list calls without pageNum: the gate still fails (notices never push a violation out)', {
    timeout: 90_000,
  }, async () => {
    const t = await server();
    const token = await t.token();
    await violate(t, token);
    await lists(t, token, 1000, false);

    const report: Report = await t.mock.report();
    expect(report.summary.violatingRequests).toBe(1);
    expect(report.summary.requestsWithNotices).toBe(1000);
    expect(report.summary.noticeCodes).toEqual({ pageNumOmitted: 1000 });
    expect(report.summary.violationsNotListed).toBe(0);
    expect(report.violations).toHaveLength(1);
    // The notices' list is bounded by journalLimit (1,000 by default): none dropped yet, none over.
    expect(report.notices.length).toBeLessThanOrEqual(1000);

    const md = await t.mock.report('markdown');
    expect(md).toContain('❌ 1 request broke the contract; 1000 requests with notices');
    expect(await failures(t.mock)).toEqual({ junit: 1, ctrf: 1 });
    const gate = await reportCommand(['--url', t.url, '--fail-on', 'violations']);
    expect(gate.code).toBe(1);
    expect(gate.stderr).toContain('gate failed: --fail-on violations: 1 request broke the contract');
    expect(gate.stderr).toContain('root: 1 violating request, 1000 with notices');
  });

  it('with validateResponses, one violation then 1,000 clean requests: the gate still fails', {
    timeout: 90_000,
  }, async () => {
    const t = await server({ validateResponses: true });
    const token = await t.token();
    await violate(t, token);
    await lists(t, token, 1000, true);

    const report = await t.mock.report();
    expect(report.summary.violatingRequests).toBe(1);
    expect(report.summary.requestsWithNotices).toBe(0);
    expect(report.violations).toHaveLength(1);
    expect(await t.mock.report('markdown')).toContain('❌ 1 request broke the contract');
    expect(await failures(t.mock)).toEqual({ junit: 1, ctrf: 1 });
    expect((await reportCommand(['--url', t.url])).code).toBe(1);
  });

  it('more violations than the list keeps: counted exactly, the report says how many are no longer listed, and one failing case stands for them', async () => {
    const t = await server({ journalLimit: 5 });
    const token = await t.token();
    for (let i = 0; i < 8; i++) await violate(t, token);
    await lists(t, token, 40, false);

    const report = await t.mock.report();
    expect(report.summary).toEqual({
      violatingRequests: 8,
      requestsWithNotices: 40,
      expectedViolations: 0,
      unmetExpectations: 0,
      noticeCodes: { pageNumOmitted: 40 },
      violationsNotListed: 3,
      noticesNotListed: 35,
    });
    expect(report.violations).toHaveLength(5);
    expect(report.notices).toHaveLength(5);
    expect(report.findingsDropped).toBe(38);
    const md = await t.mock.report('markdown');
    expect(md).toContain('❌ 8 requests broke the contract; 40 requests with notices');
    expect(md).toContain('older requests no longer listed: 3 that broke the contract, 35 with notices');
    // Five listed violations, one case for the three no longer listed.
    expect(await failures(t.mock)).toEqual({ junit: 6, ctrf: 6 });
    const junit = await t.mock.report('junit');
    expect(junit).toContain('3 more requests broke the contract; no longer listed');
    const gate = await reportCommand(['--url', t.url]);
    expect(gate.stderr).toContain('--fail-on violations: 8 requests broke the contract');
  });

  it('counts violations validateResponses finds in answers after the request was recorded, listed or not', async () => {
    // A spec that declares expiry_time a string: every token answer (a number) breaks it.
    const text = readFileSync(DEFAULT_SPEC_PATH, 'utf8');
    const from = '        expiry_time:\n          type: integer';
    expect(text).toContain(from);
    const specPath = join(mkdtempSync(join(tmpdir(), 'fake-spec-')), 'openapi.yaml');
    writeFileSync(specPath, text.replace(from, '        expiry_time:\n          type: string'));
    const t = await server({ specPath, validateResponses: true, journalLimit: 2 });
    for (let i = 0; i < 3; i++) expect((await requestToken(t.url, ACME_KEY)).status).toBe(200);

    const report = await t.mock.report();
    expect(report.summary.violatingRequests).toBe(3);
    expect(report.summary.violationsNotListed).toBe(1);
    expect(report.violations.map((f) => f.violations.map((v) => v.location))).toEqual([
      ['response.body/expiry_time'],
      ['response.body/expiry_time'],
    ]);
    expect(await t.mock.report('markdown')).toContain('❌ 3 requests broke the contract');
  });

  it('starts again at DELETE /__admin/report and survives a reset', async () => {
    const t = await server();
    const token = await t.token();
    await violate(t, token);
    t.mock.reset();
    expect((await t.mock.report()).summary.violatingRequests).toBe(1);
    expect((await fetch(`${t.url}/__admin/report`, { method: 'DELETE' })).status).toBe(200);
    const report = await t.mock.report();
    expect(report.summary).toMatchObject({ violatingRequests: 0, requestsWithNotices: 0, noticeCodes: {} });
    expect((await reportCommand(['--url', t.url])).code).toBe(0);
  });
});
