import type { MemoryAccount } from '../../memory-budget.js';
import { MemoryPool } from './memory-pool.js';

/**
 * The findings (violations, notices) the reports of one server keep, within the `findings` share
 * of its memory budget. Each instance's report keeps two lists, one of the requests that broke
 * the contract and one of the requests with notices, each bounded by count (the journal's entry
 * limit) and, all lists of the server together, by bytes. Past either bound the oldest records
 * are dropped and counted; a list never grows the heap past its bound. When the bytes run out,
 * notices go first (the largest list of them, a noisy session paying for its own traffic), then
 * violations: notices a client sends can never push a violation out. The verdict never reads
 * these lists (coverage.ts keeps exact counts); they are what a person reads.
 */

/** What one finding's text costs: its location and message, and a little for the object. */
export function findingsBytes(items: ReadonlyArray<{ location: string; message: string }>): number {
  let bytes = 0;
  for (const item of items) bytes += 48 + item.location.length + item.message.length;
  return bytes;
}

/** What a record costs besides its findings: the request line, ids, the time. */
export const RECORD_BYTES = 160;

/** Whether a list holds violations (dropped last) or notices (dropped first). */
export type FindingKind = 'violations' | 'notices';

/** What the pool needs of a list. */
interface PooledList {
  readonly kind: FindingKind;
  readonly size: number;
  readonly bytes: number;
  dropOldest(): boolean;
}

interface Held<T> {
  value: T;
  weight: number;
}

/** A list of records, newest last, within a count and (through its pool) the budget's bytes. */
export class FindingList<T> implements PooledList {
  #items: Array<Held<T> | undefined> = [];
  #start = 0;
  #bytes = 0;
  /** Records dropped for the bounds since the list was last cleared. */
  dropped = 0;

  constructor(
    readonly kind: FindingKind,
    readonly limit: number,
    readonly pool?: FindingsPool,
  ) {
    pool?.join(this);
  }

  /** Adds `value` costing `weight` bytes; drops the oldest records beyond the bounds. */
  push(value: T, weight: number): void {
    if (this.limit <= 0) {
      this.dropped++;
      return;
    }
    this.#items.push({ value, weight });
    this.#count(weight);
    while (this.size > this.limit) this.dropOldest();
    this.pool?.trim();
  }

  /** Adds `bytes` to the cost of the newest record that `matches` (it gained findings). */
  grow(matches: (value: T) => boolean, bytes: number): void {
    for (let i = this.#items.length - 1; i >= this.#start; i--) {
      const held = this.#items[i];
      if (held && matches(held.value)) {
        held.weight += bytes;
        this.#count(bytes);
        this.pool?.trim();
        return;
      }
    }
  }

  /** Drops the oldest record (counted in `dropped`); answers whether there was one. */
  dropOldest(): boolean {
    if (this.size === 0) return false;
    const held = this.#items[this.#start] as Held<T>;
    this.#items[this.#start] = undefined;
    this.#start++;
    if (this.#start * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#start);
      this.#start = 0;
    }
    this.#count(-held.weight);
    this.dropped++;
    return true;
  }

  values(): T[] {
    const out: T[] = [];
    for (let i = this.#start; i < this.#items.length; i++) out.push((this.#items[i] as Held<T>).value);
    return out;
  }

  clear(): void {
    this.#count(-this.#bytes);
    this.#items = [];
    this.#start = 0;
    this.dropped = 0;
  }

  /** Empties the list and leaves the pool (the instance is going away). */
  dispose(): void {
    this.clear();
    this.pool?.leave(this);
  }

  get size(): number {
    return this.#items.length - this.#start;
  }

  get bytes(): number {
    return this.#bytes;
  }

  #count(bytes: number): void {
    this.#bytes += bytes;
    this.pool?.budget.add('findings', bytes);
  }
}

/**
 * The finding lists of one server, trimmed together to the `findings` share of its budget. A
 * tenant's pool (over its quota, with the server's as `parent`) trims its sessions' lists to the
 * tenant's quota first, then the server's pool trims as ever.
 */
export class FindingsPool extends MemoryPool<PooledList> {
  constructor(budget: MemoryAccount, parent?: FindingsPool) {
    super(
      'findings',
      // Notices go first (largest list first), then violations.
      [
        (list) => list.kind === 'notices' && list.size > 0,
        (list) => list.kind === 'violations' && list.size > 0,
      ],
      budget,
      parent,
    );
  }
}
