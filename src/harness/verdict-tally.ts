import { jsonBytes, type MemoryAccount } from '../memory-budget.js';
import type { FindingRecord } from './coverage.js';
import {
  hasExpected,
  hasUnexpected,
  isExpected,
  type UnmetExpectation,
  unexpectedOf,
} from './expected-violations.js';
import type { JournalEntry } from './journal.js';

/**
 * What an instance's verdict counts besides its coverage, exactly, whatever the journal or the
 * findings lists dropped: the requests that broke the contract (undeclared violations), those
 * with notices, those whose violations the suite declared (expected), and the declarations that
 * were never met. Like the coverage it survives reset and fixture loads, and is cleared with the
 * report (`DELETE /__admin/report`). The unmet declarations a reset discarded are listed (the
 * newest `limit`, each counted in the memory budget as journal data); their count stays exact.
 */

export class VerdictTally {
  violatingRequests = 0;
  requestsWithNotices = 0;
  expectedViolations = 0;
  /** Declarations discarded unmet (by a reset, a fixture load, the session's end). */
  unmetDiscarded = 0;
  #unmet: UnmetExpectation[] = [];
  #bytes = 0;

  constructor(
    readonly limit: number,
    readonly budget?: MemoryAccount,
  ) {}

  /** Counts a journaled request. */
  record(entry: Pick<JournalEntry, 'violations' | 'notices'>): void {
    if (hasUnexpected(entry.violations)) this.violatingRequests++;
    if (hasExpected(entry.violations)) this.expectedViolations++;
    if (entry.notices.length > 0) this.requestsWithNotices++;
  }

  /**
   * Violations were added to a journaled request after it was counted (response checks);
   * `wasViolating`: whether it had undeclared ones before.
   */
  violationsAdded(entry: Pick<JournalEntry, 'violations'>, wasViolating: boolean): void {
    if (!wasViolating && hasUnexpected(entry.violations)) this.violatingRequests++;
  }

  /** Declarations dropped before they were met (a reset, a load, the session's end). */
  discard(unmet: readonly UnmetExpectation[]): void {
    for (const record of unmet) {
      this.unmetDiscarded++;
      if (this.limit <= 0) continue;
      const bytes = jsonBytes(record);
      this.#unmet.push(record);
      this.#bytes += bytes;
      this.budget?.add('journals', bytes);
      if (this.#unmet.length > this.limit) {
        const dropped = this.#unmet.shift() as UnmetExpectation;
        const freed = jsonBytes(dropped);
        this.#bytes -= freed;
        this.budget?.release('journals', freed);
      }
    }
  }

  /** The discarded unmet declarations still listed, oldest first. */
  unmet(): UnmetExpectation[] {
    return [...this.#unmet];
  }

  clear(): void {
    this.violatingRequests = 0;
    this.requestsWithNotices = 0;
    this.expectedViolations = 0;
    this.unmetDiscarded = 0;
    this.#unmet = [];
    this.budget?.release('journals', this.#bytes);
    this.#bytes = 0;
  }

  /** The counts as a state file keeps them, with the unmet declarations listed. */
  keep(): KeptVerdict {
    const { violatingRequests, requestsWithNotices, expectedViolations, unmetDiscarded } = this;
    return {
      violatingRequests,
      requestsWithNotices,
      expectedViolations,
      unmetDiscarded,
      unmet: this.unmet(),
    };
  }

  /** Back to counts `keep` described. */
  restore(kept: KeptVerdict): void {
    this.clear();
    this.discard(kept.unmet);
    this.violatingRequests = kept.violatingRequests;
    this.requestsWithNotices = kept.requestsWithNotices;
    this.expectedViolations = kept.expectedViolations;
    this.unmetDiscarded = kept.unmetDiscarded;
  }

  /** What the listed records cost the memory budget. */
  get bytes(): number {
    return this.#bytes;
  }
}

/** A tally as a state file keeps it (`VerdictTally.keep`). */
export interface KeptVerdict {
  violatingRequests: number;
  requestsWithNotices: number;
  expectedViolations: number;
  unmetDiscarded: number;
  unmet: UnmetExpectation[];
}

/**
 * The findings of a report split: the requests with undeclared violations (listing those only),
 * and those with declared ones (listing those only). A request with both is in each list.
 */
export function splitFindings(records: readonly FindingRecord[]): {
  violations: FindingRecord[];
  expected: FindingRecord[];
} {
  const violations: FindingRecord[] = [];
  const expected: FindingRecord[] = [];
  for (const f of records) {
    if (hasUnexpected(f.violations))
      violations.push(hasExpected(f.violations) ? { ...f, violations: unexpectedOf(f.violations) } : f);
    if (hasExpected(f.violations)) expected.push({ ...f, violations: f.violations.filter(isExpected) });
  }
  return { violations, expected };
}
