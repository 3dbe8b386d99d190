import { type Command, Option } from 'commander';
import type { OptionSet } from './declare.js';
import { parseOptionValue } from './parse-value.js';

/** The name commander keeps a flag's value under: `--state-file` → `stateFile`. */
const valueName = (flag: string): string =>
  flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** Adds a flag for every option to `command`, under its group's heading in `--help`. */
export function addOptionFlags<O extends object>(set: OptionSet<O>, command: Command): Command {
  for (const spec of set.specs) {
    const shown = spec.default === undefined ? 'none' : JSON.stringify(spec.default);
    const takesValue = spec.kind.type !== 'boolean';
    const option = new Option(
      takesValue ? `${spec.flag} <value>` : `${spec.flag} [value]`,
      `${spec.description} (env ${spec.env}, default ${shown})`,
    ).helpGroup(`${set.groupTitles[spec.group] ?? spec.group}:`);
    if (spec.repeatable)
      option.argParser((value: string, previous?: string) => (previous ? `${previous},${value}` : value));
    command.addOption(option);
  }
  return command;
}

/** The options given as flags, from commander's parsed values; a bare boolean flag means true. */
export function optionsFromFlags<O extends object>(
  set: OptionSet<O>,
  values: Record<string, unknown>,
): Partial<O> {
  const out: Record<string, unknown> = {};
  for (const spec of set.specs) {
    const raw = values[valueName(spec.flag)];
    if (raw === undefined) continue;
    out[spec.key] = parseOptionValue(spec, raw === true ? 'true' : raw, `option ${spec.flag}`);
  }
  return out as Partial<O>;
}
