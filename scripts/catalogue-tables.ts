/**
 * Makes the docs' tables from the catalogues and the spec, so a page never drifts from the code:
 * the error kinds (docs/errors.md, from src/errors.ts), the notice codes (docs/notices.md, from
 * src/notices.ts), the behaviours (docs/behaviours.md, from src/harness/behaviours.ts), the admin
 * calls (docs/admin-api.md, from the spec's admin operations; docs/mcp.md's tools, from the same), the options (docs/options.md, from
 * src/config.ts) and the scenarios (docs/trouble.md, from src/harness/scenario-catalogue.ts). Each
 * table sits between `<!-- table: NAME -->` and `<!-- /table -->` in its page. `npm run generate`
 * writes them; test/catalogue-tables.test.ts fails when a page is not what this makes of it.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { OpenApiDocument } from '../src/contract/spec-document.js';
import { ERROR_KINDS, type ErrorKind } from '../src/errors.js';
import {
  BEHAVIOURS,
  type Behaviour,
  type BehaviourGroup,
  ERRORS_NOT_MET,
} from '../src/harness/behaviours.js';
import { NOTICE_KINDS, type NoticeKind } from '../src/notices.js';
import { adminCallsTable, adminNamesTable, adminTenancyTable, mcpToolsTable } from './admin-tables.js';
import { optionsTable } from './options-table.js';
import { scenariosTable } from './scenarios-table.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function violationCell(kind: ErrorKind): string {
  if (kind.violation === 'named') return 'when `errors` names what was broken';
  if (!kind.violation) return 'no';
  return kind.location ? `yes, at \`${kind.location}\`` : 'yes';
}

function errorsTable(): string {
  const rows = Object.entries(ERROR_KINDS as Record<string, ErrorKind>).map(
    ([name, k]) =>
      `| \`${name}\` | ${k.status} | ${k.code} | ${cell(k.message)} | ${cell(k.meaning)} | ${violationCell(k)} |`,
  );
  return [
    '| kind | status | code | message | when | violation |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

function noticesTable(): string {
  const rows = Object.entries(NOTICE_KINDS as Record<string, NoticeKind>).map(
    ([code, k]) => `| \`${code}\` | ${cell(k.when)} | ${cell(k.instead)} |`,
  );
  return ['| code | when | what to do instead |', '| --- | --- | --- |', ...rows].join('\n');
}

function behavioursTable(group: BehaviourGroup): string {
  const rows = BEHAVIOURS.filter((b: Behaviour) => b.group === group).map(
    (b) => `| \`${b.id}\` | ${b.likelihood} | ${cell(b.meaning)} | ${cell(b.why)} | ${cell(b.how)} |`,
  );
  return [
    '| id | likelihood | meaning | why a client should meet it | how to exercise it |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

function errorsNotMetTable(): string {
  const rows = Object.entries(ERRORS_NOT_MET).map(([kind, why]) => `| \`${kind}\` | ${cell(why ?? '')} |`);
  return ['| kind | why |', '|---|---|', ...rows].join('\n');
}

/** The spec as the file holds it now (`npm run generate` may have just written its enums). */
const spec = (): OpenApiDocument =>
  parse(readFileSync(new URL('../spec/openapi.yaml', import.meta.url), 'utf8')) as OpenApiDocument;

/** Every generated table: its page and its name there. */
export const TABLES: ReadonlyArray<{ page: string; name: string; make: () => string }> = [
  { page: 'docs/errors.md', name: 'errors', make: errorsTable },
  { page: 'docs/notices.md', name: 'notices', make: noticesTable },
  { page: 'docs/behaviours.md', name: 'behaviours-vendor', make: () => behavioursTable('vendor') },
  { page: 'docs/behaviours.md', name: 'behaviours-error', make: () => behavioursTable('error') },
  { page: 'docs/behaviours.md', name: 'behaviours-notice', make: () => behavioursTable('notice') },
  { page: 'docs/behaviours.md', name: 'behaviours-fault', make: () => behavioursTable('fault') },
  { page: 'docs/behaviours.md', name: 'errors-not-met', make: errorsNotMetTable },
  { page: 'docs/admin-api.md', name: 'admin-calls', make: () => adminCallsTable(spec()) },
  { page: 'docs/admin-api.md', name: 'admin-names', make: () => adminNamesTable(spec()) },
  { page: 'docs/mcp.md', name: 'mcp-tools', make: () => mcpToolsTable(spec()) },
  { page: 'docs/security.md', name: 'admin-tenancy', make: () => adminTenancyTable(spec()) },
  // The image's defaults: what a person running the container sees.
  { page: 'docs/options.md', name: 'options', make: () => optionsTable(true) },
  { page: 'docs/trouble.md', name: 'scenarios', make: scenariosTable },
];

/** A page's text with each of its tables made afresh; throws when a table's markers are missing. */
export function withTables(page: string, text: string): string {
  let out = text;
  for (const table of TABLES.filter((t) => t.page === page)) {
    const open = `<!-- table: ${table.name} -->\n`;
    const close = '\n<!-- /table -->';
    const start = out.indexOf(open);
    const end = out.indexOf(close, start);
    if (start < 0 || end < 0)
      throw new Error(`${page}: no "<!-- table: ${table.name} -->" ... "<!-- /table -->"`);
    out = `${out.slice(0, start + open.length)}${table.make()}${out.slice(end)}`;
  }
  return out;
}

export const PAGES = [...new Set(TABLES.map((t) => t.page))];
