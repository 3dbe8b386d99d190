/**
 * Makes the docs' tables from the catalogues, so a page never drifts from the code: the error
 * kinds (docs/errors.md, from src/errors.ts), the notice codes (docs/notices.md, from
 * src/notices.ts) and the behaviours (docs/behaviours.md, from src/harness/behaviours.ts). Each
 * table sits between `<!-- table: NAME -->` and `<!-- /table -->` in its page;
 * test/catalogue-tables.test.ts fails when a page is not what this makes of it:
 *
 *   npx tsx scripts/catalogue-tables.ts           write the tables into the pages
 *   npx tsx scripts/catalogue-tables.ts --check   exit 1 naming each page that is out of date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ERROR_KINDS, type ErrorKind } from '../src/errors.js';
import {
  BEHAVIOURS,
  type Behaviour,
  type BehaviourGroup,
  ERRORS_NOT_MET,
} from '../src/harness/behaviours.js';
import { NOTICE_KINDS, type NoticeKind } from '../src/notices.js';

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

/** Every generated table: its page and its name there. */
export const TABLES: ReadonlyArray<{ page: string; name: string; make: () => string }> = [
  { page: 'docs/errors.md', name: 'errors', make: errorsTable },
  { page: 'docs/notices.md', name: 'notices', make: noticesTable },
  { page: 'docs/behaviours.md', name: 'behaviours-vendor', make: () => behavioursTable('vendor') },
  { page: 'docs/behaviours.md', name: 'behaviours-error', make: () => behavioursTable('error') },
  { page: 'docs/behaviours.md', name: 'behaviours-notice', make: () => behavioursTable('notice') },
  { page: 'docs/behaviours.md', name: 'behaviours-fault', make: () => behavioursTable('fault') },
  { page: 'docs/behaviours.md', name: 'errors-not-met', make: errorsNotMetTable },
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = new URL('../', import.meta.url);
  const stale: string[] = [];
  for (const page of PAGES) {
    const text = readFileSync(new URL(page, root), 'utf8');
    const made = withTables(page, text);
    if (made === text) continue;
    if (process.argv.includes('--check')) stale.push(page);
    else writeFileSync(new URL(page, root), made);
  }
  if (stale.length > 0) {
    process.stderr.write(`out of date: ${stale.join(', ')} (run npx tsx scripts/catalogue-tables.ts)\n`);
    process.exit(1);
  }
}
