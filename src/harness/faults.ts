import { randomBytes } from 'node:crypto';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { ApiError, type Violation } from '../errors.js';
import type { MemoryAccount } from '../memory-budget.js';
import { HeldRecords } from './held-records.js';
import { pathMatcher } from './path-pattern.js';
import { SeededChance } from './seeded-chance.js';
import { serialisable } from './serialisable.js';

/**
 * Injected faults of one instance. A fault matches API requests by method (case-insensitive)
 * and path (relative to the instance: exact, or a prefix when it ends in `*`); the first
 * matching fault in creation order applies. It can delay the request, answer it with a status
 * and body, or drop the connection. With `times` it applies to that many requests and is then
 * removed; without, it stays until deleted. It can also carry response `headers`, skip its first
 * `after` matches, and fire with a `probability` drawn from a `seed` (`seeded-chance.ts`: the same
 * seed fires on the same matches in every run); a match it skips or misses goes on to the next
 * fault. Plain TypeScript; `fault-injector.ts` applies them.
 */

/**
 * The kinds of fault, as reports and the behaviour catalogue name them: a fault is one or two of
 * them (a delay before a status). One fact, one place: `faultKindsOf` reads a fault by them.
 */
export const FAULT_KINDS = {
  status: {
    meaning: 'an injected fault answered with a chosen status (and body)',
    how: 'POST /__admin/faults {"path":"/api/v2/documents","status":503,"times":1}',
  },
  delay: {
    meaning: 'an injected fault delayed the answer by delayMs',
    how: 'POST /__admin/faults {"path":"/api/v2/documents","delayMs":5000,"times":1}',
  },
  drop: {
    meaning: 'an injected fault dropped the connection without an answer',
    how: 'POST /__admin/faults {"path":"/api/v2/documents","drop":true,"times":1}',
  },
} as const;

export type FaultKind = keyof typeof FAULT_KINDS;

/** The kinds a fault is made of, in catalogue order. */
export function faultKindsOf(fault: Pick<Fault, 'status' | 'delayMs' | 'drop'>): FaultKind[] {
  const kinds: FaultKind[] = [];
  if (fault.status !== undefined) kinds.push('status');
  if (fault.delayMs > 0) kinds.push('delay');
  if (fault.drop) kinds.push('drop');
  return kinds;
}

export interface FaultInput {
  method?: string;
  path?: string;
  status?: number;
  body?: unknown;
  delayMs?: number;
  times?: number;
  drop?: boolean;
  headers?: Record<string, string>;
  probability?: number;
  seed?: number;
  after?: number;
}

export interface Fault {
  id: string;
  /** Upper-case; undefined matches every method. */
  method: string | undefined;
  /** Undefined matches every path. */
  path: string | undefined;
  status: number | undefined;
  /** Whether `body` was given (a given `null` is sent as `null`). */
  hasBody: boolean;
  body: unknown;
  delayMs: number;
  drop: boolean;
  /** Requests it still applies to; undefined: until removed. */
  remaining: number | undefined;
  /** Requests it applied to so far. */
  hits: number;
  /** Response headers sent with it (undefined: none). */
  headers: Record<string, string> | undefined;
  /** Matches still to let pass before it applies. */
  skip: number;
  /** `after` as given. */
  skipped: number;
  /** Whether it fires on a match (undefined: always). */
  chance: SeededChance | undefined;
  /** Matching requests seen, applied or not. */
  matched: number;
}

/** The JSON form of a fault (`GET /__admin/faults`). */
export interface FaultView {
  id: string;
  method?: string;
  path?: string;
  status?: number;
  body?: unknown;
  delayMs?: number;
  drop?: true;
  times?: number;
  headers?: Record<string, string>;
  probability?: number;
  seed?: number;
  after?: number;
  hits: number;
  matched?: number;
}

/** Headers a fault may not set: they frame the answer, which the fake writes itself. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection']);

/**
 * What the spec's `FaultInput` schema cannot say: the rules between fields. The shape (known
 * keys, types, ranges, method and path patterns) is checked against the spec before a fault
 * gets here, by the admin API and the programmatic API alike.
 */
export function problemsOf(input: FaultInput): Violation[] {
  const hasBody = Object.hasOwn(input, 'body');
  if (hasBody && !serialisable(input.body)) {
    return [{ location: 'body/body', message: 'cannot be sent: nested too deeply to serialise' }];
  }
  const problems: Violation[] = [];
  const { status, delayMs, drop } = input;
  if (drop === true && (status !== undefined || hasBody))
    problems.push({
      location: 'body/drop',
      message: 'cannot be combined with status or body (a dropped connection sends no response)',
    });
  if (hasBody && status === undefined) problems.push({ location: 'body/body', message: 'needs status' });
  if (input.headers && drop === true)
    problems.push({
      location: 'body/headers',
      message: 'cannot be combined with drop (no response is sent)',
    });
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (FRAMING_HEADERS.has(name.toLowerCase()))
      problems.push({ location: `body/headers/${name}`, message: 'is written by the fake itself' });
    else {
      const problem = headerProblem(name, value);
      if (problem) problems.push({ location: `body/headers/${name}`, message: problem });
    }
  }
  if (input.seed !== undefined && input.probability === undefined)
    problems.push({ location: 'body/seed', message: 'needs probability' });
  if (status === undefined && drop !== true && (delayMs === undefined || delayMs === 0))
    problems.push({ location: 'body', message: 'a fault needs status, delayMs or drop' });
  return problems;
}

/**
 * Why Node would refuse to send this header (the rules of `http.validateHeaderName` and
 * `validateHeaderValue`: a token for the name; tab, visible ASCII and U+0080-U+00FF for the
 * value), asked of Node itself, so a fault is refused when it is made rather than failing every
 * request it matches; undefined when Node sends it.
 */
function headerProblem(name: string, value: string): string | undefined {
  try {
    validateHeaderName(name);
  } catch {
    return "is not a valid header name (letters, digits and !#$%&'*+.^_`|~-)";
  }
  try {
    validateHeaderValue(name, value);
  } catch {
    const bad = [...value].find((c) => !/^[\t\x20-\x7e\x80-\xff]$/.test(c)) ?? '';
    const code = bad.codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0');
    return `cannot be sent: a header value holds tab, visible ASCII and U+0080-U+00FF only${code ? ` (it holds U+${code})` : ''}`;
  }
  return undefined;
}

export class FaultList {
  #faults: Fault[] = [];
  readonly #held: HeldRecords;

  constructor(budget?: MemoryAccount) {
    this.#held = new HeldRecords('faults', budget);
  }

  /**
   * Adds a fault whose shape was checked against the spec; throws `invalidBody` when its fields
   * contradict each other, `tooManyRecords` or `memoryBudget` past the bounds (held-records.ts),
   * adding nothing. `owned`: installed by a scenario, which holds its bytes and bounds its count.
   */
  add(input: FaultInput, owned = false): Fault {
    const [first, ...more] = problemsOf(input);
    if (first)
      throw new ApiError('invalidBody', `invalid fault: ${first.location} ${first.message}`, [
        first,
        ...more,
      ]);
    const bytes = owned ? 0 : this.#held.admit(input);
    const fault: Fault = {
      id: randomBytes(6).toString('base64url'),
      method: input.method?.toUpperCase(),
      path: input.path,
      status: input.status,
      hasBody: Object.hasOwn(input, 'body'),
      body: input.body,
      delayMs: input.delayMs ?? 0,
      drop: input.drop === true,
      remaining: input.times,
      hits: 0,
      headers: input.headers && Object.keys(input.headers).length > 0 ? { ...input.headers } : undefined,
      skip: input.after ?? 0,
      skipped: input.after ?? 0,
      chance: input.probability === undefined ? undefined : new SeededChance(input.probability, input.seed),
      matched: 0,
    };
    this.#faults.push(fault);
    if (!owned) this.#held.hold(fault.id, bytes);
    return fault;
  }

  /**
   * The fault that applies to this request, counted as used (and removed once its `times` are
   * used up). Synchronous, so a fault with `times: 1` fires exactly once under concurrency.
   */
  take(method: string, path: string): Fault | undefined {
    if (this.#faults.length === 0) return undefined;
    const fault = this.#faults.find((f) => matches(f, method, path) && fires(f));
    if (!fault) return undefined;
    fault.hits++;
    if (fault.remaining !== undefined && --fault.remaining === 0) {
      this.#faults = this.#faults.filter((f) => f !== fault);
      this.#held.release(fault.id);
    }
    return fault;
  }

  list(): FaultView[] {
    return this.#faults.map((f) => ({
      id: f.id,
      method: f.method,
      path: f.path,
      status: f.status,
      body: f.hasBody ? f.body : undefined,
      delayMs: f.delayMs > 0 ? f.delayMs : undefined,
      drop: f.drop ? true : undefined,
      times: f.remaining,
      headers: f.headers,
      probability: f.chance?.probability,
      seed: f.chance?.seed,
      after: f.skipped > 0 ? f.skipped : undefined,
      hits: f.hits,
      // Matches seen, hit or not: shown for a fault that can let a match through.
      matched: f.chance || f.skipped > 0 ? f.matched : undefined,
    }));
  }

  delete(id: string): boolean {
    const before = this.#faults.length;
    this.#faults = this.#faults.filter((f) => f.id !== id);
    this.#held.release(id);
    return this.#faults.length < before;
  }

  clear(): void {
    this.#faults = [];
    this.#held.releaseAll();
  }

  /** Bytes the faults added through the admin API hold of the memory budget. */
  get bytes(): number {
    return this.#held.bytes;
  }

  /** The faults as a state file keeps them: each as given, with its id and how far it has come. */
  keep(): KeptFault[] {
    return this.#faults.map((f) => ({
      id: f.id,
      input: inputOf(f),
      remaining: f.remaining,
      hits: f.hits,
      skip: f.skip,
      matched: f.matched,
      chanceState: f.chance?.state,
    }));
  }

  /** Puts back faults `keep` described; `check` checks each input as the admin API does (throws on a bad one). */
  restore(kept: readonly KeptFault[], check: (input: FaultInput) => FaultInput): void {
    this.#faults = [];
    for (const k of kept) {
      const fault = this.add(check(k.input));
      fault.id = k.id;
      fault.remaining =
        Number.isSafeInteger(k.remaining) && (k.remaining as number) > 0 ? k.remaining : undefined;
      fault.hits = k.hits;
      fault.skip = k.skip;
      fault.matched = k.matched;
      if (fault.chance && k.chanceState !== undefined)
        fault.chance = new SeededChance(fault.chance.probability, fault.chance.seed, k.chanceState);
    }
  }
}

/** A fault as a state file keeps it (`FaultList.keep`). */
export interface KeptFault {
  id: string;
  input: FaultInput;
  remaining: number | undefined;
  hits: number;
  skip: number;
  matched: number;
  chanceState: number | undefined;
}

/** The input a fault was made from (with its seed, drawn when none was given). */
function inputOf(f: Fault): FaultInput {
  const input: FaultInput = {};
  if (f.method !== undefined) input.method = f.method;
  if (f.path !== undefined) input.path = f.path;
  if (f.status !== undefined) input.status = f.status;
  if (f.hasBody) input.body = f.body;
  if (f.delayMs > 0) input.delayMs = f.delayMs;
  if (f.drop) input.drop = true;
  if (f.headers) input.headers = { ...f.headers };
  if (f.chance) {
    input.probability = f.chance.probability;
    input.seed = f.chance.seed;
  }
  if (f.skipped > 0) input.after = f.skipped;
  return input;
}

/** Counts a match of `fault`: whether it applies to it (past `after`, and its chance drawn). */
function fires(fault: Fault): boolean {
  fault.matched++;
  if (fault.skip > 0) {
    fault.skip--;
    return false;
  }
  return fault.chance === undefined || fault.chance.draw();
}

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== undefined && fault.method !== method.toUpperCase()) return false;
  if (fault.path === undefined) return true;
  return pathMatcher(fault.path)(path);
}
