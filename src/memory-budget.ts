import { getHeapStatistics } from 'node:v8';
import type { Options } from './config.js';
import { ApiError } from './errors.js';

/**
 * One memory budget for the whole process (one per server: servers in one process share
 * nothing). Everything a client can make the fake hold is counted here in bytes, by kind:
 *
 *   documents  stored document data written by clients, in every instance (root and sessions)
 *   journals   the journals of the root and of every session together
 *   fixtures   fixture sets loaded through the admin API (sessions' own sets, loads), as built
 *   findings   the violations and notices the reports of every instance keep (their text)
 *   tokens     the access and refresh tokens issued, in every instance
 *   bodies     request bodies being read and parsed, after inflation
 *   counters   rate limits' counters per key or token (harness/rate-limits.ts)
 *   controls   what admin calls leave: faults (bodies, headers), rate limits, declared
 *              violations, applied scenarios with their steps (harness/held-records.ts)
 *
 * Each kind has a limit (a share of `memoryBudget`, lowered by its own option where it has one)
 * and the kinds that stay (all but bodies) together stay within `memoryBudget`. The
 * shares add up past the whole on purpose: a kind may use more while the others are idle, the
 * total stops the sum. Bodies in flight are bounded by their own share only, as headroom above the
 * total: however full the rest is, a small request (a token call, a read) is still answered. Bytes are those of the
 * data as JSON text; the heap holds more than that (object headers, parsed copies), which the
 * default size leaves room for (a fifth of the heap limit).
 */

export const BUDGET_KINDS = [
  'documents',
  'journals',
  'fixtures',
  'findings',
  'tokens',
  'bodies',
  'counters',
  'controls',
] as const;
export type BudgetKind = (typeof BUDGET_KINDS)[number];

/**
 * Kinds bounded by their own share only, as headroom above the whole: however full the rest is,
 * a body can be read and a token issued (each share is still its hard limit).
 */
const HEADROOM: ReadonlySet<BudgetKind> = new Set<BudgetKind>(['bodies', 'tokens']);

/** Each kind's share of `memoryBudget`. */
export const BUDGET_SHARES: Readonly<Record<BudgetKind, number>> = {
  documents: 0.5,
  journals: 0.4,
  fixtures: 0.5,
  findings: 0.1,
  tokens: 0.1,
  bodies: 0.3,
  counters: 0.05,
  controls: 0.1,
};

/** `memoryBudget` 0 (the default) means this fraction of the heap limit. */
export const HEAP_SHARE = 0.2;

/** What each kind is called in messages. */
const WHAT: Readonly<Record<BudgetKind, string>> = {
  documents: 'stored documents',
  journals: 'request journals',
  fixtures: 'fixture sets loaded through the admin API',
  findings: 'findings kept by the reports',
  tokens: 'issued tokens',
  bodies: 'request bodies in flight',
  counters: 'rate limit counters',
  controls: 'faults, rate limits, expected violations and scenarios',
};

/** What a client can do when a kind is full. */
const REMEDY: Readonly<Record<BudgetKind, string>> = {
  documents: 'reset the instance (POST /__admin/reset), delete sessions, or raise',
  journals: 'clear journals, or raise',
  fixtures: 'delete sessions, share the root\u2019s fixtures, or raise',
  findings: 'clear reports (DELETE /__admin/report), or raise',
  tokens:
    'use each token until it expires (expired tokens make room), delete sessions, load fixtures, or raise',
  bodies: 'retry shortly, send smaller or fewer bodies at once, or raise',
  counters: 'clear rate limits (DELETE /__admin/rate-limits), or raise',
  controls:
    'remove faults, rate limits, expected violations or scenarios (DELETE /__admin/faults, ...), reset the instance, delete sessions, or raise',
};

export interface BudgetUsage {
  /** Bytes counted now. */
  used: number;
  /** Most bytes allowed. */
  limit: number;
  /** The option that sets the limit. */
  option: string;
}

export interface MemoryReport {
  /** V8's heap limit in bytes (`--max-old-space-size`, or Node's default for the machine). */
  heapLimit: number;
  /** Bytes the heap holds now. */
  heapUsed: number;
  /** All kinds together. */
  total: BudgetUsage;
  kinds: Record<BudgetKind, BudgetUsage>;
}

/** The options the budget is sized from. */
export type BudgetOptions = Pick<Options, 'memoryBudget' | 'sessionFixturesBytes'>;

/** `memoryBudget` in bytes: as given, or (0) a share of the heap limit. */
export function totalBudget(memoryBudget: number): number {
  if (memoryBudget > 0) return memoryBudget;
  return Math.floor(getHeapStatistics().heap_size_limit * HEAP_SHARE);
}

/**
 * What the parts of an instance (its documents, tokens, journal, report, rate limits) count
 * their bytes in: the server's `MemoryBudget`, or a tenant's `TenantQuota` within it.
 */
export interface MemoryAccount {
  limit(kind: BudgetKind): number;
  used(kind: BudgetKind): number;
  fits(kind: BudgetKind, bytes: number): boolean;
  reserve(kind: BudgetKind, bytes: number): void;
  add(kind: BudgetKind, bytes: number): void;
  release(kind: BudgetKind, bytes: number): void;
  excess(kind: BudgetKind): number;
  refusal(kind: BudgetKind, bytes: number): ApiError;
}

export class MemoryBudget implements MemoryAccount {
  readonly total: number;
  readonly #limits: Record<BudgetKind, number>;
  readonly #options: Record<BudgetKind, string>;
  readonly #used: Record<BudgetKind, number> = {
    documents: 0,
    journals: 0,
    fixtures: 0,
    findings: 0,
    tokens: 0,
    bodies: 0,
    counters: 0,
    controls: 0,
  };
  #sum = 0;

  constructor(options: BudgetOptions) {
    const total = totalBudget(options.memoryBudget);
    this.total = total;
    const share = (kind: BudgetKind) => Math.floor(total * BUDGET_SHARES[kind]);
    this.#limits = {
      documents: share('documents'),
      journals: share('journals'),
      fixtures: Math.min(share('fixtures'), options.sessionFixturesBytes),
      findings: share('findings'),
      tokens: share('tokens'),
      bodies: share('bodies'),
      counters: share('counters'),
      controls: share('controls'),
    };
    this.#options = {
      documents: 'memoryBudget',
      journals: 'memoryBudget',
      fixtures: this.#limits.fixtures < share('fixtures') ? 'sessionFixturesBytes' : 'memoryBudget',
      findings: 'memoryBudget',
      tokens: 'memoryBudget',
      bodies: 'memoryBudget',
      counters: 'memoryBudget',
      controls: 'memoryBudget',
    };
  }

  limit(kind: BudgetKind): number {
    return this.#limits[kind];
  }

  used(kind: BudgetKind): number {
    return this.#used[kind];
  }

  /** Whether `bytes` more of `kind` fit its limit and (but bodies in flight) the total. */
  fits(kind: BudgetKind, bytes: number): boolean {
    if (bytes <= 0) return true;
    if (this.#used[kind] + bytes > this.#limits[kind]) return false;
    return HEADROOM.has(kind) || this.#sum + bytes <= this.total;
  }

  /**
   * Counts `bytes` more of `kind`, or throws `memoryBudget` (naming the option to raise) when
   * they would not fit; nothing is counted then.
   */
  reserve(kind: BudgetKind, bytes: number): void {
    if (!this.fits(kind, bytes)) throw this.refusal(kind, bytes);
    this.add(kind, bytes);
  }

  /** Counts `bytes` (negative: frees them) whether or not they fit (journals trim afterwards). */
  add(kind: BudgetKind, bytes: number): void {
    this.#used[kind] += bytes;
    if (!HEADROOM.has(kind)) this.#sum += bytes;
  }

  release(kind: BudgetKind, bytes: number): void {
    this.add(kind, -bytes);
  }

  /** Bytes of `kind` over its limit or (but bodies) over the total, whichever is more (0 when within both). */
  excess(kind: BudgetKind): number {
    const overTotal = HEADROOM.has(kind) ? 0 : this.#sum - this.total;
    return Math.max(0, this.#used[kind] - this.#limits[kind], overTotal);
  }

  /** The error a client gets when `bytes` more of `kind` do not fit. */
  refusal(kind: BudgetKind, bytes: number): ApiError {
    const kindFull = this.#used[kind] + bytes > this.#limits[kind];
    const option = kindFull ? this.#options[kind] : 'memoryBudget';
    const limit = kindFull ? this.#limits[kind] : this.total;
    const held = kindFull ? this.#used[kind] : this.#sum;
    const what = kindFull ? WHAT[kind] : `all client data (${WHAT[kind]} included)`;
    const bound = option === 'memoryBudget' && kindFull ? 'their share of memoryBudget' : option;
    return new ApiError(
      'memoryBudget',
      `memory budget reached: ${what} would hold ${held + bytes} bytes, over ${bound} (${limit} bytes); ` +
        `${REMEDY[kind]} ${option}`,
    );
  }

  report(): MemoryReport {
    const heap = getHeapStatistics();
    const kinds = Object.fromEntries(
      BUDGET_KINDS.map((k) => [k, { used: this.#used[k], limit: this.#limits[k], option: this.#options[k] }]),
    ) as Record<BudgetKind, BudgetUsage>;
    return {
      heapLimit: heap.heap_size_limit,
      heapUsed: heap.used_heap_size,
      total: { used: this.#sum, limit: this.total, option: 'memoryBudget' },
      kinds,
    };
  }
}

/** The kinds a tenant's `memoryBytes` counts: what its sessions hold (not bodies in flight or counters). */
export const QUOTA_KINDS: ReadonlySet<BudgetKind> = new Set<BudgetKind>([
  'documents',
  'journals',
  'fixtures',
  'findings',
  'tokens',
]);

/** What a tenant can do when its quota is full, by kind. */
const QUOTA_REMEDY: Readonly<Partial<Record<BudgetKind, string>>> = {
  documents: 'reset its sessions (POST /__admin/reset), delete some',
  journals: 'clear its sessions\u2019 journals, delete some',
  fixtures: 'delete some of its sessions, share the root\u2019s fixtures',
  findings: 'clear its sessions\u2019 reports (DELETE /__admin/report), delete some',
  tokens: 'use each token until it expires, delete some of its sessions',
};

/**
 * One tenant's share of the server's budget (`memoryBytes` in the tenants file): the sessions it
 * owns count here and in the server's budget at once. Documents, journals, fixture sets,
 * findings and tokens of all its sessions together stay within `bytes`, and each kind within its
 * share of it (`BUDGET_SHARES`, as the server's kinds within `memoryBudget`), so journals and
 * findings, which make room by dropping their oldest entries, never take the room a write needs.
 * A write past it is refused (429 `memoryBudget`, naming the tenant and `memoryBytes`) as the
 * server's budget refuses it, and its journals and findings drop their oldest entries (through
 * their pools) as the server's do. The server's own limits still apply first; another tenant's
 * quota is untouched.
 */
export class TenantQuota implements MemoryAccount {
  readonly server: MemoryBudget;
  readonly tenant: string;
  /** Most bytes its sessions may hold together (`Infinity`: only the server's budget bounds them). */
  readonly bytes: number;
  #held = 0;
  readonly #kinds = new Map<BudgetKind, number>();

  constructor(server: MemoryBudget, tenant: string, bytes: number | undefined) {
    this.server = server;
    this.tenant = tenant;
    this.bytes = bytes ?? Number.POSITIVE_INFINITY;
  }

  /** Bytes its sessions hold now (of the kinds the quota counts). */
  get held(): number {
    return this.#held;
  }

  /** The most bytes of `kind` its sessions may hold: its share of the quota. */
  #share(kind: BudgetKind): number {
    return Math.floor(this.bytes * BUDGET_SHARES[kind]);
  }

  #of(kind: BudgetKind): number {
    return this.#kinds.get(kind) ?? 0;
  }

  limit(kind: BudgetKind): number {
    return this.server.limit(kind);
  }

  used(kind: BudgetKind): number {
    return this.server.used(kind);
  }

  fits(kind: BudgetKind, bytes: number): boolean {
    if (!this.server.fits(kind, bytes)) return false;
    if (bytes <= 0 || !QUOTA_KINDS.has(kind)) return true;
    return this.#of(kind) + bytes <= this.#share(kind) && this.#held + bytes <= this.bytes;
  }

  reserve(kind: BudgetKind, bytes: number): void {
    if (!this.fits(kind, bytes)) throw this.refusal(kind, bytes);
    this.add(kind, bytes);
  }

  add(kind: BudgetKind, bytes: number): void {
    this.server.add(kind, bytes);
    if (!QUOTA_KINDS.has(kind)) return;
    this.#held += bytes;
    this.#kinds.set(kind, this.#of(kind) + bytes);
  }

  release(kind: BudgetKind, bytes: number): void {
    this.add(kind, -bytes);
  }

  /** Bytes of `kind` over its share of the quota, or over the quota (the server's own excess is its pools' to trim). */
  excess(kind: BudgetKind): number {
    if (!QUOTA_KINDS.has(kind)) return 0;
    return Math.max(0, this.#of(kind) - this.#share(kind), this.#held - this.bytes);
  }

  /** The tenant's quota named when it is what is full; the server's refusal otherwise. */
  refusal(kind: BudgetKind, bytes: number): ApiError {
    if (!QUOTA_KINDS.has(kind) || this.server.fits(kind, bytes) === false)
      return this.server.refusal(kind, bytes);
    const remedy = `${QUOTA_REMEDY[kind]}, or raise its memoryBytes`;
    if (this.#of(kind) + bytes > this.#share(kind)) {
      return new ApiError(
        'memoryBudget',
        `memory budget reached: tenant quota: ${WHAT[kind]} of tenant "${this.tenant}"\u2019s sessions would hold ` +
          `${this.#of(kind) + bytes} bytes, over their share of its memoryBytes (${this.#share(kind)} of ${this.bytes} bytes) ` +
          `in the tenants file; ${remedy}`,
      );
    }
    return new ApiError(
      'memoryBudget',
      `memory budget reached: tenant quota: the sessions of tenant "${this.tenant}" would hold ${this.#held + bytes} bytes ` +
        `(${WHAT[kind]} included), over its memoryBytes (${this.bytes} bytes) in the tenants file; ${remedy}`,
    );
  }
}

/**
 * About how many bytes `value` takes as JSON text, without building the text: strings by length,
 * numbers and literals by a few bytes, punctuation by one byte each. Walks with its own stack, so
 * a value nested deeper than the call stack allows is measured, not a crash.
 */
export function jsonBytes(value: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') bytes += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) bytes += 8;
    else if (Array.isArray(v)) {
      bytes += 2 + v.length;
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object' && v !== undefined) {
      bytes += 2;
      for (const key in v) {
        bytes += key.length + 4;
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
  }
  return bytes;
}
