/**
 * Writes every file made from another, in the order they depend on each other:
 *
 *   npm run generate              write each file that is not what its source makes of it
 *   npm run generate -- --check   write nothing; exit 1 naming each file that is out of date
 *
 * - spec/openapi.yaml: the enums that list a catalogue (scripts/spec-enums.ts);
 * - src/contract/operation-ids.ts: the operation ids, from the spec (scripts/operation-ids.ts);
 * - clients/python/src/passportal_fake/_spec_types.py: the admin API's bodies, queries and answers
 *   as Python `TypedDict`s and each field's bounds, from the spec (scripts/python-spec-types.ts);
 * - clients/powershell/PassportalFake/Private/spec-fields.psd1: each admin command's fields with
 *   their types and bounds, from the spec (scripts/powershell-spec-fields.ts);
 * - the docs' tables between `<!-- table: NAME -->` markers (scripts/catalogue-tables.ts);
 * - spec/config.schema.json: the config file's schema, from src/config.ts (scripts/config-schema.ts);
 * - docs/decisions.md and docs/live-check.md: the live column and the probe table, from the probe
 *   catalogue and the ledgers in docs/ledgers/ (src/live/live-docs.ts).
 *
 * test/generated-files.test.ts fails, naming this command, when one of them is out of date.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import type { OpenApiDocument } from '../src/contract/spec-document.js';
import { withLiveColumn, withProbeTable } from '../src/live/live-docs.js';
import { PAGES, withTables } from './catalogue-tables.js';
import { configSchema } from './config-schema.js';
import { committedLedgers } from './live-docs.js';
import { operationIdsModule } from './operation-ids.js';
import { POWERSHELL_SPEC_FIELDS_FILE, powershellSpecFieldsData } from './powershell-spec-fields.js';
import { PYTHON_SPEC_TYPES_FILE, pythonSpecTypesModule } from './python-spec-types.js';
import { withSpecEnums } from './spec-enums.js';

export const GENERATE_COMMAND = 'npm run generate';

export interface GeneratedFile {
  /** Relative to the repository's root. */
  file: string;
  /** The file's text as its sources make it, given its text now. */
  make: (current: string) => string;
}

const root = new URL('../', import.meta.url);
const read = (file: string): string => readFileSync(new URL(file, root), 'utf8');

/** The config schema as the formatter lays it out; the text now when it holds the same schema. */
function configSchemaText(current: string): string {
  const schema = configSchema();
  if (isDeepStrictEqual(JSON.parse(current), schema)) return current;
  const file = fileURLToPath(new URL('spec/config.schema.json', root));
  const made = `${JSON.stringify(schema, null, 2)}\n`;
  return execFileSync('npx', ['biome', 'format', `--stdin-file-path=${file}`], {
    input: made,
    encoding: 'utf8',
  });
}

/** Every generated file, each after the files it is made from. */
export const GENERATED: readonly GeneratedFile[] = [
  { file: 'spec/openapi.yaml', make: withSpecEnums },
  {
    file: 'src/contract/operation-ids.ts',
    make: () => operationIdsModule(parse(read('spec/openapi.yaml')) as OpenApiDocument),
  },
  {
    file: PYTHON_SPEC_TYPES_FILE,
    make: () => pythonSpecTypesModule(parse(read('spec/openapi.yaml')) as OpenApiDocument),
  },
  {
    file: POWERSHELL_SPEC_FIELDS_FILE,
    make: () => powershellSpecFieldsData(parse(read('spec/openapi.yaml')) as OpenApiDocument),
  },
  ...PAGES.map((page) => ({ file: page, make: (text: string) => withTables(page, text) })),
  { file: 'spec/config.schema.json', make: configSchemaText },
  { file: 'docs/decisions.md', make: (text: string) => withLiveColumn(text, committedLedgers()) },
  { file: 'docs/live-check.md', make: withProbeTable },
];

/**
 * Makes each file afresh, in order; writes those that changed unless `check`. Answers the files
 * that were (or, with `check`, would be) changed.
 */
export function generate(check: boolean): string[] {
  const changed: string[] = [];
  for (const { file, make } of GENERATED) {
    const current = read(file);
    const made = make(current);
    if (made === current) continue;
    changed.push(file);
    if (!check) writeFileSync(new URL(file, root), made);
  }
  return changed;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const check = process.argv.includes('--check');
  const changed = generate(check);
  if (check && changed.length > 0) {
    process.stderr.write(`out of date: ${changed.join(', ')} (run ${GENERATE_COMMAND})\n`);
    process.exit(1);
  }
  process.stdout.write(
    changed.length > 0 ? `wrote ${changed.join(', ')}\n` : 'every generated file is current\n',
  );
}
