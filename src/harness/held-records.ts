import { ApiError } from '../errors.js';
import { jsonBytes, type MemoryAccount } from '../memory-budget.js';

/**
 * What admin calls leave in an instance (faults, rate limits, declared violations, applied
 * scenarios) is bounded twice: by count, per instance (`RECORD_BOUNDS`), and by bytes, in the
 * `controls` kind of the one memory budget (each record as its input's JSON text plus
 * `RECORD_OVERHEAD`). Past either bound the call is refused (`tooManyRecords`, `memoryBudget`)
 * and nothing is added. Records a scenario installs are counted with the scenario (its input
 * holds them), and what the operator gives at start (`--scenario`) is not counted at all.
 */

/** Most records of each kind one instance holds at once. */
export const RECORD_BOUNDS = {
  faults: 1000,
  rateLimits: 100,
  expectedViolations: 10_000,
  scenarios: 100,
} as const;

export type RecordKind = keyof typeof RECORD_BOUNDS;

/** Bytes a record is counted as beside its input's text (its id, counters, matcher). */
export const RECORD_OVERHEAD = 256;

/** How each kind is named in messages, and how to make room. */
const NAMES: Record<RecordKind, { what: string; remedy: string }> = {
  faults: { what: 'faults', remedy: 'remove some (DELETE /__admin/faults/{id} or /__admin/faults)' },
  rateLimits: {
    what: 'rate limits',
    remedy: 'remove some (DELETE /__admin/rate-limits/{id} or /__admin/rate-limits)',
  },
  expectedViolations: {
    what: 'expected violations',
    remedy: 'remove some (DELETE /__admin/expected-violations/{id} or /__admin/expected-violations)',
  },
  scenarios: { what: 'applied scenarios', remedy: 'remove them (DELETE /__admin/scenarios)' },
};

/** The bytes each record of one kind in one instance holds of the budget, by record id. */
export class HeldRecords {
  readonly #kind: RecordKind;
  readonly #budget: MemoryAccount | undefined;
  readonly #bytes = new Map<string, number>();

  constructor(kind: RecordKind, budget: MemoryAccount | undefined) {
    this.#kind = kind;
    this.#budget = budget;
  }

  /**
   * The bytes a record of `input` would hold, once checked that one more fits the count and the
   * budget; throws `tooManyRecords` or `memoryBudget`, counting nothing.
   */
  admit(input: unknown): number {
    const bound = RECORD_BOUNDS[this.#kind];
    if (this.#bytes.size >= bound) {
      const { what, remedy } = NAMES[this.#kind];
      throw new ApiError(
        'tooManyRecords',
        `too many ${what}: an instance holds at most ${bound} at once; ${remedy}, or reset the instance`,
      );
    }
    const bytes = jsonBytes(input) + RECORD_OVERHEAD;
    if (this.#budget && !this.#budget.fits('controls', bytes)) throw this.#budget.refusal('controls', bytes);
    return bytes;
  }

  /** Counts a record admitted with `admit` under its id. */
  hold(id: string, bytes: number): void {
    this.#bytes.set(id, bytes);
    this.#budget?.add('controls', bytes);
  }

  /** Gives a record's bytes back (nothing for one never held). */
  release(id: string): void {
    const bytes = this.#bytes.get(id);
    if (bytes === undefined) return;
    this.#bytes.delete(id);
    this.#budget?.release('controls', bytes);
  }

  /** Gives every record's bytes back. */
  releaseAll(): void {
    let bytes = 0;
    for (const b of this.#bytes.values()) bytes += b;
    this.#bytes.clear();
    this.#budget?.release('controls', bytes);
  }

  /** Bytes held now. */
  get bytes(): number {
    let bytes = 0;
    for (const b of this.#bytes.values()) bytes += b;
    return bytes;
  }
}
