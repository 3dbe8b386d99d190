import { nearestName } from '../nearest-name.js';
import type { OptionSet, OptionSpec } from './declare.js';
import { ConfigError, parseOptionValue } from './parse-value.js';

type SpecOf<O extends object> = OptionSet<O>['specs'][number];

/**
 * The option a misspelt name most likely means: a name as `createMockServer()` takes it
 * (`maxResultPerPage`), or written as its environment variable (`MAX_RESULTS_PER_PAGE`).
 */
export function nearestOption<O extends object>(set: OptionSet<O>, name: string): SpecOf<O> | undefined {
  const byName = new Map<string, SpecOf<O>>();
  for (const spec of set.specs) {
    byName.set(spec.key, spec);
    byName.set(spec.env, spec);
  }
  const near = nearestName(name, byName.keys());
  return near === undefined ? undefined : byName.get(near);
}

/**
 * The declaration of the option named `key` as `createMockServer()` and the config file take it;
 * an unknown name throws, with the nearest known one, so a typo never passes silently.
 * `prefix` and `suffix` frame the message (the config file names itself and where to look).
 */
export function optionNamed<O extends object>(
  set: OptionSet<O>,
  key: string,
  prefix = '',
  suffix = '',
): SpecOf<O> {
  const spec: OptionSpec | undefined = Object.hasOwn(set.defaults, key)
    ? set.specs.find((s) => s.key === key)
    : undefined;
  if (spec) return spec as SpecOf<O>;
  const near = nearestOption(set, key);
  throw new ConfigError(
    `${prefix}unknown option "${key}"${near ? ` (did you mean "${near.key}"?)` : ''}${suffix}`,
  );
}

/**
 * Merges partial options (programmatic API, admin settings) over a base, validating every value;
 * unknown keys are refused.
 */
export function resolveOptions<O extends object>(
  set: OptionSet<O>,
  partial: Partial<O> = {},
  base: O = set.defaults,
): O {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(partial)) {
    if (value === undefined) continue;
    out[key] = parseOptionValue(optionNamed(set, key), value, `option ${key}`);
  }
  return out as O;
}
