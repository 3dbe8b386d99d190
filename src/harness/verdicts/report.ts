import type { UnmetExpectation } from '../controls/expected-violations.js';
import type { Instance } from '../instance/instance.js';
import { BEHAVIOURS, type Behaviour, type BehaviourGroup, type BehaviourId } from './behaviours.js';
import type { FindingRecord } from './coverage.js';
import { splitFindings } from './verdict-tally.js';

/**
 * The verdict of one instance (the root or a session: each holds only its own requests) after a
 * suite: its findings (violations, notices) and its coverage of the vendor's operations and
 * behaviours. Plain data (the JSON format); `report-formats.ts` renders it as JUnit XML, CTRF JSON
 * and Markdown. Built from the instance's `Coverage` tally, which survives resets.
 */

export const REPORT_FORMATS = ['json', 'junit', 'ctrf', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Whether `format` is one a report is rendered in. */
export function isReportFormat(format: string): format is ReportFormat {
  return (REPORT_FORMATS as readonly string[]).includes(format);
}

export interface BehaviourCoverage {
  id: string;
  group: BehaviourGroup;
  meaning: string;
  likelihood: Behaviour['likelihood'];
  count: number;
  /** The newest request ids that exercised it (journal ids; the journal may no longer hold old ones). */
  requests: number[];
}

export interface NeverExercised {
  id: string;
  group: BehaviourGroup;
  likelihood: Behaviour['likelihood'];
  meaning: string;
  why: string;
  /** How to exercise it with the fake. */
  how: string;
}

/**
 * The exact counts of the tally, which the verdict reads (the Markdown verdict line, the JUnit and
 * CTRF failures, the `report` command's gates): never the lists, which are bounded.
 */
export interface ReportSummary {
  /** Requests that broke the contract since `since` (violations nobody declared). */
  violatingRequests: number;
  /** Requests with at least one notice since `since`. */
  requestsWithNotices: number;
  /** Requests whose violations the suite declared beforehand (not failures). */
  expectedViolations: number;
  /** Declarations never met: the suite expected a violation that never came (failures). */
  unmetExpectations: number;
  /** Per notice code: the requests with at least one notice of it. */
  noticeCodes: Record<string, number>;
  /** Of `violatingRequests`, how many `violations` no longer lists (dropped for its bounds). */
  violationsNotListed: number;
  /** Of `requestsWithNotices`, how many `notices` no longer lists. */
  noticesNotListed: number;
}

export interface Report {
  /** `root`, or `session <id>`. */
  instance: string;
  generatedAt: string;
  /** When the tally started: the instance's creation, or the last `DELETE /__admin/report`. */
  since: string;
  requests: {
    /** Requests served since then. */
    total: number;
    /** Of those, how many the journal still holds. */
    held: number;
    /** How many the journal no longer holds (dropped for its bounds, or cleared by a reset). */
    noLongerHeld: number;
  };
  /** The exact counts the verdict reads. */
  summary: ReportSummary;
  /** Findings no longer listed (`violationsNotListed` and `noticesNotListed` together). */
  findingsDropped: number;
  /** The requests that broke the contract, oldest first (undeclared violations only). */
  violations: FindingRecord[];
  /** The requests whose violations the suite declared beforehand, oldest first (not failures). */
  expectedViolations: FindingRecord[];
  /** Declarations never met: a violation the suite expected never came (failures). */
  unmetExpectations: UnmetExpectation[];
  /** The requests that relied on something the documentation does not promise. */
  notices: FindingRecord[];
  operations: { operationId: string; count: number }[];
  behaviours: BehaviourCoverage[];
  coverage: {
    operations: { exercised: number; total: number };
    /** Behaviours exercised, of the catalogue. */
    behaviours: { exercised: number; total: number; percent: number };
  };
  /** The behaviours never exercised, most likely to break a client in production first. */
  neverExercised: NeverExercised[];
}

/**
 * The report of `instance`. `operationIds`: the vendor operations of the spec (the admin API's
 * are not the client's), listed exercised or not.
 */
export function buildReport(instance: Instance, operationIds: readonly string[]): Report {
  const { coverage, journal, verdict } = instance;
  const findings = splitFindings(coverage.violations());
  const stillUnmet = instance.expectations.unmet();
  const first = coverage.firstRequestId;
  const held = first === undefined ? 0 : journal.list({ since: first - 1 }).length;
  const parts = coverageParts(
    (id) => {
      const tally = coverage.behaviours.get(id);
      return { count: tally?.count ?? 0, requests: tally ? [...tally.requests] : [] };
    },
    operationIds,
    (id) => coverage.operations.get(id) ?? 0,
  );
  return {
    instance: instance.id === undefined ? 'root' : `session ${instance.id}`,
    generatedAt: new Date().toISOString(),
    since: new Date(coverage.since).toISOString(),
    requests: { total: coverage.requests, held, noLongerHeld: coverage.requests - held },
    summary: {
      violatingRequests: verdict.violatingRequests,
      requestsWithNotices: verdict.requestsWithNotices,
      expectedViolations: verdict.expectedViolations,
      unmetExpectations: verdict.unmetDiscarded + stillUnmet.length,
      noticeCodes: Object.fromEntries(coverage.noticeCodes),
      violationsNotListed: coverage.violationsDropped,
      noticesNotListed: coverage.noticesDropped,
    },
    findingsDropped: coverage.violationsDropped + coverage.noticesDropped,
    violations: findings.violations,
    expectedViolations: findings.expected,
    unmetExpectations: [...verdict.unmet(), ...stillUnmet],
    notices: coverage.notices(),
    ...parts,
  };
}

/** What a report says of coverage, from each behaviour's and each operation's counts. */
export function coverageParts(
  behaviourTally: (id: BehaviourId) => { count: number; requests: number[] },
  operationIds: readonly string[],
  operationCount: (id: string) => number,
): Pick<Report, 'operations' | 'behaviours' | 'coverage' | 'neverExercised'> {
  const behaviours: BehaviourCoverage[] = BEHAVIOURS.map((b) => ({
    id: b.id,
    group: b.group,
    meaning: b.meaning,
    likelihood: b.likelihood,
    ...behaviourTally(b.id),
  }));
  const exercised = behaviours.filter((b) => b.count > 0).length;
  const neverExercised = BEHAVIOURS.filter((_, i) => behaviours[i]?.count === 0)
    // Stable: equally likely ones keep catalogue order.
    .sort((a, b) => b.likelihood - a.likelihood)
    .map(({ id, group, likelihood, meaning, why, how }) => ({ id, group, likelihood, meaning, why, how }));
  const operations = operationIds.map((operationId) => ({ operationId, count: operationCount(operationId) }));
  return {
    operations,
    behaviours,
    coverage: {
      operations: { exercised: operations.filter((o) => o.count > 0).length, total: operations.length },
      behaviours: {
        exercised,
        total: behaviours.length,
        percent: behaviours.length === 0 ? 100 : Math.floor((exercised * 1000) / behaviours.length) / 10,
      },
    },
    neverExercised,
  };
}
