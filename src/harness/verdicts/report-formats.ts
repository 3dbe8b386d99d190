import { createRequire } from 'node:module';
import type { ReportBuilder as CtrfReportBuilder, Test } from 'ctrf';
import type { FindingRecord } from './coverage.js';
import { type JunitCase, renderJunitXml } from './junit-xml.js';
import { markdownText } from './markdown-text.js';
import { describeExpectation } from './no-violations.js';
import type { Report, ReportFormat } from './report.js';

/**
 * A report in the formats CI systems read (docs/reports.md), client text in each only as text:
 * - JUnit XML (`junit-xml.ts`, escaped character data only): one suite per vendor operation; each violation a failing
 *   test case named after the request and the location, its message and the request in the
 *   failure; each notice a skipped case (CI shows it, never fails on it) with what to do instead
 *   in its output; an operation with no finding one passing case. A last suite, "behaviour
 *   coverage", has one case per behaviour: passed when exercised, skipped (with how to) when not.
 * - CTRF JSON (the CTRF project's `ctrf` package): the same cases as CTRF tests.
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

function casesOf(report: Report): Case[] {
  const cases: Case[] = [];
  const suites = [...report.operations.map((o) => o.operationId), OTHER_SUITE];
  const suiteOf = (f: FindingRecord): string =>
    f.operationId && report.operations.some((o) => o.operationId === f.operationId)
      ? f.operationId
      : OTHER_SUITE;
  const declared = expectationCases(report, suiteOf);
  for (const suite of suites) {
    const violating = report.violations.filter((f) => suiteOf(f) === suite);
    const noticed = report.notices.filter((f) => suiteOf(f) === suite);
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
    for (const f of noticed) {
      for (const n of f.notices) {
        cases.push({
          suite,
          name: `notice ${n.code} ${requestLine(f)}: ${n.location}`,
          status: 'skipped',
          message: `${n.location}: ${n.message}`,
          detail: `${requestLine(f)}\n  notice ${n.code} at ${n.location}: ${n.message}`,
        });
      }
    }
    cases.push(...declared.expected.filter((c) => c.suite === suite));
    if (violating.length === 0 && suite !== OTHER_SUITE) {
      const count = report.operations.find((o) => o.operationId === suite)?.count ?? 0;
      cases.push({
        suite,
        name: 'no contract violations',
        status: count > 0 ? 'passed' : 'skipped',
        message: count > 0 ? `${count} requests` : 'never called',
      });
    }
  }
  // The verdict counts every violating request, listed or not: one failing case stands for those dropped.
  const notListed = report.summary.violationsNotListed;
  if (notListed > 0) {
    const message = `${plural(notListed, 'more request')} broke the contract; no longer listed (the report keeps the newest ${report.violations.length})`;
    cases.push({ suite: OTHER_SUITE, name: message, status: 'failed', message, detail: message });
  }
  cases.push(...declared.unmet);
  for (const b of report.behaviours) {
    const gap = report.neverExercised.find((n) => n.id === b.id);
    cases.push({
      suite: 'behaviour coverage',
      name: b.id,
      status: gap ? 'skipped' : 'passed',
      message: gap ? `never exercised: ${gap.how}` : `exercised by ${b.count} requests`,
      detail: gap ? `${gap.meaning}\nwhy: ${gap.why}\nhow: ${gap.how}` : `requests: ${b.requests.join(', ')}`,
    });
  }
  return cases;
}

function renderJunit(report: Report): string {
  return renderJunitXml(`${TOOL_NAME} ${report.instance}`, casesOf(report));
}

function renderCtrf(report: Report): string {
  const tests: Test[] = casesOf(report).map((c) => ({
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
