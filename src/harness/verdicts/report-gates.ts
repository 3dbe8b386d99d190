import type { UnmetExpectation } from '../controls/expected-violations.js';
import { describeExpectation } from './no-violations.js';
import type { Report } from './report.js';

/**
 * The gates a report is held to: the `report` command's (`--fail-on`, `--min-coverage`) and the
 * Playwright fixture's after each test (`passportal-docs-fake/playwright`). From the report's
 * exact counts, never from its bounded lists. Imports only types and words, so a test runner's
 * worker loads nothing of the server to apply them.
 */

export const FAIL_ON = ['violations', 'notices', 'none'] as const;
export type FailOn = (typeof FAIL_ON)[number];

function describeUnmet(u: UnmetExpectation): string {
  return `${describeExpectation(u)}${u.session === undefined ? '' : ` (session ${u.session})`} met ${u.met} of ${u.times}`;
}

/** The gates a report fails, each as one line saying why; empty when it passes. */
export function failedGates(report: Report, failOn: FailOn, minCoverage: number | undefined): string[] {
  const failed: string[] = [];
  // Exact counts: the lists may be bounded, the summary never is.
  const { violatingRequests: violations, requestsWithNotices: notices, unmetExpectations } = report.summary;
  if (failOn !== 'none' && violations > 0) {
    failed.push(
      `--fail-on ${failOn}: ${violations} request${violations === 1 ? '' : 's'} broke the contract`,
    );
  }
  if (failOn !== 'none' && unmetExpectations > 0) {
    const named = report.unmetExpectations.map(describeUnmet).join('; ');
    failed.push(
      `--fail-on ${failOn}: expected a violation that never came (${unmetExpectations} declaration${unmetExpectations === 1 ? '' : 's'}${named === '' ? '' : `: ${named}`})`,
    );
  }
  if (failOn === 'notices' && notices > 0) {
    failed.push(
      `--fail-on notices: ${notices} request${notices === 1 ? '' : 's'} relied on something undocumented`,
    );
  }
  const { percent, exercised, total } = report.coverage.behaviours;
  if (minCoverage !== undefined && percent < minCoverage) {
    failed.push(`--min-coverage ${minCoverage}: behaviours exercised ${exercised}/${total} (${percent}%)`);
  }
  return failed;
}
