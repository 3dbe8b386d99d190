import { randomBytes } from 'node:crypto';
import type { Violation } from '../errors.js';
import type { MemoryAccount } from '../memory-budget.js';
import { HeldRecords } from './held-records.js';
import { pathMatcher } from './path-pattern.js';

/**
 * The violations a suite provokes on purpose, declared before it sends the bad request
 * (`POST /__admin/expected-violations`, `mock.expectViolation()`), per instance (the root or a
 * session). A declaration matches a violating request by method (case-insensitive), path
 * (relative to the instance: exact, or a prefix when it ends in `*`, as faults match) and the
 * violation's location (`body/colour`, `query.pageNum`); each absent part matches anything. The
 * first declaration in creation order that matches and is not yet met takes the request: the
 * request's violations it covers are marked `expected: true`, and its `met` grows by one, until
 * it reaches `times` (default 1). An expected violation stays in the journal, but is left out of
 * `GET /__admin/violations`, `expectNoViolations()` and the report's violation gate; the report
 * lists it apart.
 *
 * A declaration still short of its `times` when the suite checks is a failure: the suite
 * expected a violation that never came. A reset or fixture load clears the declarations; the
 * unmet ones among them are kept by the report (`VerdictTally`), so a suite that resets before
 * each test still fails on them. Removing a declaration (one, or all) withdraws it: no failure.
 *
 * Only the request's own violations (as it arrives) are matched; those the response checks add
 * later (`validateResponses`) are the fake's, never expected.
 */

/** What a test declares (the body of `POST /__admin/expected-violations`). */
export interface ExpectedViolationInput {
  method?: string;
  path?: string;
  location?: string;
  times?: number;
}

/** A declaration as `GET /__admin/expected-violations` lists it. */
export interface ExpectedViolationView {
  id: string;
  /** Upper-case; absent: any method. */
  method?: string;
  /** Absent: any path. */
  path?: string;
  /** Absent: any location. */
  location?: string;
  times: number;
  /** The violating requests it matched so far. */
  met: number;
}

/** A declaration the suite checked (or discarded) before it was met; `session` in a run's report. */
export interface UnmetExpectation extends ExpectedViolationView {
  session?: string;
}

interface Declaration {
  id: string;
  method: string | undefined;
  path: string | undefined;
  location: string | undefined;
  matchesPath: (path: string) => boolean;
  times: number;
  met: number;
}

/** Whether a violation was declared by the suite (marked when it was journaled). */
export const isExpected = (violation: Violation): boolean => violation.expected === true;

/** The violations the suite did not declare. */
export function unexpectedOf(violations: readonly Violation[]): Violation[] {
  return violations.filter((v) => !isExpected(v));
}

/** Whether any of `violations` was not declared (the request counts as violating). */
export function hasUnexpected(violations: readonly Violation[]): boolean {
  return violations.some((v) => !isExpected(v));
}

/** Whether any of `violations` was declared. */
export function hasExpected(violations: readonly Violation[]): boolean {
  return violations.some(isExpected);
}

function viewOf(d: Declaration): ExpectedViolationView {
  return {
    id: d.id,
    ...(d.method === undefined ? {} : { method: d.method }),
    ...(d.path === undefined ? {} : { path: d.path }),
    ...(d.location === undefined ? {} : { location: d.location }),
    times: d.times,
    met: d.met,
  };
}

/** The declarations of one instance. */
export class ExpectedViolations {
  #declarations: Declaration[] = [];
  readonly #held: HeldRecords;

  constructor(budget?: MemoryAccount) {
    this.#held = new HeldRecords('expectedViolations', budget);
  }

  /**
   * Adds a declaration whose shape was checked against the spec; `tooManyRecords` or
   * `memoryBudget` past the bounds (held-records.ts), nothing added.
   */
  add(input: ExpectedViolationInput): ExpectedViolationView {
    const bytes = this.#held.admit(input);
    const declaration: Declaration = {
      id: randomBytes(6).toString('base64url'),
      method: input.method?.toUpperCase(),
      path: input.path,
      location: input.location,
      matchesPath: input.path === undefined ? () => true : pathMatcher(input.path),
      times: input.times ?? 1,
      met: 0,
    };
    this.#declarations.push(declaration);
    this.#held.hold(declaration.id, bytes);
    return viewOf(declaration);
  }

  list(): ExpectedViolationView[] {
    return this.#declarations.map(viewOf);
  }

  /** The declarations not met yet. */
  unmet(): ExpectedViolationView[] {
    return this.#declarations.filter((d) => d.met < d.times).map(viewOf);
  }

  delete(id: string): boolean {
    const before = this.#declarations.length;
    this.#declarations = this.#declarations.filter((d) => d.id !== id);
    this.#held.release(id);
    return this.#declarations.length < before;
  }

  /** Removes every declaration; answers those not met (a reset reports them, a clear does not). */
  clear(): ExpectedViolationView[] {
    const unmet = this.unmet();
    this.#declarations = [];
    this.#held.releaseAll();
    return unmet;
  }

  get size(): number {
    return this.#declarations.length;
  }

  /** The declarations as a state file keeps them (as listed, `met` included). */
  keep(): ExpectedViolationView[] {
    return this.list();
  }

  /** Puts back declarations `keep` described; `check` checks each as the admin API does. */
  restore(
    kept: readonly ExpectedViolationView[],
    check: (input: ExpectedViolationInput) => ExpectedViolationInput,
  ): void {
    this.#declarations = [];
    for (const { id, met, ...input } of kept) {
      this.add(check(input));
      const declaration = this.#declarations.at(-1) as Declaration;
      declaration.id = id;
      declaration.met = met;
    }
  }

  /**
   * `violations` of a request with those covered by the first matching declaration not yet met
   * marked `expected: true` (new objects, in a new list; the same list when none matches).
   */
  mark(method: string, path: string, violations: Violation[]): Violation[] {
    if (this.#declarations.length === 0 || violations.length === 0) return violations;
    const upper = method.toUpperCase();
    for (const d of this.#declarations) {
      if (d.met >= d.times) continue;
      if (d.method !== undefined && d.method !== upper) continue;
      if (!d.matchesPath(path)) continue;
      if (d.location !== undefined && !violations.some((v) => v.location === d.location)) continue;
      d.met++;
      return violations.map((v) =>
        d.location === undefined || v.location === d.location ? { ...v, expected: true as const } : v,
      );
    }
    return violations;
  }
}
