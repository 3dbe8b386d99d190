/**
 * The fake's clock: real time plus an offset the admin API can move (advance time to expire
 * tokens, set an absolute time). Time keeps flowing after `advance` and `set`; `reset` drops the
 * offset. Every time-dependent decision of the domain (token expiry, `last_modified`) reads this
 * clock, never `Date.now()` directly.
 */
import { ApiError } from '../errors.js';

export class Clock {
  readonly #realNow: () => number;
  #offsetMs = 0;

  constructor(realNow: () => number = Date.now) {
    this.#realNow = realNow;
  }

  /**
   * Current fake time in milliseconds since the Unix epoch; it stops at 9999-12-31T23:59:59Z, so
   * a clock set there never stamps a five-digit year the contract's date-time format refuses.
   */
  nowMs(): number {
    return Math.min(this.#realNow() + this.#offsetMs, MAX_UNIX_SECONDS * 1000);
  }

  /** Current fake time in whole seconds since the Unix epoch (rounded down). */
  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  /** Moves the clock forward (or back, with a negative value) by `seconds`. */
  advance(seconds: number): void {
    requireFinite(seconds, 'seconds');
    // From the time shown (which stops at the end of year 9999), so a clock there can be moved back.
    const target = this.nowMs() + Math.round(seconds * 1000);
    requireInRange(target);
    this.#offsetMs = target - this.#realNow();
  }

  /** Sets the current fake time to `unixSeconds`; time keeps flowing from there. */
  set(unixSeconds: number): void {
    requireFinite(unixSeconds, 'unixSeconds');
    requireInRange(unixSeconds * 1000);
    this.#offsetMs = Math.round(unixSeconds * 1000) - this.#realNow();
  }

  /** Back to real time. */
  reset(): void {
    this.#offsetMs = 0;
  }

  /** How far the fake time is ahead of real time, in seconds (negative when behind). */
  offsetSeconds(): number {
    return this.#offsetMs / 1000;
  }
}

function requireFinite(value: number, name: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ApiError('invalidBody', `${name} must be a finite number`);
  }
}

/** Latest time the clock may show: 9999-12-31T23:59:59Z (ISO 8601 timestamps stay four-digit). */
export const MAX_UNIX_SECONDS = 253_402_300_799;

function requireInRange(ms: number): void {
  if (ms < 0 || ms > MAX_UNIX_SECONDS * 1000) {
    throw new ApiError(
      'invalidBody',
      `the clock must stay between 1970-01-01 and 9999-12-31 (0..${MAX_UNIX_SECONDS} s)`,
    );
  }
}
