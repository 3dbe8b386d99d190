import type { ViolationRecord } from './journal.js';

/**
 * The check a suite runs after each test: "my client sent nothing the contract forbids". Shared by
 * the programmatic API (`mock.expectNoViolations()`, `session.expectNoViolations()`) and the admin
 * client (`admin.expectNoViolations()`), so an in-process suite and one against a container fail
 * with the same message.
 *
 * It is meant for `afterEach`: a reset clears the journal with its findings, so a check that runs
 * once at the end of a suite that resets before each test sees only the last test's requests.
 */

/** Thrown when the journal holds violations: the message lists every one, `violations` holds them. */
export class ContractViolationError extends Error {
  readonly violations: ViolationRecord[];

  constructor(violations: ViolationRecord[], where?: string) {
    super(describeViolations(violations, where));
    this.name = 'ContractViolationError';
    this.violations = violations;
  }
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

/** Throws `ContractViolationError` when `records` is not empty. */
export function assertNoViolations(records: ViolationRecord[], where?: string): void {
  if (records.length > 0) throw new ContractViolationError(records, where);
}
