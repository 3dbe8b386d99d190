import { randomBytes } from 'node:crypto';
import type { BehaviourMark } from '../behaviour-marks.js';
import type { DocumentEdit, Fake } from '../domain/fake.js';
import type { DetailObject, Document } from '../domain/types.js';
import { ApiError } from '../errors.js';
import type { MemoryAccount } from '../memory-budget.js';
import type { FaultList } from './faults.js';
import { HeldRecords } from './held-records.js';
import type { RateLimitList } from './rate-limits.js';
import { parametersOf, SCENARIOS, type ScenarioDefinition, scenarioOf } from './scenario-catalogue.js';
import { meetsRequest, parseSteps, type ScenarioStep, type StepChecks } from './scenario-steps.js';

/**
 * The scenarios applied to one instance (none by default): built-in ones from the catalogue
 * (`scenario-catalogue.ts`) and the user's own, as steps (`scenario-steps.ts`). What a scenario
 * installs (faults, rate limits) is listed with the others and removed with it; what it watches
 * for runs from two hooks the HTTP layer calls on every API request while one is applied
 * (`http/scenario-hooks.ts`): on arrival, and once the answer's status is known.
 *
 * Memory: what they remember per token or document is bounded (`MAX_REMEMBERED` each, the least
 * recent dropped first) and counted in the `counters` share of the memory budget.
 */

/** Most tokens or documents one applied scenario remembers. */
export const MAX_REMEMBERED = 10_000;
const ENTRY_BYTES = 64;

/** What a scenario acts on: the instance's fake, faults and rate limits. */
export interface ScenarioTarget {
  readonly fake: Fake;
  readonly faults: FaultList;
  readonly rateLimits: RateLimitList;
}

/** What the hooks know of a request. */
export interface ScenarioRequest {
  method: string;
  path: string;
  token: string | undefined;
}

/** `POST /__admin/scenarios`: a built-in's name with its parameters, or a name of your own with steps. */
export type ScenarioInput = { name: string; steps?: unknown[] } & Record<string, unknown>;

/** `GET /__admin/scenarios`. */
export interface ScenarioListing {
  scenarios: readonly ScenarioDefinition[];
  applied: AppliedView[];
}

export interface AppliedView {
  id: string;
  name: string;
  parameters?: Record<string, number>;
  steps?: number;
  /** Steps still waiting for their `when`. */
  pendingSteps?: number;
  faults: string[];
  rateLimits: string[];
}

interface Applied {
  id: string;
  name: string;
  /** As given (kept by a state file, which applies it again at a restart). */
  input: Record<string, unknown>;
  parameters?: Record<string, number>;
  steps?: { step: ScenarioStep; done: boolean }[];
  faults: string[];
  rateLimits: string[];
  /** API requests seen since it was applied. */
  seen: number;
  /** token-expires-mid-crawl: successful list requests per token; set once it fired. */
  listsByToken?: Remembered;
  spent?: boolean;
  /** changed-under-you: documents read and not yet changed. */
  read?: Remembered;
}

const LIST_OPERATIONS = new Set(['listDocuments', 'listAllDocuments', 'listClients']);
const ONE_DOCUMENT = /^\/api\/v2\/documents\/([1-9]\d*)$/;
const CHANGED = ' (changed by another user)';

/** A bounded map of counts, counted in the memory budget. */
class Remembered {
  readonly #map = new Map<string, number>();
  #bytes = 0;
  constructor(private readonly budget: MemoryAccount | undefined) {}

  get(name: string): number | undefined {
    return this.#map.get(name);
  }

  set(name: string, value: number): void {
    if (this.#map.delete(name)) this.#map.set(name, value);
    else {
      while (
        this.#map.size >= MAX_REMEMBERED ||
        !(this.budget?.fits('counters', name.length + ENTRY_BYTES) ?? true)
      ) {
        const oldest = this.#map.keys().next();
        if (oldest.done) throw this.budget?.refusal('counters', name.length + ENTRY_BYTES);
        this.delete(oldest.value);
      }
      this.#map.set(name, value);
      this.#add(name.length + ENTRY_BYTES);
    }
  }

  delete(name: string): void {
    if (this.#map.delete(name)) this.#add(-(name.length + ENTRY_BYTES));
  }

  clear(): void {
    this.#add(-this.#bytes);
    this.#map.clear();
  }

  #add(bytes: number): void {
    this.#bytes += bytes;
    this.budget?.add('counters', bytes);
  }
}

export class ScenarioList {
  #applied: Applied[] = [];
  /** Scenarios given at start (`--scenario`): applied again after every reset or load. */
  readonly #standing: { input: Record<string, unknown>; checks: StepChecks }[] = [];
  /** The applied scenarios' bytes (their inputs: steps, and so the faults and limits they install). */
  readonly #held: HeldRecords;

  constructor(
    private readonly target: ScenarioTarget,
    private readonly budget?: MemoryAccount,
  ) {
    this.#held = new HeldRecords('scenarios', budget);
  }

  /** Whether any scenario is applied (the hooks do nothing otherwise). */
  get active(): boolean {
    return this.#applied.length > 0;
  }

  /** The catalogue and the scenarios applied (`GET /__admin/scenarios`). */
  list(): ScenarioListing {
    return {
      scenarios: SCENARIOS,
      applied: this.#applied.map((a) => ({
        id: a.id,
        name: a.name,
        ...(a.parameters ? { parameters: a.parameters } : {}),
        ...(a.steps ? { steps: a.steps.length, pendingSteps: a.steps.filter((s) => !s.done).length } : {}),
        faults: [...a.faults],
        rateLimits: [...a.rateLimits],
      })),
    };
  }

  /**
   * Applies `{name, ...parameters}` (built-in) or `{name, steps}` (the user's own), checked in
   * full first; throws `invalidBody` naming what is wrong, `tooManyRecords` or `memoryBudget`
   * past the bounds (held-records.ts), nothing applied. Answers its id. `held` false: the
   * operator's (`--scenario`), not counted.
   */
  apply(input: Record<string, unknown>, checks: StepChecks, location = 'body', held = true): string {
    const bytes = held ? this.#held.admit(input) : 0;
    const name = String(input.name);
    const applied: Applied = {
      id: randomBytes(6).toString('base64url'),
      name,
      input,
      faults: [],
      rateLimits: [],
      seen: 0,
    };
    if (input.steps !== undefined) {
      const extra = Object.keys(input).filter((k) => k !== 'name' && k !== 'steps');
      if (extra.length > 0)
        throw new ApiError(
          'invalidBody',
          `invalid scenario: ${location}/${extra[0]} is not a field of a scenario with steps`,
          [
            {
              location: `${location}/${extra[0]}`,
              message: 'is not a field of a scenario with steps (name, steps)',
            },
          ],
        );
      applied.steps = parseSteps(input.steps, `${location}/steps`, checks).map((step) => ({
        step,
        done: false,
      }));
      this.#applied.push(applied);
      if (held) this.#held.hold(applied.id, bytes);
      for (const entry of applied.steps) if (!entry.step.when) this.#run(applied, entry);
      return applied.id;
    }
    const definition = scenarioOf(name);
    if (!definition)
      throw new ApiError(
        'invalidBody',
        `invalid scenario: no built-in scenario "${name}" (${SCENARIOS.map((s) => s.name).join(', ')}); give steps to define your own`,
        [{ location: `${location}/name`, message: 'is not a built-in scenario, and no steps were given' }],
      );
    const parameters = parametersOf(definition, input, location);
    applied.parameters = parameters;
    this.#install(applied, parameters);
    this.#applied.push(applied);
    if (held) this.#held.hold(applied.id, bytes);
    return applied.id;
  }

  /** Applies a scenario given at start, and again after every reset or load (`restoreStanding`). */
  applyStanding(input: Record<string, unknown>, checks: StepChecks, location = 'body'): string {
    const id = this.apply(input, checks, location, false);
    this.#standing.push({ input, checks });
    return id;
  }

  /** Applies the scenarios given at start again (the instance was reset, its faults and limits cleared). */
  restoreStanding(): void {
    for (const { input, checks } of this.#standing) this.apply(input, checks, 'body', false);
  }

  /**
   * The applied scenarios as a state file keeps them: each as given, with its id, the ids of the
   * faults and limits it installed (kept with theirs), which steps ran, and whether it fired.
   */
  keep(): KeptScenario[] {
    return this.#applied.map((a) => ({
      id: a.id,
      input: a.input,
      done: a.steps?.map((s) => s.done),
      faults: [...a.faults],
      rateLimits: [...a.rateLimits],
      seen: a.seen,
      spent: a.spent,
    }));
  }

  /**
   * Puts back scenarios `keep` described, checked again in full, without running a step or
   * installing anything again (the faults and limits they installed are restored with theirs).
   * What a built-in scenario watched (tokens' lists, documents read) starts afresh.
   */
  restore(kept: readonly KeptScenario[], checks: StepChecks, location: string): void {
    this.#applied = [];
    kept.forEach((k, i) => {
      const at = `${location}[${i}].input`;
      const name = String(k.input.name);
      const a: Applied = {
        id: k.id,
        name,
        input: k.input,
        faults: [...k.faults],
        rateLimits: [...k.rateLimits],
        seen: k.seen,
        spent: k.spent,
      };
      if (k.input.steps !== undefined) {
        const steps = parseSteps(k.input.steps, `${at}/steps`, checks);
        a.steps = steps.map((step, n) => ({ step, done: k.done?.[n] === true }));
      } else {
        const definition = scenarioOf(name);
        if (!definition)
          throw new ApiError('invalidBody', `invalid scenario: ${at}/name is not a built-in scenario`);
        a.parameters = parametersOf(definition, k.input, at);
        if (name === 'token-expires-mid-crawl') a.listsByToken = new Remembered(this.budget);
        if (name === 'changed-under-you') a.read = new Remembered(this.budget);
      }
      this.#applied.push(a);
    });
  }

  /** Removes every applied scenario and what it installed. */
  clear(): void {
    for (const a of this.#applied) this.#remove(a);
    this.#applied = [];
    this.#held.releaseAll();
  }

  /**
   * On a request's arrival, before it is rate limited, faulted or served: runs the steps whose
   * `when` it meets; answers the behaviours it exercised (`documentChangedUnderYou`).
   */
  arrive(request: ScenarioRequest): BehaviourMark[] | undefined {
    let marks: BehaviourMark[] | undefined;
    for (const a of this.#applied) {
      a.seen++;
      if (a.steps) {
        for (const entry of a.steps) {
          if (entry.done) continue;
          const after = entry.step.when?.afterRequests ?? 0;
          if (a.seen > after && meetsRequest(entry.step.when, request.method, request.path))
            this.#run(a, entry);
        }
      }
      if (a.read && request.method.toUpperCase() === 'PATCH') {
        const id = ONE_DOCUMENT.exec(request.path)?.[1];
        if (id !== undefined && a.read.get(id) !== undefined) {
          a.read.delete(id);
          if (this.target.fake.editDocument(Number(id), changedByAnother))
            marks = ['documentChangedUnderYou'];
        }
      }
    }
    return marks;
  }

  /** Once a request's answer is known: what token-expires-mid-crawl and changed-under-you watch. */
  answered(request: ScenarioRequest, operationId: string | undefined, status: number): void {
    if (status < 200 || status > 299 || operationId === undefined) return;
    for (const a of this.#applied) {
      if (a.listsByToken && !a.spent && request.token !== undefined && LIST_OPERATIONS.has(operationId)) {
        const count = (a.listsByToken.get(request.token) ?? 0) + 1;
        if (count >= (a.parameters?.afterRequests ?? 1)) {
          a.spent = true;
          a.listsByToken.clear();
          this.target.fake.expireToken(request.token);
        } else a.listsByToken.set(request.token, count);
      }
      if (a.read && operationId === 'getDocument') {
        const id = ONE_DOCUMENT.exec(request.path)?.[1];
        if (id !== undefined) a.read.set(id, 1);
      }
    }
  }

  #install(a: Applied, p: Record<string, number>): void {
    const { faults, rateLimits } = this.target;
    switch (a.name) {
      case 'token-expires-mid-crawl':
        a.listsByToken = new Remembered(this.budget);
        break;
      case 'throttled':
        a.rateLimits.push(
          rateLimits.add(
            { per: 'key', limit: p.limit as number, windowSeconds: p.windowSeconds as number },
            true,
          ),
        );
        break;
      case 'flaky':
        a.faults.push(
          faults.add({ path: '/api/*', status: p.status, probability: p.probability, seed: p.seed }, true).id,
        );
        break;
      case 'changed-under-you':
        a.read = new Remembered(this.budget);
        break;
    }
  }

  #run(a: Applied, entry: { step: ScenarioStep; done: boolean }): void {
    entry.done = true;
    const { step } = entry;
    const { fake, faults, rateLimits } = this.target;
    switch (step.kind) {
      case 'fault':
        a.faults.push(faults.add(step.fault, true).id);
        break;
      case 'rateLimit':
        a.rateLimits.push(rateLimits.add(step.rateLimit, true));
        break;
      case 'clock':
        // A move past the clock's reach (year 9999) is skipped: the step was checked, the time was not.
        try {
          if (step.advanceSeconds !== undefined) fake.clock.advance(step.advanceSeconds);
          else if (step.now !== undefined) fake.clock.set(step.now);
        } catch {}
        break;
      case 'patchDocument':
        fake.editDocument(step.documentId, {
          label: step.label,
          description: step.description,
          details: step.details,
        });
        break;
    }
  }

  #remove(a: Applied): void {
    for (const id of a.faults) this.target.faults.delete(id);
    for (const id of a.rateLimits) this.target.rateLimits.delete(id);
    a.listsByToken?.clear();
    a.read?.clear();
  }
}

/** An applied scenario as a state file keeps it (`ScenarioList.keep`). */
export interface KeptScenario {
  id: string;
  input: Record<string, unknown>;
  /** Per step (a scenario of steps): whether it ran. */
  done: boolean[] | undefined;
  faults: string[];
  rateLimits: string[];
  seen: number;
  spent: boolean | undefined;
}

/** changed-under-you's edit: the label and the first text detail (a string, or an entry's value text) gain a suffix. */
function changedByAnother(doc: Readonly<Document>): DocumentEdit {
  for (const [key, entry] of Object.entries(doc.details)) {
    if (typeof entry === 'string')
      return { label: `${doc.label}${CHANGED}`, details: { [key]: `${entry}${CHANGED}` } };
    const value = (entry as { value?: { text?: unknown } } | null)?.value;
    if (typeof value?.text === 'string') {
      const object = entry as DetailObject;
      return {
        label: `${doc.label}${CHANGED}`,
        details: { [key]: { ...object, value: { ...object.value, text: `${value.text}${CHANGED}` } } },
      };
    }
  }
  return { label: `${doc.label}${CHANGED}` };
}
