import { nearestName } from '../nearest-name.js';
import type { OptionSet } from './declare.js';

/** What `--help` and a usage error say beyond the options: the commands, and the option meant. */

/** The commands besides starting the fake, each with its one line of `--help`. */
export const COMMANDS: ReadonlyArray<{ name: string; summary: string }> = [
  {
    name: 'report',
    summary: "a running fake's or session's report (junit, ctrf, markdown, json) and CI gates",
  },
  {
    name: 'check-live',
    summary: "asks your live tenant, read-only, what each of the fake's decisions assumes",
  },
  { name: 'capture', summary: 'one organization of your live tenant as a fixture set, every text replaced' },
  {
    name: 'mcp',
    summary: 'the admin API as an MCP server on standard input and output, for an assistant (docs/mcp.md)',
  },
];

export const COMMANDS_HELP =
  '\nCommands (each with its own --help, e.g. passportal-docs-fake report --help):\n' +
  `  ${'(none)'.padEnd(12)}starts the fake with the options above\n` +
  COMMANDS.map(({ name, summary }) => `  ${name.padEnd(12)}${summary}\n`).join('');

/** The hint after a usage error: the help is long, so it is not printed whole. */
export const HELP_HINT = '(passportal-docs-fake --help lists the options and commands)';

/**
 * The long option an unknown one most likely meant: a short option (`-p`) by its letter (the
 * fake's options are long only), a long one by its spelling. Empty when nothing is near.
 */
export function meantOptions(unknown: string, flags: readonly string[]): string[] {
  const name = unknown.replace(/^-+/, '').split('=')[0] ?? '';
  if (name.length === 1) {
    // A letter stands for a one-word option first (-p: --port, not --proxy-auth), as other tools'.
    const starting = flags.filter((flag) => flag.startsWith(`--${name.toLowerCase()}`));
    const oneWord = starting.filter((flag) => !flag.slice(2).includes('-'));
    return oneWord.length > 0 ? oneWord : starting;
  }
  // Two slips (a swapped pair: --prot) even in a short name: options are few and far apart.
  const near = nearestName(
    name,
    flags.map((flag) => flag.slice(2)),
    Math.max(2, Math.floor(name.length / 3)),
  );
  return near === undefined ? [] : [`--${near}`];
}

/** Commander's message for an unknown option, with the long option that was likely meant. */
export function unknownOptionMessage<O extends object>(set: OptionSet<O>, message: string): string {
  const flag = message.match(/unknown option '([^']+)'/)?.[1];
  if (flag === undefined) return message;
  const meant = meantOptions(flag, ['--config', '--help', '--version', ...set.specs.map((s) => s.flag)]);
  const hint =
    meant.length === 0
      ? ''
      : ` (did you mean ${meant.length === 1 ? meant[0] : `one of ${meant.join(', ')}`}?)`;
  return `error: unknown option '${flag}'${hint}\n`;
}
