import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { OptionSet } from './declare.js';
import { ConfigError, parseOptionValue } from './parse-value.js';
import { optionNamed } from './resolve.js';

/** The config file the CLI reads when none is named: in the folder it is started from. */
export const DEFAULT_CONFIG_FILE = 'passportal-fake.config.json';

/**
 * Options from a config file's JSON text (`passportal-fake.config.json`): an object keyed by the
 * options' names as `createMockServer()` takes them, checked as flags and variables are, unknown
 * keys refused with the nearest name. `$schema` (for editors: `spec/config.schema.json`) is
 * allowed. `source` names the file in messages.
 */
export function optionsFromConfigText<O extends object>(
  set: OptionSet<O>,
  text: string,
  source: string,
): Partial<O> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${source}: not valid JSON (${(error as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`${source}: must be a JSON object of options`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === '$schema') continue;
    const spec = optionNamed(
      set,
      key,
      `${source}: `,
      '; the options are listed by --help and in spec/config.schema.json',
    );
    out[key] = parseOptionValue(spec, value, `${source}: ${key}`);
  }
  return out as Partial<O>;
}

/**
 * The config file's options: the file named by --config or CONFIG_FILE (it must exist), else
 * ./passportal-fake.config.json when there is one. A relative path in it (`fixtures`,
 * `stateFile`, the TLS files) is relative to the file's folder.
 */
export function optionsFromConfigFile<O extends object>(
  set: OptionSet<O>,
  named: string | undefined,
): Partial<O> {
  const file = named ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
  if (file === undefined) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `config file ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const options: Record<string, unknown> = optionsFromConfigText(set, text, `config file ${file}`);
  for (const spec of set.specs) {
    const value = options[spec.key];
    if (spec.path && typeof value === 'string' && !isAbsolute(value)) {
      options[spec.key] = resolve(dirname(resolve(file)), value);
    }
  }
  return options as Partial<O>;
}
