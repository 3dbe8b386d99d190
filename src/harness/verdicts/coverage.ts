import type { Violation } from '../../errors.js';
import type { Notice, NoticeCode } from '../../notices.js';
import type { BehaviourId } from './behaviours.js';
import { FindingList, type FindingsPool, findingsBytes, RECORD_BYTES } from './finding-list.js';
import { findingBase, type JournalEntry } from './journal.js';

/**
 * What an instance's reports read: how many requests it served and, per operation and per
 * behaviour of the catalogue, how many exercised it (with the newest request ids), plus the
 * findings (violations, notices) as light records. Unlike the journal it survives `reset` and a
 * fixture load, so a suite that resets before each test still gets one report for the whole run;
 * it is cleared by `DELETE /__admin/report` (`mock.clearReport()`), or with its instance. Counts
 * are exact however many entries the journal dropped, and the verdict reads only them: violating
 * requests, requests with notices and per notice code. The findings listed are two lists apart
 * (violations, notices: notices never push a violation out), each bounded by the journal's entry
 * limit and by the memory budget (finding-list.ts), the oldest dropped first and counted.
 */

/** Request ids kept per behaviour, newest last: enough to link each behaviour to examples. */
export const EXAMPLES_PER_BEHAVIOUR = 20;

/** A finding as a report shows it: the request (never its bodies or headers) and what was found. */
export interface FindingRecord {
  requestId: number;
  time: string;
  method: string;
  path: string;
  status?: number;
  operationId?: string;
  /** In a run's report: the session whose request it was. */
  session?: string;
  /** The journal entry's own lists: violations found later by response checks appear here too. */
  violations: Violation[];
  notices: Notice[];
}

export interface Tally {
  count: number;
  /** The newest request ids, oldest first. */
  requests: number[];
}

export class Coverage {
  /** Requests recorded since the tally started. */
  requests = 0;
  /** The journal id of the first request of the tally (undefined before any). */
  firstRequestId: number | undefined = undefined;
  /** When the tally started (milliseconds since the Unix epoch). */
  since = Date.now();
  readonly operations = new Map<string, number>();
  readonly behaviours = new Map<BehaviourId, Tally>();
  /** Requests that broke the contract since the tally started: exact, whatever the lists dropped. */
  violatingRequests = 0;
  /** Requests with at least one notice since the tally started: exact. */
  requestsWithNotices = 0;
  /** Per notice code, the requests with at least one notice of it: exact. */
  readonly noticeCodes = new Map<NoticeCode, number>();
  readonly #violations: FindingList<FindingRecord>;
  readonly #notices: FindingList<FindingRecord>;

  /**
   * `findingsLimit`: most records each list keeps (the journal's entry limit); `pool`: the
   * server's finding lists, within the `findings` share of its memory budget.
   */
  constructor(
    readonly findingsLimit: number,
    pool?: FindingsPool,
  ) {
    this.#violations = new FindingList('violations', findingsLimit, pool);
    this.#notices = new FindingList('notices', findingsLimit, pool);
  }

  record(entry: JournalEntry): void {
    this.requests++;
    this.firstRequestId ??= entry.id;
    if (entry.operationId)
      this.operations.set(entry.operationId, (this.operations.get(entry.operationId) ?? 0) + 1);
    for (const id of entry.behaviours) {
      let tally = this.behaviours.get(id);
      if (!tally) {
        tally = { count: 0, requests: [] };
        this.behaviours.set(id, tally);
      }
      tally.count++;
      tally.requests.push(entry.id);
      if (tally.requests.length > EXAMPLES_PER_BEHAVIOUR) tally.requests.shift();
    }
    if (entry.violations.length > 0) this.#addViolating(entry);
    if (entry.notices.length > 0) {
      this.requestsWithNotices++;
      const codes = new Set(entry.notices.map((n) => n.code));
      for (const code of codes) this.noticeCodes.set(code, (this.noticeCodes.get(code) ?? 0) + 1);
      this.#notices.push(recordOf(entry), RECORD_BYTES + findingsBytes(entry.notices));
    }
  }

  /**
   * Violations found after `entry` was recorded (response checks) that cost `bytes`: the request
   * becomes a violating one if it was not.
   */
  addViolations(entry: JournalEntry, first: boolean, bytes: number): void {
    if (first) this.#addViolating(entry);
    else this.#violations.grow((f) => f.requestId === entry.id, bytes);
  }

  #addViolating(entry: JournalEntry): void {
    this.violatingRequests++;
    this.#violations.push(recordOf(entry), RECORD_BYTES + findingsBytes(entry.violations));
  }

  /** The requests with violations still listed, oldest first. */
  violations(): FindingRecord[] {
    return this.#violations.values();
  }

  /** The requests with notices still listed, oldest first. */
  notices(): FindingRecord[] {
    return this.#notices.values();
  }

  /** Requests with violations no longer listed (dropped for the count or the memory budget). */
  get violationsDropped(): number {
    return this.#violations.dropped;
  }

  /** Requests with notices no longer listed. */
  get noticesDropped(): number {
    return this.#notices.dropped;
  }

  clear(): void {
    this.requests = 0;
    this.firstRequestId = undefined;
    this.since = Date.now();
    this.operations.clear();
    this.behaviours.clear();
    this.violatingRequests = 0;
    this.requestsWithNotices = 0;
    this.noticeCodes.clear();
    this.#violations.clear();
    this.#notices.clear();
  }

  /**
   * The exact counts as a state file keeps them (not the findings listed, nor the example request
   * ids: they point into the journal, which is not kept).
   */
  keep(): KeptCoverage {
    return {
      requests: this.requests,
      since: this.since,
      operations: [...this.operations],
      behaviours: [...this.behaviours].map(([id, t]) => [id, t.count]),
      violatingRequests: this.violatingRequests,
      requestsWithNotices: this.requestsWithNotices,
      noticeCodes: [...this.noticeCodes],
    };
  }

  /** Back to counts `keep` described: every finding they count is reported as no longer listed. */
  restore(kept: KeptCoverage): void {
    this.clear();
    this.requests = kept.requests;
    this.since = kept.since;
    for (const [id, n] of kept.operations) this.operations.set(id, n);
    for (const [id, count] of kept.behaviours) this.behaviours.set(id, { count, requests: [] });
    this.violatingRequests = kept.violatingRequests;
    this.requestsWithNotices = kept.requestsWithNotices;
    for (const [code, n] of kept.noticeCodes) this.noticeCodes.set(code, n);
    this.#violations.dropped = kept.violatingRequests;
    this.#notices.dropped = kept.requestsWithNotices;
  }

  /** Gives the lists' bytes back to the budget (the instance is going away). */
  dispose(): void {
    this.clear();
    this.#violations.dispose();
    this.#notices.dispose();
  }
}

/** A coverage's counts as a state file keeps them (`Coverage.keep`). */
export interface KeptCoverage {
  requests: number;
  since: number;
  operations: Array<[string, number]>;
  behaviours: Array<[BehaviourId, number]>;
  violatingRequests: number;
  requestsWithNotices: number;
  noticeCodes: Array<[NoticeCode, number]>;
}

function recordOf(entry: JournalEntry): FindingRecord {
  return {
    ...findingBase(entry),
    operationId: entry.operationId,
    violations: entry.violations,
    notices: entry.notices,
  };
}
