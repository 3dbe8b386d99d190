import { DEFAULT_OPTIONS, OPTION_SPECS, type Options } from '../config.js';
import { nearestName } from '../nearest-name.js';
import { ConfigError, parseOptionValue } from './parse-value.js';

const SPEC_BY_KEY = new Map<string, (typeof OPTION_SPECS)[number]>(OPTION_SPECS.map((s) => [s.key, s]));

/**
 * The option a misspelt name most likely means: a name as `createMockServer()` takes it
 * (`maxResultPerPage`), or written as its environment variable (`MAX_RESULTS_PER_PAGE`).
 */
export function nearestOption(name: string): (typeof OPTION_SPECS)[number] | undefined {
  const byName = new Map<string, (typeof OPTION_SPECS)[number]>();
  for (const spec of OPTION_SPECS) {
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
export function optionNamed(key: string, prefix = '', suffix = ''): (typeof OPTION_SPECS)[number] {
  const spec = SPEC_BY_KEY.get(key);
  if (spec && Object.hasOwn(DEFAULT_OPTIONS, key)) return spec;
  const near = nearestOption(key);
  throw new ConfigError(
    `${prefix}unknown option "${key}"${near ? ` (did you mean "${near.key}"?)` : ''}${suffix}`,
  );
}

/**
 * Merges partial options (programmatic API, admin settings) over a base, validating every value;
 * unknown keys are refused.
 */
export function resolveOptions(partial: Partial<Options> = {}, base: Options = DEFAULT_OPTIONS): Options {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(partial)) {
    if (value === undefined) continue;
    out[key] = parseOptionValue(optionNamed(key), value, `option ${key}`);
  }
  return out as Options;
}
