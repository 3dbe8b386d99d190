import type { ExpectedViolationView } from './expected-violations.js';
import type { ViolationRecord } from './journal.js';

/**
 * The check a suite runs after each test: "my client sent nothing the contract forbids". Shared by
 * the programmatic API (`mock.expectNoViolations()`, `session.expectNoViolations()`) and the admin
 * client (`admin.expectNoViolations()`), so an in-process suite and one against a container fail
 * with the same message.
 *
 * It is meant for `afterEach`: a reset clears the journal with its findings, so a check that runs
 * once at the end of a suite that resets before each test sees only the last test's requests.
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

  constructor(violations: ViolationRecord[], where?: string, unmet: ExpectedViolationView[] = []) {
    super(
      [
        ...(violations.length > 0 ? [describeViolations(violations, where)] : []),
        ...(unmet.length > 0 ? [describeUnmet(unmet, where)] : []),
      ].join('\n'),
    );
    this.name = 'ContractViolationError';
    this.violations = violations;
    this.unmetExpectations = unmet;
  }
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

/** Throws `ContractViolationError` when `records` or `unmet` is not empty. */
export function assertNoViolations(
  records: ViolationRecord[],
  where?: string,
  unmet: ExpectedViolationView[] = [],
): void {
  if (records.length > 0 || unmet.length > 0) throw new ContractViolationError(records, where, unmet);
}
