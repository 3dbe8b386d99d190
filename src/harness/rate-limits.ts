import { randomBytes } from 'node:crypto';
import type { MemoryAccount } from '../memory-budget.js';
import { HeldRecords } from './held-records.js';
import { pathMatcher } from './path-pattern.js';

/**
 * Rate limits of one instance (off until a test sets one: the live service's limits are not
 * published). A limit counts the API requests it matches (method, path as faults match them) in
 * fixed windows of `windowSeconds` on the fake's clock, separately per subject: the API key
 * (`key`: `x-key` on a token call, the key a token was issued to otherwise), the access token
 * (`token`), or every request of the instance (`session`, `instance`: the same count, the
 * instance being the root or a session). A window starts at its first request; past `limit`
 * requests in it, a request is refused (`rateLimited`, 429) until the window ends, and a refused
 * request does not count. Requests without the subject a limit counts by (no key, no token) pass
 * it uncounted. Plain TypeScript; `http/rate-limiter.ts` applies them.
 *
 * Memory: each limit keeps at most `MAX_SUBJECTS` subjects (the least recently counted dropped
 * first), and every subject's counter is counted in the `counters` share of the memory budget.
 */

export const RATE_LIMIT_SCOPES = ['key', 'token', 'session', 'instance'] as const;
export type RateLimitScope = (typeof RATE_LIMIT_SCOPES)[number];

/** Most subjects (keys or tokens) one limit counts at once. */
export const MAX_SUBJECTS = 10_000;
/** Bytes a subject's counter is counted as, beside its name. */
const COUNTER_BYTES = 64;

export interface RateLimitInput {
  per: RateLimitScope;
  limit: number;
  windowSeconds: number;
  method?: string;
  path?: string;
}

/** The JSON form of a limit (`GET /__admin/rate-limits`): never the subjects (tokens are secrets). */
export interface RateLimitView {
  id: string;
  per: RateLimitScope;
  limit: number;
  windowSeconds: number;
  method?: string;
  path?: string;
  /** Requests it counted, and refused, since it was set. */
  counted: number;
  refused: number;
  /** Subjects it counts now. */
  subjects: number;
}

/** A limit as a state file keeps it (`RateLimitList.keep`). */
export interface KeptRateLimit {
  id: string;
  input: RateLimitInput;
  counted: number;
  refused: number;
}

interface Window {
  startMs: number;
  endMs: number;
  count: number;
}

interface RateLimit {
  id: string;
  input: RateLimitInput;
  method: string | undefined;
  matchPath: ((path: string) => boolean) | undefined;
  windows: Map<string, Window>;
  counted: number;
  refused: number;
}

/** Who a request is, as the limits count it. */
export interface RateSubject {
  /** The API key's ID, when the request names one (token call) or carries a known token. */
  key: string | undefined;
  /** The access token sent, when any. */
  token: string | undefined;
}

/** What a request met: the headers to send and, past a limit, the refusal. */
export interface RateVerdict {
  limit: number;
  remaining: number;
  /** Whole seconds until the tightest window frees. */
  resetSeconds: number;
  /** Set when a limit refused the request: whole seconds until it may be sent again. */
  retryAfter: number | undefined;
  /** The id of the limit that refused it. */
  refusedBy: string | undefined;
}

export class RateLimitList {
  #limits: RateLimit[] = [];
  readonly #budget: MemoryAccount | undefined;
  #bytes = 0;
  readonly #held: HeldRecords;

  constructor(budget?: MemoryAccount) {
    this.#budget = budget;
    this.#held = new HeldRecords('rateLimits', budget);
  }

  get size(): number {
    return this.#limits.length;
  }

  /**
   * Adds a limit whose shape the spec checked; `tooManyRecords` or `memoryBudget` past the bounds
   * (held-records.ts), nothing added. `owned`: installed by a scenario, which holds its bytes.
   */
  add(input: RateLimitInput, owned = false): string {
    const bytes = owned ? 0 : this.#held.admit(input);
    const id = randomBytes(6).toString('base64url');
    this.#limits.push({
      id,
      input: { ...input, method: input.method?.toUpperCase() },
      method: input.method?.toUpperCase(),
      matchPath: input.path === undefined ? undefined : pathMatcher(input.path),
      windows: new Map(),
      counted: 0,
      refused: 0,
    });
    if (!owned) this.#held.hold(id, bytes);
    return id;
  }

  list(): RateLimitView[] {
    return this.#limits.map((l) => ({
      id: l.id,
      ...l.input,
      counted: l.counted,
      refused: l.refused,
      subjects: l.windows.size,
    }));
  }

  delete(id: string): boolean {
    const limit = this.#limits.find((l) => l.id === id);
    if (!limit) return false;
    this.#forget(limit);
    this.#limits = this.#limits.filter((l) => l !== limit);
    this.#held.release(id);
    return true;
  }

  clear(): void {
    for (const limit of this.#limits) this.#forget(limit);
    this.#limits = [];
    this.#held.releaseAll();
  }

  /** The limits as a state file keeps them: each as given, with its id and counts (not its windows). */
  keep(): KeptRateLimit[] {
    return this.#limits.map((l) => ({ id: l.id, input: l.input, counted: l.counted, refused: l.refused }));
  }

  /** Puts back limits `keep` described; `check` checks each input as the admin API does. Windows start afresh. */
  restore(kept: readonly KeptRateLimit[], check: (input: RateLimitInput) => RateLimitInput): void {
    this.clear();
    for (const k of kept) {
      const id = this.add(check(k.input));
      const limit = this.#limits.find((l) => l.id === id) as RateLimit;
      limit.id = k.id;
      limit.counted = k.counted;
      limit.refused = k.refused;
    }
  }

  /** Bytes its counters are counted as in the budget. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Counts a request against every limit it matches, at `nowMs` on the fake's clock; undefined
   * when none matches. When one is used up, nothing is counted and the verdict says when to retry.
   */
  take(method: string, path: string, subject: RateSubject, nowMs: number): RateVerdict | undefined {
    if (this.#limits.length === 0) return undefined;
    const met: { limit: RateLimit; name: string; window: Window }[] = [];
    for (const limit of this.#limits) {
      if (limit.method !== undefined && limit.method !== method.toUpperCase()) continue;
      if (limit.matchPath && !limit.matchPath(path)) continue;
      const name = subjectName(limit.input.per, subject);
      if (name === undefined) continue;
      met.push({ limit, name, window: this.#windowOf(limit, name, nowMs) });
    }
    if (met.length === 0) return undefined;
    const full = met.filter((m) => m.window.count >= m.limit.input.limit);
    if (full.length > 0) {
      // The request may go when every used-up window has freed: the latest of them.
      const latest = full.reduce((a, b) => (endOf(b) > endOf(a) ? b : a));
      for (const m of full) m.limit.refused++;
      const wait = Math.max(1, Math.ceil((endOf(latest) - nowMs) / 1000));
      return {
        limit: latest.limit.input.limit,
        remaining: 0,
        resetSeconds: wait,
        retryAfter: wait,
        refusedBy: latest.limit.id,
      };
    }
    for (const m of met) {
      m.window.count++;
      m.limit.counted++;
    }
    const tightest = met.reduce((a, b) =>
      b.limit.input.limit - b.window.count < a.limit.input.limit - a.window.count ? b : a,
    );
    return {
      limit: tightest.limit.input.limit,
      remaining: tightest.limit.input.limit - tightest.window.count,
      resetSeconds: Math.max(0, Math.ceil((endOf(tightest) - nowMs) / 1000)),
      retryAfter: undefined,
      refusedBy: undefined,
    };
  }

  /** The subject's current window (a new one when none is open), moved to the recent end. */
  #windowOf(limit: RateLimit, name: string, nowMs: number): Window {
    const { windows } = limit;
    const open = windows.get(name);
    const windowMs = limit.input.windowSeconds * 1000;
    if (open && nowMs >= open.startMs && nowMs < open.endMs) {
      windows.delete(name);
      windows.set(name, open);
      return open;
    }
    if (open) {
      windows.delete(name);
      this.#count(-(name.length + COUNTER_BYTES));
    }
    while (windows.size >= MAX_SUBJECTS || !this.#fits(name)) {
      const oldest = windows.keys().next();
      if (oldest.done) break;
      windows.delete(oldest.value);
      this.#count(-(oldest.value.length + COUNTER_BYTES));
    }
    if (!this.#fits(name)) throw this.#budget?.refusal('counters', name.length + COUNTER_BYTES);
    const window = { startMs: nowMs, endMs: nowMs + windowMs, count: 0 };
    windows.set(name, window);
    this.#count(name.length + COUNTER_BYTES);
    return window;
  }

  #fits(name: string): boolean {
    return this.#budget?.fits('counters', name.length + COUNTER_BYTES) ?? true;
  }

  #count(bytes: number): void {
    this.#bytes += bytes;
    this.#budget?.add('counters', bytes);
  }

  #forget(limit: RateLimit): void {
    let bytes = 0;
    for (const name of limit.windows.keys()) bytes += name.length + COUNTER_BYTES;
    limit.windows.clear();
    this.#count(-bytes);
  }
}

const endOf = (m: { window: Window }): number => m.window.endMs;

/** The name a limit counts a request under; undefined when the request has no such subject. */
function subjectName(per: RateLimitScope, subject: RateSubject): string | undefined {
  switch (per) {
    case 'key':
      return subject.key === undefined ? undefined : `k:${subject.key}`;
    case 'token':
      return subject.token === undefined ? undefined : `t:${subject.token}`;
    default:
      return '*';
  }
}
