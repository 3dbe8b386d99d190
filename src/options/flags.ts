import { type Command, Option } from 'commander';
import { GROUP_TITLES, OPTION_SPECS, type Options } from '../config.js';
import { parseOptionValue } from './parse-value.js';

/** The name commander keeps a flag's value under: `--state-file` → `stateFile`. */
const valueName = (flag: string): string =>
  flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** Adds a flag for every option to `command`, under its group's heading in `--help`. */
export function addOptionFlags(command: Command): Command {
  for (const spec of OPTION_SPECS) {
    const shown = spec.default === undefined ? 'none' : JSON.stringify(spec.default);
    const takesValue = spec.kind.type !== 'boolean';
    const option = new Option(
      takesValue ? `${spec.flag} <value>` : `${spec.flag} [value]`,
      `${spec.description} (env ${spec.env}, default ${shown})`,
    ).helpGroup(`${GROUP_TITLES[spec.group]}:`);
    if (spec.repeatable)
      option.argParser((value: string, previous?: string) => (previous ? `${previous},${value}` : value));
    command.addOption(option);
  }
  return command;
}

/** The options given as flags, from commander's parsed values; a bare boolean flag means true. */
export function optionsFromFlags(values: Record<string, unknown>): Partial<Options> {
  const out: Record<string, unknown> = {};
  for (const spec of OPTION_SPECS) {
    const raw = values[valueName(spec.flag)];
    if (raw === undefined) continue;
    out[spec.key] = parseOptionValue(spec, raw === true ? 'true' : raw, `option ${spec.flag}`);
  }
  return out as Partial<Options>;
}
