import { randomBytes } from 'node:crypto';
import { ApiError, type Violation } from '../errors.js';

/**
 * Injected faults of one instance. A fault matches API requests by method (case-insensitive)
 * and path (relative to the instance: exact, or a prefix when it ends in `*`); the first
 * matching fault in creation order applies. It can delay the request, answer it with a status
 * and body, or drop the connection. With `times` it applies to that many requests and is then
 * removed; without, it stays until deleted. Plain TypeScript; `fault-injector.ts` applies them.
 */

export interface FaultInput {
  method?: string;
  path?: string;
  status?: number;
  body?: unknown;
  delayMs?: number;
  times?: number;
  drop?: boolean;
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
  hits: number;
}

const KEYS = new Set(['method', 'path', 'status', 'body', 'delayMs', 'times', 'drop']);
const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** Every problem of a fault definition (the admin API validates the types from the spec too). */
function problemsOf(input: Record<string, unknown>): Violation[] {
  const problems: Violation[] = [];
  const bad = (key: string, message: string) => problems.push({ location: `body/${key}`, message });
  for (const key of Object.keys(input)) if (!KEYS.has(key)) bad(key, 'is not a known property');
  const { method, path, status, delayMs, times, drop } = input;
  if (method !== undefined && (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method)))
    bad('method', 'must be an HTTP method such as GET');
  if (path !== undefined) {
    if (typeof path !== 'string' || !path.startsWith('/'))
      bad('path', 'must start with / (a path relative to the instance, e.g. /api/v2/documents)');
    else if (path.slice(0, -1).includes('*')) bad('path', 'may hold * only at its end (a prefix match)');
  }
  if (status !== undefined && !isInt(status, 100, 599)) bad('status', 'must be an integer from 100 to 599');
  if (delayMs !== undefined && !isInt(delayMs, 0, 600_000))
    bad('delayMs', 'must be an integer from 0 to 600000');
  if (times !== undefined && !isInt(times, 1, Number.MAX_SAFE_INTEGER))
    bad('times', 'must be a positive integer');
  if (drop !== undefined && typeof drop !== 'boolean') bad('drop', 'must be true or false');
  if (Object.hasOwn(input, 'body') && !serialisable(input.body))
    bad('body', 'cannot be sent: nested too deeply to serialise');
  if (problems.length > 0) return problems;
  if (drop === true && (status !== undefined || Object.hasOwn(input, 'body')))
    bad('drop', 'cannot be combined with status or body (a dropped connection sends no response)');
  if (Object.hasOwn(input, 'body') && status === undefined) bad('body', 'needs status');
  if (status === undefined && drop !== true && (delayMs === undefined || delayMs === 0))
    problems.push({ location: 'body', message: 'a fault needs status, delayMs or drop' });
  return problems;
}

function serialisable(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}

export class FaultList {
  #faults: Fault[] = [];

  /** Validates and adds a fault; throws `invalidBody` naming every problem, adding nothing. */
  add(input: FaultInput): Fault {
    const raw = (input ?? {}) as Record<string, unknown>;
    const problems =
      typeof input === 'object' && input !== null && !Array.isArray(input)
        ? problemsOf(raw)
        : [{ location: 'body', message: 'must be an object' }];
    const [first] = problems;
    if (first)
      throw new ApiError('invalidBody', `invalid fault: ${first.location} ${first.message}`, problems);
    const fault: Fault = {
      id: randomBytes(6).toString('base64url'),
      method: input.method?.toUpperCase(),
      path: input.path,
      status: input.status,
      hasBody: Object.hasOwn(raw, 'body'),
      body: input.body,
      delayMs: input.delayMs ?? 0,
      drop: input.drop === true,
      remaining: input.times,
      hits: 0,
    };
    this.#faults.push(fault);
    return fault;
  }

  /**
   * The fault that applies to this request, counted as used (and removed once its `times` are
   * used up). Synchronous, so a fault with `times: 1` fires exactly once under concurrency.
   */
  take(method: string, path: string): Fault | undefined {
    if (this.#faults.length === 0) return undefined;
    const fault = this.#faults.find((f) => matches(f, method, path));
    if (!fault) return undefined;
    fault.hits++;
    if (fault.remaining !== undefined && --fault.remaining === 0) {
      this.#faults = this.#faults.filter((f) => f !== fault);
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
      hits: f.hits,
    }));
  }

  delete(id: string): boolean {
    const before = this.#faults.length;
    this.#faults = this.#faults.filter((f) => f.id !== id);
    return this.#faults.length < before;
  }

  clear(): void {
    this.#faults = [];
  }
}

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== undefined && fault.method !== method.toUpperCase()) return false;
  if (fault.path === undefined) return true;
  return fault.path.endsWith('*') ? path.startsWith(fault.path.slice(0, -1)) : path === fault.path;
}
