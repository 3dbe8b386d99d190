import { type BehaviourId, behaviourOf } from './behaviours.js';
import type { ExpectedViolationView } from './expected-violations.js';
import type { ViolationRecord } from './journal.js';
import { ContractViolationError, judgeCheck, sinceLastCheck } from './no-violations.js';
import type { Report } from './report.js';

/**
 * Matchers for vitest and Jest (`expect.extend(fakeMatchers)`; both take this shape): a failing
 * check fails the current test with every violation listed (request, location, message), the same
 * text `expectNoViolations()` throws, instead of a JSON diff of `toEqual([])`. They take anything
 * that reads violations or reports: `createMockServer()`'s server, one of its sessions, or
 * `createAdminClient()` for a fake in a container. See docs/reports.md.
 *
 *   afterEach(() => expect(mock).toHaveNoViolations());
 *   afterAll(() => expect(mock).toHaveExercised('tokenExpired', 'shortLastPage'));
 */

interface ReadsViolations {
  violations(): Promise<ViolationRecord[]>;
  /** The declared violations (the server, a session, the admin client): unmet ones fail too. */
  expectedViolations?(): ExpectedViolationView[] | Promise<ExpectedViolationView[]>;
  /** The report (the server, a session, the admin client): its exact counts judge the test too. */
  report?(): Promise<Report>;
}

interface ReadsReport {
  report(): Promise<Report>;
}

export interface MatcherResult {
  pass: boolean;
  message(): string;
}

function mustHave<T>(received: unknown, method: string): T {
  if (
    typeof received !== 'object' ||
    received === null ||
    typeof (received as Record<string, unknown>)[method] !== 'function'
  ) {
    throw new TypeError(
      `expected a mock server, a session or an admin client (something with ${method}()), got ${typeof received}`,
    );
  }
  return received as T;
}

export const fakeMatchers = {
  /**
   * Passes when the journal holds no violation the test did not declare, every declared one
   * came, and (for a target with a report) the report's exact counts gained no violating request
   * and no unmet declaration since the previous check of the same target, so a reset or a
   * fixture load inside the test hides nothing; fails listing each (request, location, message)
   * and each declaration never met.
   */
  async toHaveNoViolations(received: unknown): Promise<MatcherResult> {
    const target = mustHave<ReadsViolations>(received, 'violations');
    const records = await target.violations();
    const declared = (await target.expectedViolations?.()) ?? [];
    const unmet = declared.filter((d) => d.met < d.times);
    const hidden =
      typeof target.report === 'function' ? sinceLastCheck(target, await target.report()) : undefined;
    let failure: ContractViolationError | undefined;
    try {
      judgeCheck(records, undefined, unmet, hidden);
    } catch (error) {
      if (!(error instanceof ContractViolationError)) throw error;
      failure = error;
    }
    return {
      pass: failure === undefined,
      message: () => failure?.message ?? 'expected contract violations, but the client broke no rule',
    };
  },

  /**
   * Passes when the report counts every given behaviour (catalogue ids, docs/behaviours.md) as
   * exercised; fails naming those never met, each with how to make the fake do it.
   */
  async toHaveExercised(received: unknown, ...ids: BehaviourId[]): Promise<MatcherResult> {
    const unknown = ids.filter((id) => behaviourOf(id) === undefined);
    if (unknown.length > 0) {
      throw new TypeError(`not behaviour ids of the catalogue (docs/behaviours.md): ${unknown.join(', ')}`);
    }
    const report = await mustHave<ReadsReport>(received, 'report').report();
    const counts = new Map(report.behaviours.map((b) => [b.id, b.count]));
    const missing = ids.filter((id) => (counts.get(id) ?? 0) === 0);
    return {
      pass: missing.length === 0,
      message: () =>
        missing.length === 0
          ? `expected some of ${ids.join(', ')} never exercised, but each was`
          : [
              `the client never met ${missing.length === 1 ? 'this behaviour' : 'these behaviours'}:`,
              ...missing.map(
                (id) => `  ${id}: ${behaviourOf(id)?.meaning ?? ''}\n    how: ${behaviourOf(id)?.how ?? ''}`,
              ),
            ].join('\n'),
    };
  },
};
