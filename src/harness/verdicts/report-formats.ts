import { createRequire } from 'node:module';
import type { ReportBuilder as CtrfReportBuilder, Test } from 'ctrf';
import type { FindingRecord } from './coverage.js';
import { type JunitCase, type JunitSuite, renderJunitXml } from './junit-xml.js';
import { markdownText } from './markdown-text.js';
import { describeExpectation } from './no-violations.js';
import type { Report, ReportFormat } from './report.js';

/**
 * A report in the formats CI systems read (docs/reports.md), client text in each only as text:
 * - JUnit XML (`junit-xml.ts`, escaped character data only): the verdict's cases alone, one suite
 *   per vendor operation: each violation a failing test case named after the request and the
 *   location, its message and the request in the failure; each expected violation a passing case;
 *   an operation called without a violation one passing case. Notices (with what to do instead)
 *   are properties of their operation's suite, and a last suite, "behaviour coverage", holds the
 *   coverage as properties: never a skipped case, so a CI view counts only the verdict.
 * - CTRF JSON (the CTRF project's `ctrf` package): the same cases as CTRF tests, notices and
 *   coverage in its `extra`.
 * - Markdown for `$GITHUB_STEP_SUMMARY` or a pull-request comment (client text escaped by
 *   `markdown-text.ts`).
 * - JSON: the report as it is.
 */

export const TOOL_NAME = 'passportal-docs-fake';

/** The CTRF writer is loaded when a report is first rendered, not at start-up (ctrf brings its own Ajv). */
const requireWriter = createRequire(import.meta.url);
const ctrfBuilder = (): CtrfReportBuilder =>
  new (requireWriter('ctrf') as { ReportBuilder: typeof CtrfReportBuilder }).ReportBuilder();

/** One case of the verdict, in the order both test formats (JUnit, CTRF) list them. */
type Case = JunitCase;

const OTHER_SUITE = 'outside the operations';
const EXPECTATIONS_SUITE = 'expected violations';

function requestLine(f: FindingRecord): string {
  const where = f.session === undefined ? '' : ` (session ${f.session})`;
  return `#${f.requestId} ${f.method} ${f.path} -> ${f.status ?? 'no answer'}${where}`;
}

/** The cases of the declarations: each expected violation passes, each one never met fails. */
function expectationCases(
  report: Report,
  suiteOf: (f: FindingRecord) => string,
): { expected: Case[]; unmet: Case[] } {
  const expected: Case[] = [];
  const unmet: Case[] = [];
  for (const f of report.expectedViolations)
    for (const v of f.violations)
      expected.push({
        suite: suiteOf(f),
        name: `expected violation ${requestLine(f)}: ${v.location}`,
        status: 'passed',
        message: `declared beforehand: ${v.location}: ${v.message}`,
        detail: [requestLine(f), ...f.violations.map((w) => `  ${w.location}: ${w.message} (expected)`)].join(
          '\n',
        ),
      });
  for (const u of report.unmetExpectations) {
    const where = u.session === undefined ? '' : ` (session ${u.session})`;
    unmet.push({
      suite: EXPECTATIONS_SUITE,
      name: `expected a violation that never came: ${describeExpectation(u)}${where}`,
      status: 'failed',
      failureType: 'expected violation never came',
      message: `expected a violation that never came: ${describeExpectation(u)}, met ${u.met} of ${u.times} times`,
      detail: `declaration ${u.id}: ${describeExpectation(u)}, times ${u.times}, met ${u.met}`,
    });
  }
  return { expected, unmet };
}

/** The suite of the report's coverage: no case, every figure a property. */
const COVERAGE_SUITE = 'behaviour coverage';
/** The suite of the one passing case of a run with no other case (no request at all). */
const VERDICT_SUITE = 'verdict';

/** The notices of `findings` as properties `notice.<n>`: code, location, message and request. */
function noticeProperties(findings: readonly FindingRecord[]): Array<[string, string]> {
  const properties: Array<[string, string]> = [];
  for (const f of findings)
    for (const n of f.notices)
      properties.push([
        `notice.${properties.length + 1}`,
        `${n.code} at ${n.location}: ${n.message} (${requestLine(f)})`,
      ]);
  return properties;
}

/** The coverage of the report as properties: the totals, then each operation and behaviour. */
function coverageProperties(report: Report): Array<[string, string]> {
  const { behaviours, operations } = report.coverage;
  const properties: Array<[string, string]> = [
    ['requests', String(report.requests.total)],
    ['behaviours.exercised', String(behaviours.exercised)],
    ['behaviours.total', String(behaviours.total)],
    ['behaviours.percent', String(behaviours.percent)],
    ['operations.exercised', String(operations.exercised)],
    ['operations.total', String(operations.total)],
    ['requestsWithNotices', String(report.summary.requestsWithNotices)],
  ];
  for (const [code, count] of Object.entries(report.summary.noticeCodes))
    properties.push([`notices.${code}`, String(count)]);
  if (report.summary.noticesNotListed > 0)
    properties.push(['notices.notListed', String(report.summary.noticesNotListed)]);
  for (const o of report.operations)
    properties.push([
      `operation.${o.operationId}`,
      o.count === 0 ? 'never called' : plural(o.count, 'request'),
    ]);
  const gaps = new Map(report.neverExercised.map((n) => [n.id, n]));
  for (const b of report.behaviours) {
    const gap = gaps.get(b.id);
    properties.push([
      `behaviour.${b.id}`,
      gap
        ? `never exercised (likelihood ${gap.likelihood}/5): ${gap.how}`
        : `exercised by ${plural(b.count, 'request')}`,
    ]);
  }
  return properties;
}

/**
 * The verdict's suites: one per vendor operation that has a case or a notice, then the requests
 * outside the operations, the declarations never met, and the coverage. Cases are the verdict's
 * only: each violation fails, each expected violation passes, and an operation called without a
 * violation has one passing case. Notices and coverage are properties, never skipped cases: a CI
 * view counts exactly the verdict (docs/reports.md).
 */
function suitesOf(report: Report): JunitSuite[] {
  const suites: JunitSuite[] = [];
  const suiteOf = (f: FindingRecord): string =>
    f.operationId && report.operations.some((o) => o.operationId === f.operationId)
      ? f.operationId
      : OTHER_SUITE;
  const declared = expectationCases(report, suiteOf);
  for (const suite of [...report.operations.map((o) => o.operationId), OTHER_SUITE]) {
    const cases: Case[] = [];
    const violating = report.violations.filter((f) => suiteOf(f) === suite);
    for (const f of violating) {
      for (const v of f.violations) {
        cases.push({
          suite,
          name: `${requestLine(f)}: ${v.location}`,
          status: 'failed',
          message: `${v.location}: ${v.message}`,
          detail: [requestLine(f), ...f.violations.map((w) => `  ${w.location}: ${w.message}`)].join('\n'),
        });
      }
    }
    cases.push(...declared.expected.filter((c) => c.suite === suite));
    const count = report.operations.find((o) => o.operationId === suite)?.count ?? 0;
    if (violating.length === 0 && count > 0)
      cases.push({
        suite,
        name: 'no contract violations',
        status: 'passed',
        message: plural(count, 'request'),
      });
    // The verdict counts every violating request, listed or not: one failing case stands for those dropped.
    const notListed = report.summary.violationsNotListed;
    if (suite === OTHER_SUITE && notListed > 0) {
      const message = `${plural(notListed, 'more request')} broke the contract; no longer listed (the report keeps the newest ${report.violations.length})`;
      cases.push({ suite, name: message, status: 'failed', message, detail: message });
    }
    const properties = noticeProperties(report.notices.filter((f) => suiteOf(f) === suite));
    if (count > 0) properties.unshift(['requests', String(count)]);
    if (cases.length > 0 || properties.length > 0) suites.push({ name: suite, properties, cases });
  }
  if (declared.unmet.length > 0)
    suites.push({ name: EXPECTATIONS_SUITE, properties: [], cases: declared.unmet });
  // A run with no case at all (no request) still has its verdict as one case: nothing broke.
  if (suites.every((s) => s.cases.length === 0)) {
    suites.push({
      name: VERDICT_SUITE,
      properties: [],
      cases: [
        { suite: VERDICT_SUITE, name: 'no contract violations', status: 'passed', message: 'no requests' },
      ],
    });
  }
  suites.push({ name: COVERAGE_SUITE, properties: coverageProperties(report), cases: [] });
  return suites;
}

function renderJunit(report: Report): string {
  return renderJunitXml(`${TOOL_NAME} ${report.instance}`, suitesOf(report));
}

function renderCtrf(report: Report): string {
  const tests: Test[] = suitesOf(report)
    .flatMap((s) => s.cases)
    .map((c) => ({
      name: `${c.suite} › ${c.name}`,
      status: c.status,
      duration: 0,
      suite: [c.suite],
      ...(c.message ? { message: c.message } : {}),
      ...(c.detail ? { trace: c.detail } : {}),
    }));
  const built = ctrfBuilder()
    .tool({ name: TOOL_NAME })
    .generatedBy(TOOL_NAME)
    .timestamp(report.generatedAt)
    .addTests(tests)
    .extra({
      instance: report.instance,
      requests: report.requests,
      summary: report.summary,
      coverage: report.coverage,
      // Not tests: what the report says beyond the verdict, so nothing is lost.
      notices: report.notices.flatMap((f) =>
        f.notices.map((n) => ({
          request: requestLine(f),
          code: n.code,
          location: n.location,
          message: n.message,
        })),
      ),
      operations: report.operations,
      neverExercised: report.neverExercised.map((n) => ({ id: n.id, likelihood: n.likelihood, how: n.how })),
      exercised: report.behaviours.filter((b) => b.count > 0).map((b) => ({ id: b.id, requests: b.count })),
    })
    .build();
  return `${JSON.stringify(built, null, 2)}\n`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
/** Markdown table cells of the fake's own words: no pipes or line breaks. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
/** Markdown table cells of what a client sent (paths, keys, messages that quote them): text only. */
const clientCell = markdownText;

function renderMarkdown(report: Report): string {
  const { coverage, requests, summary } = report;
  const lines: string[] = [`## Passportal fake: ${markdownText(report.instance)}`, ''];
  const verdict =
    summary.violatingRequests === 0
      ? '✅ no contract violations'
      : `❌ ${plural(summary.violatingRequests, 'request')} broke the contract`;
  const notListed = [
    summary.violationsNotListed > 0 ? `${summary.violationsNotListed} that broke the contract` : '',
    summary.noticesNotListed > 0 ? `${summary.noticesNotListed} with notices` : '',
  ].filter(Boolean);
  lines.push(
    `${verdict}; ${plural(summary.requestsWithNotices, 'request')} with notices; ` +
      `behaviours exercised: **${coverage.behaviours.exercised}/${coverage.behaviours.total} (${coverage.behaviours.percent}%)**; ` +
      `operations: ${coverage.operations.exercised}/${coverage.operations.total}.`,
    '',
    `${plural(requests.total, 'request')} since ${report.since}` +
      (requests.noLongerHeld > 0
        ? `; all are counted, though the journal (cleared by resets, bounded in size) no longer shows ${requests.noLongerHeld} of them`
        : '') +
      (notListed.length > 0 ? `; older requests no longer listed: ${notListed.join(', ')}` : '') +
      '.',
    '',
  );
  if (report.violations.length > 0) {
    lines.push('### Violations', '', '| request | location | message |', '|---|---|---|');
    for (const f of report.violations)
      for (const v of f.violations)
        lines.push(
          `| ${clientCell(requestLine(f))} | ${clientCell(v.location)} | ${clientCell(v.message)} |`,
        );
    lines.push('');
  }
  if (report.unmetExpectations.length > 0) {
    lines.push('### Expected violations that never came', '', '| declared | times | met |', '|---|---|---|');
    for (const u of report.unmetExpectations) {
      const where = u.session === undefined ? '' : ` (session ${u.session})`;
      lines.push(`| ${cell(describeExpectation(u) + where)} | ${u.times} | ${u.met} |`);
    }
    lines.push('');
  }
  if (report.expectedViolations.length > 0) {
    lines.push(
      '### Expected violations (declared beforehand)',
      '',
      '| request | location | message |',
      '|---|---|---|',
    );
    for (const f of report.expectedViolations)
      for (const v of f.violations)
        lines.push(`| ${cell(requestLine(f))} | ${cell(v.location)} | ${cell(v.message)} |`);
    lines.push('');
  }
  if (report.notices.length > 0) {
    lines.push('### Notices', '', '| request | code | location | message |', '|---|---|---|---|');
    for (const f of report.notices)
      for (const n of f.notices)
        lines.push(
          `| ${clientCell(requestLine(f))} | ${n.code} | ${clientCell(n.location)} | ${clientCell(n.message)} |`,
        );
    lines.push('');
  }
  lines.push('### Operations', '', '| operation | requests |', '|---|---|');
  for (const o of report.operations)
    lines.push(`| ${o.operationId} | ${o.count === 0 ? '**never**' : o.count} |`);
  lines.push('');
  if (report.neverExercised.length > 0) {
    lines.push(
      '### Never exercised (most likely to break a client first)',
      '',
      '| behaviour | likelihood | how to exercise it |',
      '|---|---|---|',
    );
    for (const n of report.neverExercised) lines.push(`| \`${n.id}\` | ${n.likelihood}/5 | ${cell(n.how)} |`);
    lines.push('');
  }
  lines.push('<details><summary>Behaviours exercised</summary>', '', '| behaviour | requests |', '|---|---|');
  for (const b of report.behaviours) if (b.count > 0) lines.push(`| \`${b.id}\` | ${b.count} |`);
  lines.push('', '</details>', '');
  return lines.join('\n');
}

/** The report as text in `format`. */
export function renderReport(report: Report, format: ReportFormat): string {
  switch (format) {
    case 'junit':
      return renderJunit(report);
    case 'ctrf':
      return renderCtrf(report);
    case 'markdown':
      return renderMarkdown(report);
    default:
      return `${JSON.stringify(report, null, 2)}\n`;
  }
}

/** The media type of a format's text. */
export function reportMediaType(format: ReportFormat): string {
  if (format === 'junit') return 'application/xml; charset=utf-8';
  if (format === 'markdown') return 'text/markdown; charset=utf-8';
  return 'application/json; charset=utf-8';
}
