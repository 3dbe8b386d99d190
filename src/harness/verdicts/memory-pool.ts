import type { BudgetKind, MemoryAccount } from '../../memory-budget.js';

/** What a pool trims: something that holds bytes and can let go of its oldest part. */
export interface PoolMember {
  readonly bytes: number;
  /** Drops the oldest thing it holds; answers whether anything was dropped. */
  dropOldest(): boolean;
}

/**
 * The members (journals, findings lists) of one server within one share (`kind`) of its memory
 * budget: past it, the largest member of the first `tiers` test that has one drops its oldest
 * part, until they fit again. A tenant's pool (over its quota, with the server's as `parent`)
 * holds its sessions' members, which are the server's too: past the tenant's quota its own
 * largest member drops first, then the server's pool trims as ever.
 */
export class MemoryPool<M extends PoolMember> {
  readonly budget: MemoryAccount;
  readonly #kind: BudgetKind;
  readonly #tiers: ReadonlyArray<(member: M) => boolean>;
  readonly #members = new Set<M>();
  readonly #parent: MemoryPool<M> | undefined;

  constructor(
    kind: BudgetKind,
    tiers: ReadonlyArray<(member: M) => boolean>,
    budget: MemoryAccount,
    parent?: MemoryPool<M>,
  ) {
    this.#kind = kind;
    this.#tiers = tiers;
    this.budget = budget;
    this.#parent = parent;
  }

  join(member: M): void {
    this.#members.add(member);
    this.#parent?.join(member);
  }

  leave(member: M): void {
    this.#members.delete(member);
    this.#parent?.leave(member);
  }

  /** Drops oldest parts, largest member of the first tier first, until the members fit the budget. */
  trim(): void {
    while (this.budget.excess(this.#kind) > 0) {
      if (!this.#largest()?.dropOldest()) break;
    }
    this.#parent?.trim();
  }

  #largest(): M | undefined {
    for (const fits of this.#tiers) {
      let largest: M | undefined;
      for (const member of this.#members) {
        if (fits(member) && (largest === undefined || member.bytes > largest.bytes)) largest = member;
      }
      if (largest !== undefined) return largest;
    }
    return undefined;
  }
}
