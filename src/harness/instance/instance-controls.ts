import type { Settings } from '../../config.js';
import { loadFixtureInput } from '../../domain/fixtures/load-fixtures.js';
import type { Dataset, FixtureSet } from '../../domain/types.js';
import { ApiError } from '../../errors.js';
import type { MemoryBudget, MemoryReport } from '../../memory-budget.js';
import type { ExpectedViolationInput, ExpectedViolationView } from '../controls/expected-violations.js';
import type { FaultInput, FaultView } from '../controls/faults.js';
import type { RateLimitInput, RateLimitView } from '../controls/rate-limits.js';
import type { ScenarioInput, ScenarioListing } from '../controls/scenarios.js';
import {
  type JournalEntryView,
  type JournalFilter,
  type NoticeRecord,
  type ViolationRecord,
  viewEntry,
} from '../verdicts/journal.js';
import { judgeCheck, sinceLastCheck } from '../verdicts/no-violations.js';
import { buildReport, type Report, type ReportFormat } from '../verdicts/report.js';
import { renderReport } from '../verdicts/report-formats.js';
import { clearRunReport, type RunReports, runReport } from '../verdicts/run-reports.js';
import { type Har, harOf } from './har.js';
import type { Instance } from './instance.js';
import { mergeSettings } from './settings-input.js';

/** What `GET /__admin/health` answers. */
export interface Health {
  status: 'ok';
  /** The session's id; null at the root. */
  session: string | null;
  documents: number;
  /** The process's memory budget, use per kind (the root's health only). */
  memory?: MemoryReport;
  /**
   * A tenant's session only: the bytes all its sessions hold together and its `memoryBytes`
   * (null when it has none).
   */
  quota?: { tenant: string; used: number; limit: number | null };
}

/** What the clock calls answer (`GET`/`POST /__admin/clock`). */
export interface Clock {
  /** The fake's time, Unix seconds. */
  now: number;
  offsetSeconds: number;
}

/** The instance's health; `memory` (the whole process's) is given for the root only. */
export function healthOf(instance: Instance, memory?: MemoryBudget): Health {
  return {
    status: 'ok',
    session: instance.id ?? null,
    documents: instance.fake.documentCount(),
    // The whole process's, from the root only: a session sees nothing of the others.
    ...(instance.id === undefined && memory ? { memory: memory.report() } : {}),
    ...quotaOf(instance),
  };
}

function quotaOf(instance: Instance): Pick<Health, 'quota'> {
  const quota = instance.quota;
  if (quota === undefined) return {};
  const limit = Number.isFinite(quota.bytes) ? quota.bytes : null;
  return { quota: { tenant: quota.tenant, used: quota.held, limit } };
}

export function clockOf(instance: Instance): Clock {
  const { clock } = instance.fake;
  return { now: clock.nowSeconds(), offsetSeconds: Math.round(clock.offsetSeconds()) };
}

/** One journaled request, whole; `requestNotFound` when it was cleared or dropped. */
export async function journaledRequest(instance: Instance, id: number): Promise<JournalEntryView> {
  const { journal } = instance;
  await journal.settled();
  const entry = journal.get(id);
  if (!entry) {
    throw new ApiError(
      'requestNotFound',
      `Request not found: ${id} (cleared, or dropped to keep the journal within its bounds)`,
    );
  }
  return viewEntry(entry);
}

/**
 * The admin API's powers as methods, for the programmatic API (`createMockServer` and its
 * sessions). Same semantics as the matching `/__admin` calls: each operation of the spec's admin
 * tag names its methods here (`x-controls`) and in the admin client (`x-client`), and
 * `test/admin-parity.test.ts` holds the spec, the handlers, these and the client to one list.
 */
export interface InstanceControls {
  /** Up, with how many documents it holds (GET /__admin/health). */
  health(): Health;
  /**
   * Back to the loaded fixture set: state, journal, faults, rate limits, scenarios, declared
   * violations and clock; tokens, settings and the report stay (POST /__admin/reset).
   */
  reset(): void;
  /**
   * Replaces the state with a fixture set (object, or file/folder path) that becomes the reset
   * point, then clears as `reset` does (PUT /__admin/fixtures). Throws `FixtureError` listing
   * every problem; the old state is kept.
   */
  load(fixtures: string | FixtureSet): Promise<void>;
  /** The current state as a fixture set (GET /__admin/state). */
  state(): Dataset;
  /** The journal, newest last (GET /__admin/requests); waits for pending response checks. */
  requests(filter?: JournalFilter): Promise<JournalEntryView[]>;
  /** One journaled request, whole (GET /__admin/requests/{id}); throws `ApiError` `requestNotFound`. */
  request(id: number): Promise<JournalEntryView>;
  clearRequests(): void;
  /** The requests that broke the contract (GET /__admin/violations). */
  violations(): Promise<ViolationRecord[]>;
  /**
   * The requests that worked here but rely on something the documentation does not promise
   * (GET /__admin/notices): each notice names the parameter or field and what to send instead.
   */
  notices(): Promise<NoticeRecord[]>;
  /**
   * Throws `ContractViolationError`, listing every violation (request, location, message), when
   * the journal holds any the test did not declare, and every declared violation that never
   * came; and when the report's exact counts gained a violating request or an unmet declaration
   * since the previous check (a reset inside the test hides nothing). Run it in `afterEach`.
   */
  expectNoViolations(): Promise<void>;
  /**
   * Declares a violation the test is about to provoke (POST /__admin/expected-violations):
   * matched by method, path (exact, or a prefix ending in `*`) and location, each optional,
   * `times` requests (default 1). Answers its id. Throws `ApiError` `invalidBody` for a bad one.
   */
  expectViolation(expectation?: ExpectedViolationInput): string;
  /** The declarations, with how many violating requests each met (GET /__admin/expected-violations). */
  expectedViolations(): ExpectedViolationView[];
  /** Withdraws every declaration (DELETE /__admin/expected-violations); none fails. */
  clearExpectedViolations(): void;
  /** Withdraws one declaration; false when there is none with that id. */
  removeExpectedViolation(id: string): boolean;
  /** The fake's time (GET /__admin/clock). */
  clock(): Clock;
  /** Moves the clock by `seconds` (negative goes back); tokens expire accordingly. */
  advanceClock(seconds: number): void;
  /** Sets the clock to `unixSeconds`. */
  setClock(unixSeconds: number): void;
  /** Invalidates every token issued so far; answers how many were still usable. */
  revokeTokens(): number;
  /** Adds a fault (POST /__admin/faults); answers its id. */
  addFault(fault: FaultInput): string;
  faults(): FaultView[];
  removeFault(id: string): boolean;
  clearFaults(): void;
  /** Adds a rate limit (POST /__admin/rate-limits); answers its id. */
  addRateLimit(limit: RateLimitInput): string;
  rateLimits(): RateLimitView[];
  removeRateLimit(id: string): boolean;
  clearRateLimits(): void;
  /** The scenario catalogue and the scenarios applied (GET /__admin/scenarios). */
  scenarios(): ScenarioListing;
  /** Applies a built-in scenario `{name, ...parameters}` or your own `{name, steps}` (POST /__admin/scenarios); answers its id. */
  applyScenario(scenario: ScenarioInput): string;
  /** Removes applied scenarios and what they installed (DELETE /__admin/scenarios). */
  clearScenarios(): void;
  /**
   * The verdict of this instance for CI (GET /__admin/report): findings and coverage since it was
   * created or since `clearReport()`, as the report object (`json`, the default) or as the text of
   * `junit`, `ctrf` or `markdown` (docs/reports.md). Waits for pending response checks.
   */
  report(): Promise<Report>;
  report(format: Exclude<ReportFormat, 'json'>): Promise<string>;
  /**
   * The report of a run (root only, GET /__admin/report?run=): every session created with that
   * `run` label together, deleted ones included. Throws `ApiError` `runNotFound` for an unknown run.
   */
  report(query: { run: string; format?: 'json' }): Promise<Report>;
  report(query: { run: string; format: Exclude<ReportFormat, 'json'> }): Promise<string>;
  /**
   * Forgets what the report holds (DELETE /__admin/report); the journal stays. With `run` (root
   * only): forgets that run's report.
   */
  clearReport(query?: { run: string }): void;
  /** The run-time settings, after applying `changes` (validated whole; PUT /__admin/settings). */
  settings(changes?: Partial<Settings>): Settings;
  /**
   * The journal as an HTTP Archive (HAR 1.2; GET /__admin/har), oldest first: credentials and
   * token-like texts redacted, each entry's findings in `_passportal`. Waits for pending checks.
   */
  har(): Promise<Har>;
}

/** A fixture set given to the programmatic API: an object, or a file or folder path. */
export async function datasetOf(fixtures: string | FixtureSet): Promise<Dataset> {
  return (await loadFixtureInput(fixtures)).dataset;
}

/** What the programmatic API checks as the admin API does: with the spec's compiled validators. */
export interface ControlChecks {
  /** A fault definition, as `POST /__admin/faults` checks its body; throws `invalidBody`. */
  faultInput(value: unknown): FaultInput;
  /** A rate limit, as `POST /__admin/rate-limits` checks its body; throws `invalidBody`. */
  rateLimitInput(value: unknown): RateLimitInput;
  /** A scenario's outer shape, as `POST /__admin/scenarios` checks its body; throws `invalidBody`. */
  scenarioInput(value: unknown): ScenarioInput;
  /** The vendor operations of the spec, which reports list exercised or not. */
  operationIds: readonly string[];
  /**
   * A declared violation, as `POST /__admin/expected-violations` checks its body; throws
   * `invalidBody`. Without it the input is taken as it is.
   */
  expectedViolationInput?(value: unknown): ExpectedViolationInput;
  /** The server's run reports, asked for at the root only (`adminForbidden` from a session). */
  runs?: RunReports;
  /** Texts of the server no record may show (the admin token): the HAR redacts them. */
  secrets?: ReadonlyArray<string | undefined>;
  /**
   * Labels of runs kept elsewhere that a `runNotFound` may name to this caller (the operator:
   * every tenant's, as `tenant/label`; a tenant: none).
   */
  otherRunLabels?: () => readonly string[];
}

/** `memory`: the server's budget, reported by the root's `health()`. */
export function controlsOf(
  instance: Instance,
  checks: ControlChecks,
  memory?: MemoryBudget,
): InstanceControls {
  const { fake, journal, faults } = instance;
  return {
    health: () => healthOf(instance, memory),
    reset: () => instance.reset(),
    load: async (fixtures) => instance.load(await datasetOf(fixtures)),
    state: () => fake.snapshot(),
    requests: async (filter) => {
      await journal.settled();
      return journal.list(filter).map((entry) => viewEntry(entry));
    },
    request: (id) => journaledRequest(instance, id),
    clearRequests: () => journal.clear(),
    violations: async () => {
      await journal.settled();
      return journal.violations();
    },
    notices: async () => {
      await journal.settled();
      return journal.notices();
    },
    expectNoViolations: async () => {
      await journal.settled();
      judgeCheck(
        journal.violations(),
        instance.id === undefined ? undefined : `session ${instance.id}`,
        instance.expectations.unmet(),
        sinceLastCheck(instance, buildReport(instance, checks.operationIds)),
      );
    },
    expectViolation: (expectation = {}) =>
      instance.expectations.add(checks.expectedViolationInput?.(expectation) ?? expectation).id,
    expectedViolations: () => instance.expectations.list(),
    clearExpectedViolations: () => void instance.expectations.clear(),
    removeExpectedViolation: (id) => instance.expectations.delete(id),
    clock: () => clockOf(instance),
    advanceClock: (seconds) => fake.clock.advance(seconds),
    setClock: (unixSeconds) => fake.clock.set(unixSeconds),
    revokeTokens: () => fake.revokeTokens(),
    addFault: (fault) => faults.add(checks.faultInput(fault)).id,
    faults: () => faults.list(),
    removeFault: (id) => faults.delete(id),
    clearFaults: () => faults.clear(),
    addRateLimit: (limit) => instance.rateLimits.add(checks.rateLimitInput(limit)),
    rateLimits: () => instance.rateLimits.list(),
    removeRateLimit: (id) => instance.rateLimits.delete(id),
    clearRateLimits: () => instance.rateLimits.clear(),
    scenarios: () => instance.scenarios.list(),
    applyScenario: (scenario) => instance.scenarios.apply(checks.scenarioInput(scenario), checks),
    clearScenarios: () => instance.scenarios.clear(),
    report: ((query?: ReportFormat | ReportQuery) =>
      reportFor(
        instance,
        checks,
        typeof query === 'object' ? query : { format: query },
      )) as InstanceControls['report'],
    clearReport: (query) => {
      if (query === undefined) instance.clearReport();
      else clearRunReport(runsOf(instance, checks), query.run, checks.otherRunLabels?.());
    },
    settings: (changes) => {
      if (changes !== undefined) fake.settings = mergeSettings(fake.settings, changes);
      return { ...fake.settings };
    },
    har: () => harOf(instance, checks.secrets),
  };
}

/** The server's run reports, from the root only (`adminForbidden` from a session). */
function runsOf(instance: Instance, checks: ControlChecks): RunReports {
  if (instance.id !== undefined || checks.runs === undefined) {
    throw new ApiError(
      'adminForbidden',
      'Forbidden: a run\u2019s report is the root\u2019s; ask the root URL (/__admin/report?run=...)',
    );
  }
  return checks.runs;
}

/** Which report `report` makes: the instance's, or (root only) a run's; and in which format. */
export interface ReportQuery {
  run?: string;
  format?: ReportFormat;
}

/**
 * The report a query asks for, as the object (`json`, the default) or as rendered text: the
 * instance's since it was created or its report cleared, waiting for pending response checks;
 * or, with `run`, that run's (root only).
 */
export async function reportFor(
  instance: Instance,
  checks: ControlChecks,
  { run, format }: ReportQuery = {},
): Promise<Report | string> {
  let report: Report;
  if (run !== undefined) report = await runReport(runsOf(instance, checks), run, checks.otherRunLabels?.());
  else {
    await instance.journal.settled();
    report = buildReport(instance, checks.operationIds);
  }
  return format === undefined || format === 'json' ? report : renderReport(report, format);
}
