import { ApiError } from '../../errors.js';
import { jsonBytes, type MemoryAccount } from '../../memory-budget.js';
import type { UnmetExpectation } from '../controls/expected-violations.js';
import type { Instance } from '../instance/instance.js';
import type { FindingRecord } from './coverage.js';
import { buildReport, isReportFormat, type Report, type ReportFormat } from './report.js';
import { renderReport, reportMediaType } from './report-formats.js';
import {
  combineParts,
  combineRunReports,
  partOf,
  type RunPart,
  type RunReport,
  reportOfRun,
} from './run-part.js';

export type { RunPart } from './run-part.js';

/**
 * The reports of runs: sessions created with a run label (`POST /__admin/sessions {"run": ...}`)
 * are reported together by the root (`GET /__admin/report?run=<label>`), the live ones from what
 * they hold, the deleted or expired ones from what they left: when a session of a run ends, its
 * report (counts, coverage, findings) is folded into its run's record, which stays until the
 * run's report is cleared (`DELETE /__admin/report?run=<label>`).
 *
 * Bounds (docs/reports.md): the records count against the memory budget as journal data (the
 * journals make room for them), and all runs' records together hold at most a quarter of the
 * journals' share; past it, the oldest
 * findings of the run used longest ago are dropped first (the report says how many; its counts
 * stay exact, as counts are kept apart from the lists). At most `MAX_KEPT_RUNS` runs are kept:
 * past it, the run used longest ago that has no live session is forgotten whole.
 */

/** A run label: 1-128 characters of letters, digits and `._:@/-`. */
export const RUN_LABEL = /^[A-Za-z0-9._:@/-]{1,128}$/;

/** Most runs kept at once (those with live sessions are never forgotten). */
export const MAX_KEPT_RUNS = 256;

/** The part of the journals' share of the memory budget that runs' records may hold. */
export const KEPT_RECORDS_SHARE = 0.25;

/** A live session of a run: its id and what it holds. */
interface LiveSession {
  id: string;
  instance: Instance;
}

interface Run {
  label: string;
  live: Map<string, LiveSession>;
  /** What the run's ended sessions left, folded together; undefined before any ended. */
  ended: RunPart | undefined;
  /** What `ended` costs the memory budget. */
  bytes: number;
  /** When the run last changed (for dropping the oldest first). */
  touched: number;
}

export interface RunReportsOptions {
  /** The vendor operations of the spec, which reports list exercised or not. */
  operationIds: readonly string[];
  /** Most findings each list of a run's record keeps (the journal's entry limit). */
  findingsLimit: number;
  budget?: MemoryAccount;
}

/** Told of what changes a run's record of its ended sessions (a state file keeps the records). */
export interface RunObserver {
  /** A session of run `label` ended: `part` is what it left, folded into the run's record. */
  ended(label: string, part: RunPart): void;
  /** The run's report was cleared. */
  cleared(label: string): void;
}

export class RunReports {
  readonly #runs = new Map<string, Run>();
  /** Told of ended sessions' parts and clears (set by a state file). */
  observer: RunObserver | undefined = undefined;
  /** Session id → its run. */
  readonly #sessions = new Map<string, Run>();
  readonly #options: RunReportsOptions;
  #bytes = 0;
  #clock = 0;

  constructor(options: RunReportsOptions) {
    this.#options = options;
  }

  /** A new session of run `label`. */
  join(label: string, id: string, instance: Instance): void {
    const run = this.#run(label);
    run.live.set(id, { id, instance });
    this.#sessions.set(id, run);
    this.#touch(run);
    // Only now, with its live session, so a new run is never the one forgotten.
    this.#forgetOldRuns();
  }

  /** The run of a session (undefined when it has none). */
  runOf(id: string): string | undefined {
    return this.#sessions.get(id)?.label;
  }

  /**
   * A session ends (deleted or expired; call before its instance is disposed): its report is
   * folded into its run's record.
   */
  leave(id: string): void {
    const run = this.#sessions.get(id);
    const session = run?.live.get(id);
    if (run === undefined || session === undefined) return;
    this.#sessions.delete(id);
    run.live.delete(id);
    const part = partOf(id, false, buildReport(session.instance, this.#options.operationIds));
    this.observer?.ended(run.label, part);
    this.#fold(run, part);
  }

  /** What an ended session of run `label` left, read back from a state file. */
  restoreEnded(label: string, part: RunPart): void {
    this.#fold(this.#run(label), part);
  }

  /** The records of the runs' ended sessions (a state file's snapshot writes them). */
  endedRecords(): Array<[string, RunPart]> {
    const records: Array<[string, RunPart]> = [];
    for (const run of this.#runs.values()) if (run.ended) records.push([run.label, run.ended]);
    return records;
  }

  #fold(run: Run, part: RunPart): void {
    const limit = this.#options.findingsLimit;
    this.#setEnded(run, run.ended === undefined ? part : combineParts(run.ended, part, limit));
    this.#touch(run);
    this.#trim();
  }

  /** The live instances of a run (to wait for their pending checks before a report). */
  liveInstances(label: string): Instance[] {
    return [...(this.#runs.get(label)?.live.values() ?? [])].map((s) => s.instance);
  }

  /** The run's report; undefined for a run no session was ever labelled with (or cleared). */
  report(label: string): Report | undefined {
    const run = this.#runs.get(label);
    if (run === undefined) return undefined;
    const limit = this.#options.findingsLimit;
    let whole = run.ended;
    for (const { id, instance } of run.live.values()) {
      const part = partOf(id, true, buildReport(instance, this.#options.operationIds));
      whole = whole === undefined ? part : combineParts(whole, part, limit);
    }
    return reportOfRun(label, whole, this.#options.operationIds);
  }

  /**
   * Forgets the run's report: what its ended sessions left, and what its live sessions' reports
   * hold. Answers false for an unknown run.
   */
  clear(label: string): boolean {
    const run = this.#runs.get(label);
    if (run === undefined) return false;
    this.observer?.cleared(label);
    for (const { instance } of run.live.values()) instance.clearReport();
    this.#setEnded(run, undefined);
    if (run.live.size === 0) this.#runs.delete(label);
    return true;
  }

  /** The labels of the runs kept, for messages. */
  labels(): string[] {
    return [...this.#runs.keys()];
  }

  /** What the runs' records cost the memory budget. */
  get bytes(): number {
    return this.#bytes;
  }

  #run(label: string): Run {
    let run = this.#runs.get(label);
    if (run === undefined) {
      run = { label, live: new Map(), ended: undefined, bytes: 0, touched: 0 };
      this.#runs.set(label, run);
    }
    return run;
  }

  #touch(run: Run): void {
    run.touched = ++this.#clock;
  }

  #setEnded(run: Run, ended: RunPart | undefined): void {
    const bytes = ended === undefined ? 0 : partBytes(ended);
    this.#count(bytes - run.bytes);
    run.ended = ended;
    run.bytes = bytes;
  }

  #count(delta: number): void {
    this.#bytes += delta;
    this.#options.budget?.add('journals', delta);
  }

  /**
   * Past `MAX_KEPT_RUNS`, forgets the idle runs (no live session) touched longest ago; a run with
   * a live session is never forgotten (so more than `MAX_KEPT_RUNS` may be kept while they live).
   */
  #forgetOldRuns(): void {
    if (this.#runs.size <= MAX_KEPT_RUNS) return;
    const idle = [...this.#runs.values()]
      .filter((r) => r.live.size === 0)
      .sort((a, b) => a.touched - b.touched);
    for (const run of idle) {
      if (this.#runs.size <= MAX_KEPT_RUNS) return;
      this.#setEnded(run, undefined);
      this.#runs.delete(run.label);
    }
  }

  /** Drops the oldest findings of the runs used longest ago until the records fit their bound. */
  #trim(): void {
    const budget = this.#options.budget;
    if (budget === undefined) return;
    const bound = Math.floor(budget.limit('journals') * KEPT_RECORDS_SHARE);
    // Within their bound, the journals' pool makes room for them by trimming journals (oldest
    // entries of the largest journal first) on the next request.
    const over = () => this.#bytes > bound;
    if (!over()) return;
    const runs = [...this.#runs.values()].sort((a, b) => a.touched - b.touched);
    for (const run of runs) {
      const ended = run.ended;
      if (ended === undefined) continue;
      while (over()) {
        const dropped = longestList(ended)?.shift();
        if (dropped === undefined) break;
        ended.findingsDropped++;
        const bytes = jsonBytes(dropped);
        run.bytes -= bytes;
        this.#count(-bytes);
      }
      if (!over()) return;
    }
  }
}

/** The list of a record with the most entries (findings, unmet declarations, sessions excepted). */
function longestList(part: RunPart): Array<FindingRecord | UnmetExpectation> | undefined {
  const lists: Array<Array<FindingRecord | UnmetExpectation>> = [
    part.notices,
    part.expectedViolations,
    part.violations,
    part.unmetExpectations,
  ];
  let longest: Array<FindingRecord | UnmetExpectation> | undefined;
  for (const list of lists)
    if (list.length > 0 && (longest === undefined || list.length > longest.length)) longest = list;
  return longest;
}

/** About what a record costs: its lists as JSON, and its tallies. */
function partBytes(part: RunPart): number {
  return (
    512 +
    jsonBytes(part.sessions) +
    jsonBytes(part.violations) +
    jsonBytes(part.expectedViolations) +
    jsonBytes(part.notices) +
    jsonBytes(part.unmetExpectations) +
    32 * (part.operations.size + part.behaviours.size)
  );
}

/**
 * `runNotFound`, naming the runs that are kept: `runs`' own, then `elsewhere` (the operator's view
 * of every tenant's runs, as `tenant/label`); a tenant's answer names its own runs only.
 */
function unknownRun(runs: RunReports, label: string, elsewhere: readonly string[] = []): ApiError {
  const known = [...runs.labels(), ...elsewhere];
  const shown = known.slice(0, 10).map((l) => JSON.stringify(l));
  return new ApiError(
    'runNotFound',
    `no run ${JSON.stringify(label)}: no session was created with that run label, or its report was cleared` +
      (known.length === 0
        ? ' (no runs are kept)'
        : ` (runs kept: ${shown.join(', ')}${known.length > 10 ? ', ...' : ''})`),
  );
}

/** The report of run `label` once its live sessions' pending checks are done; `runNotFound` when unknown. */
export async function runReport(
  runs: RunReports,
  label: string,
  elsewhere?: readonly string[],
): Promise<Report> {
  await Promise.all(runs.liveInstances(label).map((instance) => instance.journal.settled()));
  const report = runs.report(label);
  if (report === undefined) throw unknownRun(runs, label, elsewhere);
  return report;
}

/** Forgets run `label`'s report; `runNotFound` when unknown. */
export function clearRunReport(runs: RunReports, label: string, elsewhere?: readonly string[]): void {
  if (!runs.clear(label)) throw unknownRun(runs, label, elsewhere);
}

/**
 * What a fleet replica combines a run's report with (docs/fleet.md): the replicas' JSON reports
 * of the run added up as one run's sessions are, then rendered once in the format asked for, with
 * `extra` (what is missing, for a partial report) in the JSON.
 */
export function runReportCombiner(operationIds: readonly string[], limit: number) {
  return {
    renders: isReportFormat,
    combine(
      label: string,
      reports: readonly unknown[],
      format: ReportFormat,
      extra: Record<string, unknown>,
    ): { text: string; mediaType: string } {
      const report = { ...combineRunReports(label, reports as RunReport[], operationIds, limit), ...extra };
      return {
        text: format === 'json' ? JSON.stringify(report) : renderReport(report, format),
        mediaType: reportMediaType(format),
      };
    },
  };
}
