import type { UnmetExpectation } from '../controls/expected-violations.js';
import type { FindingRecord } from './coverage.js';
import { coverageParts, type Report, type ReportSummary } from './report.js';

/**
 * A run's report is made of parts, one per session (`partOf` its own report), added up
 * (`combineParts`): counts summed, coverage the union (a behaviour or operation exercised in any
 * session counts), findings each naming its session, lists bounded (the oldest dropped first,
 * counted). `reportOfRun` turns the whole into a report of the usual shape.
 */

/** A session of a run as its report lists it. */
export interface RunSession {
  id: string;
  /** False once deleted or expired (its share of the report is what it left). */
  live: boolean;
  requests: number;
}

/** A run's report in the making: what one session, or several added up, contributes. */
export interface RunPart {
  sessions: RunSession[];
  /** Sessions not listed in `sessions` (their counts are in the totals). */
  sessionsNotListed: number;
  /** Milliseconds since the Unix epoch: the earliest start of a session's tally. */
  since: number;
  requests: Report['requests'];
  findingsDropped: number;
  summary: ReportSummary;
  violations: FindingRecord[];
  expectedViolations: FindingRecord[];
  notices: FindingRecord[];
  unmetExpectations: UnmetExpectation[];
  operations: Map<string, number>;
  behaviours: Map<string, number>;
}

/** Most sessions a run's report lists by id. */
export const LISTED_SESSIONS = 1000;

const tagged = <T extends { session?: string }>(items: readonly T[], session: string): T[] =>
  items.map((item) => ({ ...item, session }));

/** The part of session `id`, from its own report. */
export function partOf(id: string, live: boolean, report: Report): RunPart {
  const { total } = report.requests;
  return {
    sessions: [{ id, live, requests: total }],
    sessionsNotListed: 0,
    since: Date.parse(report.since),
    // An ended session's journal is gone: none of its requests is held any more.
    requests: live ? { ...report.requests } : { total, held: 0, noLongerHeld: total },
    findingsDropped: report.findingsDropped,
    summary: { ...report.summary, noticeCodes: { ...report.summary.noticeCodes } },
    violations: tagged(report.violations, id),
    expectedViolations: tagged(report.expectedViolations, id),
    notices: tagged(report.notices, id),
    unmetExpectations: tagged(report.unmetExpectations, id),
    operations: new Map(report.operations.filter((o) => o.count > 0).map((o) => [o.operationId, o.count])),
    behaviours: new Map(report.behaviours.filter((b) => b.count > 0).map((b) => [b.id, b.count])),
  };
}

/** Sums of two tallies (every count either has). */
function sumCounts<T extends object>(a: T, b: T): T {
  const sum: Record<string, number> = { ...(a as Record<string, number>) };
  for (const [key, value] of Object.entries(b as Record<string, number>))
    if (typeof value === 'number') sum[key] = (sum[key] ?? 0) + value;
  return sum as T;
}

function sumMaps(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const sum = new Map(a);
  for (const [key, value] of b) sum.set(key, (sum.get(key) ?? 0) + value);
  return sum;
}

/** `a` then `b`, ordered by time, the newest `limit` kept; answers how many were dropped. */
function mergeFindings(
  a: FindingRecord[],
  b: FindingRecord[],
  limit: number,
): { list: FindingRecord[]; dropped: number } {
  const all = [...a, ...b].sort((x, y) => (x.time < y.time ? -1 : x.time > y.time ? 1 : 0));
  const dropped = Math.max(0, all.length - limit);
  return { list: all.slice(dropped), dropped };
}

/** Two parts added up; each list keeps its newest `limit` entries. */
export function combineParts(a: RunPart, b: RunPart, limit: number): RunPart {
  const violations = mergeFindings(a.violations, b.violations, limit);
  const expected = mergeFindings(a.expectedViolations, b.expectedViolations, limit);
  const notices = mergeFindings(a.notices, b.notices, limit);
  const unmetAll = [...a.unmetExpectations, ...b.unmetExpectations];
  const unmetDropped = Math.max(0, unmetAll.length - limit);
  const sessionsAll = [...a.sessions, ...b.sessions];
  const sessionsDropped = Math.max(0, sessionsAll.length - LISTED_SESSIONS);
  return {
    sessions: sessionsAll.slice(sessionsDropped),
    sessionsNotListed: a.sessionsNotListed + b.sessionsNotListed + sessionsDropped,
    since: Math.min(a.since, b.since),
    requests: sumCounts(a.requests, b.requests),
    findingsDropped:
      a.findingsDropped +
      b.findingsDropped +
      violations.dropped +
      expected.dropped +
      notices.dropped +
      unmetDropped,
    summary: {
      ...sumCounts(a.summary, b.summary),
      noticeCodes: sumCounts(a.summary.noticeCodes, b.summary.noticeCodes),
    },
    violations: violations.list,
    expectedViolations: expected.list,
    notices: notices.list,
    unmetExpectations: unmetAll.slice(unmetDropped),
    operations: sumMaps(a.operations, b.operations),
    behaviours: sumMaps(a.behaviours, b.behaviours),
  };
}

/** A run's report in the shape of an instance's (with `run` and `sessions`). */
export function reportOfRun(
  label: string,
  part: RunPart | undefined,
  operationIds: readonly string[],
): Report & { run: string; sessions: RunSession[]; sessionsNotListed: number } {
  const now = Date.now();
  const parts = coverageParts(
    // Request ids are each session's own: a run's findings name their session instead.
    (id) => ({ count: part?.behaviours.get(id) ?? 0, requests: [] }),
    operationIds,
    (id) => part?.operations.get(id) ?? 0,
  );
  return {
    instance: `run ${label}`,
    run: label,
    sessions: part?.sessions ?? [],
    sessionsNotListed: part?.sessionsNotListed ?? 0,
    generatedAt: new Date(now).toISOString(),
    since: new Date(part?.since ?? now).toISOString(),
    requests: part?.requests ?? { total: 0, held: 0, noLongerHeld: 0 },
    findingsDropped: part?.findingsDropped ?? 0,
    summary: part?.summary ?? {
      violatingRequests: 0,
      requestsWithNotices: 0,
      expectedViolations: 0,
      unmetExpectations: 0,
      noticeCodes: {},
      violationsNotListed: 0,
      noticesNotListed: 0,
    },
    violations: part?.violations ?? [],
    expectedViolations: part?.expectedViolations ?? [],
    unmetExpectations: part?.unmetExpectations ?? [],
    notices: part?.notices ?? [],
    ...parts,
  };
}

/** A run's report as `reportOfRun` makes it (and its JSON answers it). */
export type RunReport = ReturnType<typeof reportOfRun>;

/**
 * The part a run's report stands for, read back from the report (a fleet replica's answer for the
 * run's sessions it holds): its sessions, counts, findings (already naming their sessions) and
 * the operations and behaviours exercised.
 */
export function partOfRunReport(report: RunReport): RunPart {
  return {
    sessions: report.sessions,
    sessionsNotListed: report.sessionsNotListed,
    since: Date.parse(report.since),
    requests: { ...report.requests },
    findingsDropped: report.findingsDropped,
    summary: { ...report.summary, noticeCodes: { ...report.summary.noticeCodes } },
    violations: report.violations,
    expectedViolations: report.expectedViolations,
    notices: report.notices,
    unmetExpectations: report.unmetExpectations,
    operations: new Map(report.operations.filter((o) => o.count > 0).map((o) => [o.operationId, o.count])),
    behaviours: new Map(report.behaviours.filter((b) => b.count > 0).map((b) => [b.id, b.count])),
  };
}

/**
 * One report of run `label` from several reports of it (each replica's share of a fleet): the
 * parts added up as a run's sessions' are, each list keeping its newest `limit` entries.
 */
export function combineRunReports(
  label: string,
  reports: readonly RunReport[],
  operationIds: readonly string[],
  limit: number,
): RunReport {
  let whole: RunPart | undefined;
  for (const report of reports) {
    const part = partOfRunReport(report);
    whole = whole === undefined ? part : combineParts(whole, part, limit);
  }
  return reportOfRun(label, whole, operationIds);
}
