import type { Options, Settings } from '../config.js';
import { RecentJsonTexts } from '../contract/json-text.js';
import { Fake } from '../domain/fake.js';
import type { Dataset } from '../domain/types.js';
import { jsonBytes, type MemoryAccount, type MemoryBudget, TenantQuota } from '../memory-budget.js';
import { Coverage } from './coverage.js';
import { ExpectedViolations } from './expected-violations.js';
import { FaultList } from './faults.js';
import { FindingsPool } from './finding-list.js';
import { Journal, type JournalLimits, JournalPool } from './journal.js';
import type { OwnKeys } from './own-keys.js';
import { RateLimitList } from './rate-limits.js';
import { ScenarioList } from './scenarios.js';
import { VerdictTally } from './verdict-tally.js';

/**
 * What the instances of one server share: its memory budget, the pools of their journals and
 * reports' findings; or, for a tenant's sessions, its quota within them (`quotaMemory`).
 */
export interface ServerMemory {
  budget: MemoryAccount;
  journals: JournalPool;
  findings: FindingsPool;
}

export function serverMemory(budget: MemoryBudget): ServerMemory {
  return { budget, journals: new JournalPool(budget), findings: new FindingsPool(budget) };
}

/** The memory of a tenant's sessions: counted in its quota and the server's budget at once, trimmed in both. */
export function quotaMemory(server: ServerMemory, quota: MemoryAccount): ServerMemory {
  return {
    budget: quota,
    journals: new JournalPool(quota, server.journals),
    findings: new FindingsPool(quota, server.findings),
  };
}

/**
 * One whole fake as the HTTP layer sees it: the root instance, or one per session. Everything a
 * request can change lives here (state, tokens, clock and settings in the domain `Fake`, plus
 * the journal and the faults), so instances never see each other's data.
 */
export class Instance {
  /** Undefined for the root instance, the session id otherwise. */
  readonly id: string | undefined;
  readonly fake: Fake;
  readonly journal: Journal;
  readonly faults: FaultList;
  /** Rate limits set by a test (none by default). */
  readonly rateLimits: RateLimitList;
  /** Scenarios applied by a test (none by default); they install faults and rate limits of their own. */
  readonly scenarios: ScenarioList;
  /** What the instance's reports read: counts per operation and behaviour, findings (survives reset). */
  readonly coverage: Coverage;
  /** The violations the suite declared it will provoke (cleared by reset and fixture loads). */
  readonly expectations: ExpectedViolations;
  /** The report's exact counts and the unmet declarations a reset discarded (survives reset). */
  readonly verdict: VerdictTally;
  /**
   * The JSON texts of the frozen objects answered most recently (list rows, details read; 10,000
   * texts, 16 MiB at most): the sender renders them without serialising the same object again.
   * A frozen object never changes, so a text never goes stale; gone with the instance.
   */
  readonly jsonTexts = new RecentJsonTexts(10_000, 16 * 1024 * 1024);
  /**
   * A session's keys of its own (set by the session registry), put into every dataset it loads;
   * undefined for the root and for sessions that use their fixtures' keys.
   */
  ownKeys: OwnKeys | undefined = undefined;

  readonly #memory: ServerMemory | undefined;
  /** Bytes (as JSON) of the fixture set this instance holds of its own (`fixtures` of the budget). */
  #fixturesBytes = 0;

  constructor(id: string | undefined, fake: Fake, journal: JournalLimits, memory?: ServerMemory) {
    this.id = id;
    this.fake = fake;
    this.#memory = memory;
    this.journal = new Journal(journal, memory?.journals);
    this.faults = new FaultList(memory?.budget);
    this.expectations = new ExpectedViolations(memory?.budget);
    this.rateLimits = new RateLimitList(memory?.budget);
    this.scenarios = new ScenarioList(this, memory?.budget);
    this.coverage = new Coverage(journal.entries, memory?.findings);
    this.verdict = new VerdictTally(journal.entries, memory?.budget);
  }

  /**
   * Counts `dataset` as this instance's own fixture set, in place of the one it held: throws
   * `memoryBudget` (nothing changed) when it does not fit. Call before `load`.
   */
  holdFixtures(dataset: Dataset, refuse = true): void {
    const bytes = datasetBytes(dataset);
    const budget = this.#memory?.budget;
    if (budget) {
      const delta = bytes - this.#fixturesBytes;
      if (delta > 0 && refuse) budget.reserve('fixtures', delta);
      else if (delta > 0) budget.add('fixtures', delta);
      else budget.release('fixtures', -delta);
    }
    this.#fixturesBytes = bytes;
  }

  /** The quota of the tenant that owns this session (`--tenants`); undefined for the root and the operator's sessions. */
  get quota(): TenantQuota | undefined {
    const budget = this.#memory?.budget;
    return budget instanceof TenantQuota ? budget : undefined;
  }

  get fixturesBytes(): number {
    return this.#fixturesBytes;
  }

  /** Gives everything it holds back to the budget (the session is deleted or reaped). */
  dispose(): void {
    this.#memory?.budget.release('fixtures', this.#fixturesBytes);
    this.#fixturesBytes = 0;
    this.fake.dispose();
    this.journal.dispose();
    this.coverage.dispose();
    this.faults.clear();
    this.scenarios.clear();
    this.rateLimits.clear();
    this.expectations.clear();
    this.verdict.clear();
  }

  /** Forgets what the report holds (`DELETE /__admin/report`): coverage and verdict counts. */
  clearReport(): void {
    this.coverage.clear();
    this.verdict.clear();
  }

  /**
   * What a reset and a fixture load clear beside the state: the journal, faults, rate limits and
   * scenarios (the standing ones of `--scenario` applied again), and the declared violations (the
   * unmet ones stay in the report as failures).
   */
  #clearAfterReset(): void {
    this.journal.clear();
    this.faults.clear();
    this.scenarios.clear();
    this.rateLimits.clear();
    this.scenarios.restoreStanding();
    this.verdict.discard(this.expectations.clear());
  }

  /**
   * Back to the reset point: state, tokens and clock (the Fake), journal, faults, rate limits,
   * scenarios and declared violations. Settings stay.
   */
  reset(): void {
    this.fake.reset();
    this.#clearAfterReset();
  }

  /**
   * Replaces the state with a validated dataset, which becomes the reset point (with the
   * session's own keys in place of the dataset's, when it has them); then as `reset`. The set is
   * counted as the instance's own (`memoryBudget` thrown, nothing changed, when it does not fit).
   */
  load(dataset: Dataset): void {
    this.holdFixtures(dataset);
    this.fake.load(this.ownKeys ? this.ownKeys.apply(dataset) : dataset);
    this.#clearAfterReset();
  }
}

/** The sizes of the frozen datasets servers share (the default set): counted once each. */
const frozenBytes = new WeakMap<Dataset, number>();

function datasetBytes(dataset: Dataset): number {
  if (!Object.isFrozen(dataset)) return jsonBytes(dataset);
  let bytes = frozenBytes.get(dataset);
  if (bytes === undefined) {
    bytes = jsonBytes(dataset);
    frozenBytes.set(dataset, bytes);
  }
  return bytes;
}

/** A new instance over a dataset, with the settings and journal limit of the server's options. */
export function createInstance(
  id: string | undefined,
  dataset: Dataset,
  options: Pick<Options, 'journalLimit' | 'journalBytes' | 'journalBodyBytes'>,
  settings: Settings,
  memory?: ServerMemory,
): Instance {
  return new Instance(
    id,
    new Fake(dataset, settings, undefined, memory?.budget),
    journalLimitsOf(options),
    memory,
  );
}

/** The journal's bounds from the server's options. */
export function journalLimitsOf(
  options: Pick<Options, 'journalLimit' | 'journalBytes' | 'journalBodyBytes'>,
): JournalLimits {
  return { entries: options.journalLimit, bytes: options.journalBytes, bodyBytes: options.journalBodyBytes };
}
