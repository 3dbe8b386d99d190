import { nearestName } from '../nearest-name.js';
import type { OptionSet } from './declare.js';
import { parseOptionValue } from './parse-value.js';

/** Variables the command line reads besides the options' own. */
const OTHER_ENV_NAMES = new Set(['CONFIG_FILE']);

/** Reads options from environment variables (only those set and not empty). */
export function optionsFromEnv<O extends object>(set: OptionSet<O>, env: NodeJS.ProcessEnv): Partial<O> {
  const out: Record<string, unknown> = {};
  for (const spec of set.specs) {
    const raw = env[spec.env];
    if (raw === undefined || raw === '') continue;
    out[spec.key] = parseOptionValue(spec, raw, `environment variable ${spec.env}`);
  }
  return out as Partial<O>;
}

/**
 * Environment variables that look like a misspelt option's (`FIXTURE`, `MAX_RESULT_PER_PAGE`,
 * `LOGLEVEL`): set, not read by the fake, and within an edit or two of one it reads. Each with
 * the name meant, for a warning at start-up; a variable silently ignored is a setting lost.
 */
export function misspeltEnvNames<O extends object>(
  set: OptionSet<O>,
  env: NodeJS.ProcessEnv,
): Array<{ name: string; meant: string }> {
  const known = new Set([...set.specs.map((s) => s.env), ...OTHER_ENV_NAMES]);
  const out: Array<{ name: string; meant: string }> = [];
  for (const name of Object.keys(env)) {
    if (known.has(name) || name.length < 4 || !/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    const meant = nearestName(name, known, Math.min(2, Math.max(1, Math.floor(name.length / 4))));
    if (meant !== undefined) out.push({ name, meant });
  }
  return out;
}
