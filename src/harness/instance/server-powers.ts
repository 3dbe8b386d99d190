import type { OperationValidators } from '../../contract/request-validator.js';
import type { Dataset } from '../../domain/types.js';
import type { MemoryBudget } from '../../memory-budget.js';
import type { ExpectedViolationInput } from '../controls/expected-violations.js';
import { stepChecksOf } from '../controls/scenario-steps.js';
import type { ScenarioInput } from '../controls/scenarios.js';
import type { Session, SessionRegistry } from '../sessions/sessions.js';
import type { TenantRegistry, TenantSpace } from '../tenants/tenants.js';
import type { RunReports } from '../verdicts/run-reports.js';
import type { Instance } from './instance.js';
import { type ControlChecks, controlsOf, type InstanceControls } from './instance-controls.js';

/** How a session is created (the body of `POST /__admin/sessions`, fixtures aside). */
export interface SessionOptions {
  /** False: never removed for being idle. */
  expires?: boolean;
  /** `own`: API keys of its own, which reach the session at the root URL too; `fixtures` (default): the set's keys. */
  keys?: 'fixtures' | 'own';
  /**
   * A run label: the root's `report({ run })` reports every session of the run together, those
   * already deleted included (1-128 characters of letters, digits and `._:@/-`).
   */
  run?: string;
}

export interface ServerPowersInput {
  root: Instance;
  sessions: SessionRegistry;
  /** The spec's compiled validators: the powers check their input as the admin API does. */
  validators: OperationValidators;
  /** The vendor operations of the spec, which reports list exercised or not. */
  operationIds: readonly string[];
  /** The server's run reports (asked for at the root only). */
  runs?: RunReports;
  /** The server's memory budget, reported by the root's health. */
  memory?: MemoryBudget;
  /** The tenants (`--tenants`): who may do what, their runs and quotas; absent without a tenants file. */
  tenants?: TenantRegistry;
  /** The admin token, which the HAR redacts wherever a client sent it. */
  adminToken?: string;
  /**
   * Why no session may be created now (a drained fleet replica's 503), checked before any other
   * of a creation's guards; undefined while sessions may be created.
   */
  creationRefusal?: () => Error | undefined;
}

/**
 * The admin powers of one server, implemented once: the `/__admin` handlers, the programmatic API
 * (`createMockServer`, its sessions) and, through HTTP, the typed client all adapt these. Each
 * instance's controls are made once and kept while the instance lives.
 */
export class ServerPowers {
  readonly root: Instance;
  readonly sessions: SessionRegistry;
  readonly checks: ControlChecks;
  readonly memory: MemoryBudget | undefined;
  readonly tenants: TenantRegistry | undefined;
  readonly #controls = new WeakMap<Instance, InstanceControls>();
  readonly #creationRefusal: (() => Error | undefined) | undefined;

  constructor({
    root,
    sessions,
    validators,
    operationIds,
    runs,
    memory,
    tenants,
    adminToken,
    creationRefusal,
  }: ServerPowersInput) {
    this.root = root;
    this.#creationRefusal = creationRefusal;
    this.sessions = sessions;
    this.memory = memory;
    this.tenants = tenants;
    this.checks = {
      ...stepChecksOf(validators),
      scenarioInput: validators.jsonBody('applyScenario') as (value: unknown) => ScenarioInput,
      expectedViolationInput: validators.jsonBody('createExpectedViolation') as (
        value: unknown,
      ) => ExpectedViolationInput,
      operationIds,
      runs,
      secrets: [adminToken],
    };
  }

  /** The controls of the root or of one of this server's sessions. */
  controls(instance: Instance): InstanceControls {
    let made = this.#controls.get(instance);
    if (!made) {
      made = controlsOf(instance, this.checks, this.memory);
      this.#controls.set(instance, made);
    }
    return made;
  }

  /**
   * Creates a session (`POST /__admin/sessions`, `MockServer.session`): over the fixture set
   * `fixtures` makes, or the root's reset point. The cap is checked before a set is built; a set
   * of its own is counted against the memory budget while the session lives (the root's is
   * shared). Made for a tenant (`owner`), the session is the tenant's: within its `maxSessions`,
   * counted in its memory quota, its run label one of the tenant's runs. Throws the server's
   * creation refusal (a drained replica's), `tooManySessions`, `memoryBudget`, `invalidRunLabel`
   * or what `fixtures` throws.
   */
  async openSession(
    fixtures: (() => Dataset | Promise<Dataset>) | undefined,
    { expires, keys, run }: SessionOptions = {},
    owner?: TenantSpace,
  ): Promise<Session> {
    const refusal = this.#creationRefusal?.();
    if (refusal !== undefined) throw refusal;
    const named = owner && { name: owner.tenant.name, maxSessions: owner.tenant.maxSessions };
    this.sessions.assertRoom(named);
    const dataset = fixtures === undefined ? this.root.fake.resetPoint() : await fixtures();
    return this.sessions.create(dataset, {
      ownFixtures: fixtures !== undefined,
      expires: expires !== false,
      ownKeys: keys === 'own',
      run,
      owner: named,
    });
  }
}
