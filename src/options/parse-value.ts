import type { OptionSpec } from './declare.js';

/** A bad option value or name; the command line prints its message and exits with status 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Longest part of a given string quoted back in an error message. */
const SHOWN_CHARS = 60;

/**
 * A raw value as an error message shows it: scalars as JSON (long strings cut short), arrays and
 * objects by their kind only, so a value nested a million levels deep is named without walking it
 * (JSON.stringify or String() of it would overflow the stack).
 */
function describeRaw(raw: unknown): string {
  if (Array.isArray(raw)) return 'an array';
  if (raw === null) return 'null';
  if (typeof raw === 'object') return 'an object';
  if (typeof raw === 'string') {
    return raw.length > SHOWN_CHARS
      ? `${JSON.stringify(raw.slice(0, SHOWN_CHARS))}... (${raw.length} characters)`
      : JSON.stringify(raw);
  }
  return String(raw);
}

/**
 * Parses one raw value (from a flag, an environment variable, JSON or the admin API) for the
 * option; throws ConfigError naming `source`. A secret's value is never quoted back.
 */
export function parseOptionValue(spec: OptionSpec, raw: unknown, source: string): unknown {
  const bad = (expected: string) =>
    new ConfigError(
      `${source}: invalid value ${spec.secret ? '(not shown: a secret)' : describeRaw(raw)}; expected ${expected}`,
    );
  switch (spec.kind.type) {
    case 'integer': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^-?\d+$/.test(raw.trim())
            ? Number(raw)
            : Number.NaN;
      if (!Number.isSafeInteger(n) || n < spec.kind.min || n > spec.kind.max) {
        throw bad(`an integer from ${spec.kind.min} to ${spec.kind.max}`);
      }
      return n;
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      if (typeof raw !== 'string' && typeof raw !== 'number') throw bad('true or false');
      const s = String(raw).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on', ''].includes(s)) return true;
      if (['0', 'false', 'no', 'off'].includes(s)) return false;
      throw bad('true or false');
    }
    case 'enum': {
      if (typeof raw !== 'string' || !spec.kind.values.includes(raw))
        throw bad(`one of ${spec.kind.values.join(', ')}`);
      return raw;
    }
    case 'string': {
      if (typeof raw !== 'string' || raw.length === 0) throw bad('a non-empty string');
      return raw;
    }
  }
}
