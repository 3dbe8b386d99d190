import type { ExpectedViolationView } from './expected-violations.js';
import type { ViolationRecord } from './journal.js';
import type { Report } from './report.js';

/**
 * The check a suite runs after each test: "my client sent nothing the contract forbids". Shared by
 * the programmatic API (`mock.expectNoViolations()`, `session.expectNoViolations()`) and the admin
 * client (`admin.expectNoViolations()`), so an in-process suite and one against a container fail
 * with the same message.
 *
 * It is meant for `afterEach`. It reads the journal (to list what broke) and, where the target
 * has a report, the report's exact counts, compared with those of the previous check of the same
 * target (`sinceLastCheck`): a reset, a fixture load or `clearRequests()` inside a test empties
 * the journal, not the counts, so a test that violates and then resets still fails, and so does
 * one whose declaration was discarded unmet. The first check of a target counts from the
 * report's start (the instance's creation, or its last `clearReport()`).
 * Violations the test declared beforehand (`expectViolation`) pass; a declaration still unmet
 * fails the check the same way (the test expected a violation that never came).
 */

/**
 * Thrown when the journal holds violations, or a declared violation never came: the message lists
 * every one, `violations` and `unmetExpectations` hold them.
 */
export class ContractViolationError extends Error {
  readonly violations: ViolationRecord[];
  readonly unmetExpectations: ExpectedViolationView[];

  constructor(
    violations: ViolationRecord[],
    where?: string,
    unmet: ExpectedViolationView[] = [],
    hidden?: HiddenFindings,
  ) {
    super(
      [
        ...(violations.length > 0 ? [describeViolations(violations, where)] : []),
        ...(unmet.length > 0 ? [describeUnmet(unmet, where)] : []),
        ...(hidden ? describeHidden(hidden, where) : []),
      ].join('\n'),
    );
    this.name = 'ContractViolationError';
    this.violations = violations;
    this.unmetExpectations = unmet;
  }
}

/** The exact counts of a report at one check. */
interface CheckPoint {
  since: string;
  violatingRequests: number;
  unmetExpectations: number;
}

/** What the exact counts found since the previous check that the journal no longer shows. */
export interface HiddenFindings {
  /** Requests that broke the contract since the previous check. */
  violatingRequests: number;
  /** Declarations discarded or left unmet since the previous check. */
  unmetExpectations: number;
  /** The newest of those requests the report still lists, oldest first. */
  listed: ViolationRecord[];
}

/** The previous check of each target (a server, a session, an admin client, an instance). */
const lastChecks = new WeakMap<object, CheckPoint>();

/**
 * What the report's exact counts gained since the previous check of `target` (from the report's
 * start at its first check, and after the report was cleared); records this check.
 */
export function sinceLastCheck(
  target: object,
  report: Pick<Report, 'since' | 'summary' | 'violations' | 'unmetExpectations'>,
): HiddenFindings | undefined {
  // A report without exact counts (not the fake's): the journal alone judges.
  if (typeof report?.summary?.violatingRequests !== 'number') return undefined;
  const now: CheckPoint = {
    since: report.since,
    violatingRequests: report.summary.violatingRequests,
    unmetExpectations: report.summary.unmetExpectations,
  };
  const before = lastChecks.get(target);
  lastChecks.set(target, now);
  const base = before?.since === now.since ? before : { violatingRequests: 0, unmetExpectations: 0 };
  const violatingRequests = Math.max(0, now.violatingRequests - base.violatingRequests);
  return {
    violatingRequests,
    // Fewer than before: a declaration unmet at the last check was met since.
    unmetExpectations: Math.max(0, now.unmetExpectations - base.unmetExpectations),
    listed:
      violatingRequests === 0 || !Array.isArray(report.violations)
        ? []
        : report.violations.slice(-violatingRequests),
  };
}

/**
 * The verdict of one check: the journal's violations and the unmet declarations it lists, and
 * what the exact counts found beyond them (`hidden`, when the target has a report); throws
 * `ContractViolationError` when any is not empty.
 */
export function judgeCheck(
  records: ViolationRecord[],
  where: string | undefined,
  unmet: ExpectedViolationView[],
  hidden: HiddenFindings | undefined,
): void {
  const beyond =
    hidden !== undefined &&
    (hidden.violatingRequests > records.length || hidden.unmetExpectations > unmet.length);
  if (records.length > 0 || unmet.length > 0 || beyond)
    throw new ContractViolationError(records, where, unmet, beyond ? hidden : undefined);
}

/** The lines for what the counts found and the journal no longer shows. */
function describeHidden(hidden: HiddenFindings, where?: string): string[] {
  const at = where ? ` (${where})` : '';
  const lines: string[] = [];
  if (hidden.violatingRequests > 0)
    lines.push(
      `the report counts ${hidden.violatingRequests} ${hidden.violatingRequests === 1 ? 'request' : 'requests'} that broke the contract since the last check${at}, ` +
        'some of which the journal no longer holds (a reset, a fixture load or clearRequests() inside the test, or its bounds); the newest the report lists:',
      ...hidden.listed.flatMap((r) => [
        `  #${r.requestId} ${r.method} ${r.path} -> ${r.status === undefined ? 'no answer' : r.status}`,
        ...r.violations.map((v) => `    ${v.location}: ${v.message}`),
      ]),
    );
  if (hidden.unmetExpectations > 0)
    lines.push(
      `the report counts ${hidden.unmetExpectations} declared ${hidden.unmetExpectations === 1 ? 'violation' : 'violations'} never met since the last check${at} (discarded unmet by a reset or a fixture load, or still waiting)`,
    );
  return lines;
}

/** `POST /api/v2/documents at body/colour`: a declaration in one line, for messages. */
export function describeExpectation(e: Pick<ExpectedViolationView, 'method' | 'path' | 'location'>): string {
  const what = `${e.method ?? 'any method'} ${e.path ?? 'any path'}`;
  return e.location === undefined ? what : `${what} at ${e.location}`;
}

/** One line per declaration never met: what it expected, how often it came. */
export function describeUnmet(unmet: readonly ExpectedViolationView[], where?: string): string {
  const count = unmet.length === 1 ? '1 declared violation' : `${unmet.length} declared violations`;
  const lines = [`expected a violation that never came: ${count}${where ? ` (${where})` : ''}:`];
  for (const u of unmet)
    lines.push(`  ${describeExpectation(u)}: met ${u.met} of ${u.times} times (declaration ${u.id})`);
  return lines.join('\n');
}

/**
 * One line per request (journal id, method, path, status), then one indented line per violation
 * (location: message). `where` names the fake or session the journal belongs to.
 */
export function describeViolations(records: readonly ViolationRecord[], where?: string): string {
  const count = records.length === 1 ? '1 request' : `${records.length} requests`;
  const lines = [`the client broke the contract in ${count}${where ? ` (${where})` : ''}:`];
  for (const record of records) {
    const status = record.status === undefined ? 'no answer' : String(record.status);
    lines.push(`  #${record.requestId} ${record.method} ${record.path} -> ${status}`);
    for (const violation of record.violations) lines.push(`    ${violation.location}: ${violation.message}`);
  }
  return lines.join('\n');
}
