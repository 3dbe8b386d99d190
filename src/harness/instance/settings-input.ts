import { ConfigError, OPTION_SPECS, SETTING_KEYS, type Settings } from '../../config.js';
import { ApiError, type Violation } from '../../errors.js';
import { parseOptionValue } from '../../options/parse-value.js';

const SETTING_SPECS = new Map<string, (typeof OPTION_SPECS)[number]>(
  OPTION_SPECS.filter((s) => s.setting).map((s) => [s.key, s]),
);

/**
 * The settings with `input`'s values applied, every one checked against its option's range
 * (`config.ts`); throws `invalidBody` naming every bad key, so a change is applied whole or not
 * at all. Start-up-only options (port, journalLimit, ...) are rejected by name.
 */
export function mergeSettings(current: Settings, input: unknown): Settings {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ApiError('invalidBody', 'settings must be an object', [
      { location: 'body', message: 'must be an object' },
    ]);
  }
  const next: Record<string, unknown> = { ...current };
  const problems: Violation[] = [];
  for (const [key, value] of Object.entries(input)) {
    const spec = SETTING_SPECS.get(key);
    if (!spec) {
      problems.push({
        location: `body/${key}`,
        message: `is not a run-time setting (one of: ${SETTING_KEYS.join(', ')})`,
      });
      continue;
    }
    try {
      next[key] = parseOptionValue(spec, value, key);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push({ location: `body/${key}`, message: error.message });
    }
  }
  const [first] = problems;
  if (first)
    throw new ApiError('invalidBody', `invalid settings: ${first.location} ${first.message}`, problems);
  return next as unknown as Settings;
}
