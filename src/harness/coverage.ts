import type { Violation } from '../errors.js';
import type { Notice } from '../notices.js';
import type { JournalEntry } from './journal.js';

/**
 * What an instance's reports read: how many requests it served and, per operation and per
 * behaviour of the catalogue, how many exercised it (with the newest request ids), plus the
 * findings (violations, notices) as light records. Unlike the journal it survives `reset` and a
 * fixture load, so a suite that resets before each test still gets one report for the whole run;
 * it is cleared by `DELETE /__admin/report` (`mock.clearReport()`), or with its instance. Counts
 * are exact however many entries the journal dropped; the findings kept are bounded by the
 * journal's entry limit, the oldest dropped first (the report says how many).
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
  readonly behaviours = new Map<string, Tally>();
  #findings: FindingRecord[] = [];
  /** Findings dropped to stay within `findingsLimit`. */
  findingsDropped = 0;

  /** `findingsLimit`: most findings kept (the journal's entry limit); `watchAll`: keep every request as a possible finding (response checks add violations later). */
  constructor(readonly findingsLimit: number) {}

  record(entry: JournalEntry, watchAll: boolean): void {
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
    if (!watchAll && entry.violations.length === 0 && entry.notices.length === 0) return;
    this.#findings.push({
      requestId: entry.id,
      time: new Date(entry.arrivedAt).toISOString(),
      method: entry.method,
      path: entry.path,
      status: entry.status,
      operationId: entry.operationId,
      violations: entry.violations,
      notices: entry.notices,
    });
    if (this.#findings.length > this.findingsLimit) {
      this.#findings.shift();
      this.findingsDropped++;
    }
  }

  /** The requests with violations, oldest first. */
  violations(): FindingRecord[] {
    return this.#findings.filter((f) => f.violations.length > 0);
  }

  /** The requests with notices, oldest first. */
  notices(): FindingRecord[] {
    return this.#findings.filter((f) => f.notices.length > 0);
  }

  clear(): void {
    this.requests = 0;
    this.firstRequestId = undefined;
    this.since = Date.now();
    this.operations.clear();
    this.behaviours.clear();
    this.#findings = [];
    this.findingsDropped = 0;
  }
}
