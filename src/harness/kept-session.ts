/**
 * What a state file keeps of a session beside its state (`state-log.ts`): what its owner
 * configured (faults, rate limits, expected violations, applied scenarios), taken and put back
 * whole, and its report's exact counts. Both are small: bounded by what a test configures, and by
 * the catalogues of operations, behaviours and notices.
 */
import { ConfigError } from '../config.js';
import { ApiError } from '../errors.js';
import type { ExpectedViolationInput, ExpectedViolationView } from './expected-violations.js';
import type { KeptFault } from './faults.js';
import type { Instance } from './instance.js';
import type { ControlChecks } from './instance-controls.js';
import type { KeptRateLimit } from './rate-limits.js';
import type { KeptScenario } from './scenarios.js';
import type { Session } from './sessions.js';
import type { KeptCounts } from './state-log.js';

export interface KeptControls {
  faults: KeptFault[];
  rateLimits: KeptRateLimit[];
  expectations: ExpectedViolationView[];
  scenarios: KeptScenario[];
}

export function controlsOf(instance: Instance): KeptControls {
  return {
    faults: instance.faults.keep(),
    rateLimits: instance.rateLimits.keep(),
    expectations: instance.expectations.keep(),
    scenarios: instance.scenarios.keep(),
  };
}

export function countsOf(instance: Instance): KeptCounts {
  return { coverage: instance.coverage.keep(), verdict: instance.verdict.keep() };
}

/**
 * What changes whenever a session is used or its report counts move (numbers only, cheap to
 * compare every second for every session): when it differs from the last one written, the
 * session's counts, and its controls if they changed, are written again.
 */
export function activityOf(session: Session): string {
  const { coverage, verdict, expectations } = session.instance;
  let met = 0;
  for (const d of expectations.keep()) met += d.met;
  return [
    session.lastUsedAt,
    coverage.requests,
    coverage.since,
    verdict.violatingRequests,
    verdict.requestsWithNotices,
    verdict.expectedViolations,
    verdict.unmetDiscarded,
    met,
  ].join(' ');
}

/** Counts `restoreCounts` puts back. */
export function restoreCounts(instance: Instance, counts: KeptCounts): void {
  instance.coverage.restore(counts.coverage);
  instance.verdict.restore(counts.verdict);
}

/**
 * Puts back controls as read from `where`, each input checked against the spec as the admin API
 * checks it; anything malformed is a ConfigError naming `where` and the key.
 */
export function restoreControls(
  instance: Instance,
  value: unknown,
  where: string,
  checks: ControlChecks,
): void {
  if (!isObject(value)) throw new ConfigError(`${where}: must be an object`);
  const list = (key: keyof KeptControls): Record<string, unknown>[] => {
    const items = value[key] ?? [];
    if (!Array.isArray(items) || !items.every((item) => isObject(item) && typeof item.id === 'string'))
      throw new ConfigError(`${where}.${key}: must be a list of objects with an id`);
    return items as Record<string, unknown>[];
  };
  const checked =
    <T>(key: string, check: (value: unknown) => T) =>
    (input: unknown): T => {
      try {
        return check(input);
      } catch (error) {
        if (error instanceof ApiError)
          throw new ConfigError(`${where}.${key}: ${error.message}; fix or remove it`);
        throw error;
      }
    };
  try {
    instance.faults.restore(
      list('faults').map((f) => withCounts<KeptFault>(f, ['hits', 'skip', 'matched'], where)),
      checked('faults', checks.faultInput),
    );
    instance.rateLimits.restore(
      list('rateLimits').map((l) => withCounts<KeptRateLimit>(l, ['counted', 'refused'], where)),
      checked('rateLimits', checks.rateLimitInput),
    );
    instance.expectations.restore(
      list('expectations').map((e) => withCounts<ExpectedViolationView>(e, ['met'], where)),
      checked(
        'expectations',
        (input) => checks.expectedViolationInput?.(input) ?? (input as ExpectedViolationInput),
      ),
    );
    instance.scenarios.restore(
      list('scenarios').map((s) => {
        if (!isObject(s.input) || !Array.isArray(s.faults) || !Array.isArray(s.rateLimits))
          throw new ConfigError(`${where}.scenarios: each must have input, faults and rateLimits`);
        checks.scenarioInput(s.input);
        return withCounts<KeptScenario>(s, ['seen'], where);
      }),
      checks,
      `${where}.scenarios`,
    );
  } catch (error) {
    if (error instanceof ApiError) throw new ConfigError(`${where}: ${error.message}; fix or remove it`);
    throw error;
  }
}

/** `item` once its count fields are each checked to be a whole number of at least 0. */
function withCounts<T>(item: Record<string, unknown>, keys: string[], where: string): T {
  for (const key of keys) {
    const v = item[key];
    if (!Number.isSafeInteger(v) || (v as number) < 0)
      throw new ConfigError(`${where}: ${String(item.id)}.${key} must be a count`);
  }
  return item as unknown as T;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
