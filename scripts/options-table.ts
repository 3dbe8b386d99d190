/**
 * Prints the options tables (markdown, one per group) from the declarations in src/config.ts, so
 * the docs never drift from the code:
 *
 *   npx tsx scripts/options-table.ts            every option: variable, flag, default, values
 *   npx tsx scripts/options-table.ts --image    the same, with the Docker image's own defaults
 */
import { pathToFileURL } from 'node:url';
import { GROUP_TITLES, OPTION_SPECS, type OptionSpec } from '../src/config.js';

/** Defaults the Docker image sets with ENV (see Dockerfile); FIXTURES follows a /fixtures mount. */
const IMAGE_DEFAULTS: Record<string, string> = {
  HOST: '`0.0.0.0`',
  FIXTURES: '`/fixtures` when mounted, else the bundled set',
  HTTPS_PORT: '`4443`',
  TLS_DIR: '`/tls` (a new CA per container unless mounted)',
};

function values(spec: OptionSpec): string {
  const kind = spec.kind;
  switch (kind.type) {
    case 'integer':
      return `integer ${kind.min.toString()}–${kind.max.toString()}`;
    case 'enum':
      return kind.values.map((v) => `\`${v}\``).join(', ');
    case 'boolean':
      return '`true` / `false`';
    case 'string':
      return 'text';
  }
}

function defaultValue(spec: OptionSpec, image: boolean): string {
  if (image && IMAGE_DEFAULTS[spec.env]) return IMAGE_DEFAULTS[spec.env] as string;
  if (spec.default === undefined) return '(none)';
  return `\`${String(spec.default)}\``;
}

const escapePipes = (text: string): string => text.replace(/\|/g, '\\|');

const row = (s: OptionSpec, image: boolean): string =>
  `| \`${s.env}\` | \`${s.flag}\` | ${defaultValue(s, image)} | ${values(s)} | ${escapePipes(s.description)} |`;

/** A heading and a table for each group of options, in the order declared. */
export function optionsTable(image = false): string {
  const head = [
    `| environment variable | flag | default${image ? ' (image)' : ''} | values | meaning |`,
    '|---|---|---|---|---|',
  ];
  return Object.entries(GROUP_TITLES)
    .map(([group, title]) => {
      const rows = OPTION_SPECS.filter((s) => s.group === group).map((s) => row(s, image));
      return [`## ${title}`, '', ...head, ...rows].join('\n');
    })
    .join('\n\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${optionsTable(process.argv.includes('--image'))}\n`);
}
