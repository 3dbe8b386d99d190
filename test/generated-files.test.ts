/**
 * Files made from another (scripts/generate.ts): the spec's catalogue enums, the operation ids,
 * the Python client's spec types (clients/python/src/passportal_fake/_spec_types.py), the
 * PowerShell module's field table (clients/powershell/PassportalFake/Private/spec-fields.psd1),
 * the docs' tables of errors, notices, behaviours, admin calls, options and scenarios, the config
 * file's schema and the live-check docs. A catalogue, an option or an admin operation changed
 * without `npm run generate` fails here, naming the file and the command that mends it; and what
 * the command writes follows its sources.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { adminCallsTable, adminNamesTable } from '../scripts/admin-tables.js';
import { GENERATE_COMMAND, GENERATED } from '../scripts/generate.js';
import { SPEC_ENUMS, withSpecEnums } from '../scripts/spec-enums.js';
import type { OpenApiDocument } from '../src/contract/spec-document.js';
import { NOTICE_CODES } from '../src/notices.js';

const read = (file: string): string => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');

describe('generated files are current', () => {
  for (const { file, make } of GENERATED) {
    it(`${file} is what its sources make (run \`${GENERATE_COMMAND}\`)`, () => {
      const text = read(file);
      expect(text).toBe(make(text));
    });
  }
});

describe("the spec's catalogue enums", () => {
  const spec = read('spec/openapi.yaml');

  it('writes a catalogue back into its enum and changes no other line of the spec', () => {
    const last = NOTICE_CODES[NOTICE_CODES.length - 1] ?? '';
    const stale = spec
      .replace(`            - ${last}\n`, '')
      .replace('enum: [key, token, session, instance]', 'enum: [key]');
    expect(stale).not.toBe(spec);
    expect(withSpecEnums(stale)).toBe(spec);
  });

  it('lists each catalogue in its enum, in the catalogue order', () => {
    const document = parse(spec) as Record<string, unknown>;
    expect(SPEC_ENUMS.length).toBeGreaterThan(4);
    for (const { path, values, where } of SPEC_ENUMS) {
      const schema = path.reduce<unknown>((node, step) => {
        if (typeof step === 'string') return (node as Record<string, unknown>)[step];
        return (node as Array<{ name?: string }>).find((item) => item.name === step.name);
      }, document) as { enum: string[] };
      expect(schema.enum, where).toEqual([...values()]);
    }
  });

  it('names the enum it cannot find', () => {
    const renamed = spec.replace('    Notice:\n', '    NoticeRenamed:\n');
    expect(() => withSpecEnums(renamed)).toThrow(/components\/schemas\/Notice\/properties\/code/);
  });
});

describe("docs/admin-api.md's tables, made from the spec's admin operations", () => {
  const document = parse(read('spec/openapi.yaml')) as OpenApiDocument;
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  const withPing = {
    ...document,
    paths: {
      ...paths,
      '/__admin/ping': {
        post: {
          tags: ['admin'],
          operationId: 'ping',
          summary: 'Answer a ping',
          description: 'Echoes `times` pongs; see docs/trouble.md.',
          parameters: [{ name: 'loud', in: 'query', schema: { type: 'boolean' } }],
          requestBody: {
            content: {
              'application/json': {
                schema: { type: 'object', required: ['times'], properties: { times: {}, note: {} } },
              },
            },
          },
          'x-client': ['ping'],
          'x-controls': ['ping'],
          'x-powershell': ['Send-PassportalFakePing'],
          'x-python': ['ping'],
          responses: {},
        },
      },
    },
  } as OpenApiDocument;

  it('gives an admin operation added to the spec a row in each table', () => {
    expect(adminCallsTable(withPing).split('\n')).toContain(
      '| `POST /__admin/ping` | query: `loud`; body: `{times, note?}` | Answer a ping. Echoes `times` pongs; see [trouble.md](trouble.md). |',
    );
    expect(adminNamesTable(withPing).split('\n')).toContain(
      '| `POST /__admin/ping` | `ping` | `ping` | `Send-PassportalFakePing` | `ping` |',
    );
  });

  it('has a row for every admin operation and none for a vendor one', () => {
    const rows = (table: string) => table.split('\n').slice(2);
    const admin = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => Array.isArray(op.tags) && op.tags.includes('admin'))
        .map(([method]) => `\`${method.toUpperCase()} ${path}\``),
    );
    for (const table of [adminCallsTable(document), adminNamesTable(document)]) {
      expect(
        rows(table)
          .map((row) => row.split(' | ')[0]?.slice(2))
          .sort(),
      ).toEqual([...admin].sort());
    }
  });

  it('refuses an admin operation without its name in a language', () => {
    const ping = (withPing.paths as typeof paths)['/__admin/ping']?.post ?? {};
    delete ping['x-python'];
    expect(() => adminNamesTable(withPing)).toThrow('ping: no x-python');
  });
});
