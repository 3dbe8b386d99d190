/**
 * The built-in scenarios as a markdown table, from the one catalogue
 * (src/harness/controls/scenario-catalogue.ts), for docs/trouble.md (`npm run generate` writes it there;
 * test/catalogue-tables.test.ts holds the page to it). Printed by:
 *
 *   npx tsx scripts/scenarios-table.ts
 */
import { pathToFileURL } from 'node:url';
import { SCENARIOS } from '../src/harness/controls/scenario-catalogue.js';

const escapePipes = (text: string): string => text.replace(/\|/g, '\\|');

export function scenariosTable(): string {
  const rows = SCENARIOS.map((s) => {
    const params =
      Object.entries(s.parameters.properties)
        .map(([key, p]) => `\`${key}\` (${p.minimum}–${p.maximum}, default ${p.default}): ${p.description}`)
        .join('; ') || 'none';
    return `| \`${s.name}\` | ${escapePipes(s.description)} | ${escapePipes(s.catches)} | ${escapePipes(params)} |`;
  });
  return [
    '| scenario | what it does | the client bug it catches | parameters |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  process.stdout.write(`${scenariosTable()}\n`);
