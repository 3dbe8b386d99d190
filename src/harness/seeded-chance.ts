import { randomInt } from 'node:crypto';

/**
 * A chance that comes out the same way in every run for the same seed: mulberry32, a small 32-bit
 * generator (plenty for choosing which requests a fault hits; not for secrets). Without a seed,
 * one is picked at random and shown, so a run that found something can be played again.
 */
export class SeededChance {
  readonly probability: number;
  readonly seed: number;
  #state: number;

  constructor(probability: number, seed?: number, state?: number) {
    this.probability = probability;
    this.seed = seed ?? randomInt(0, 2 ** 31);
    this.#state = (state ?? this.seed) >>> 0;
  }

  /** Where the sequence stands (kept by a state file, so a restart draws on from there). */
  get state(): number {
    return this.#state;
  }

  /** The next number of the sequence, in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Whether the next draw hits. */
  draw(): boolean {
    return this.next() < this.probability;
  }
}
