import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { addNotice, NOTICE_CODES, NOTICE_KINDS, type NoticeSink, notice } from '../src/notices.js';

/**
 * The notice catalogue, checked both ways (as fastify checks its error codes): every code is
 * documented in docs/notices.md and every documented code exists; the admin spec's `code` enum
 * is written from the catalogue (test/generated-files.test.ts). test/http/notices.test.ts proves
 * each code is produced.
 */

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** The codes in the first column of docs/notices.md's table. */
function documentedCodes(): string[] {
  return [...read('docs/notices.md').matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1] ?? '');
}

describe('notice catalogue', () => {
  it("documents every code in docs/notices.md, once each, with when and the catalogue's what to do", () => {
    const documented = documentedCodes();
    expect([...documented].sort()).toEqual([...NOTICE_CODES].sort());
    expect(new Set(documented).size).toBe(documented.length);
    const page = read('docs/notices.md');
    for (const code of NOTICE_CODES) {
      const row = page.split('\n').find((line) => line.startsWith(`| \`${code}\` |`)) ?? '';
      // code | when | what to do: both filled in.
      const cells = row.split(' | ').map((cell) => cell.replace(/^\|\s*|\s*\|$/g, '').trim());
      expect(cells, code).toHaveLength(3);
      expect(cells[1], `${code}: when`).not.toBe('');
      // What to do is the catalogue's own text (the default message), code spans aside.
      expect(cells[2]?.replaceAll('`', ''), `${code}: what to do`).toBe(NOTICE_KINDS[code].instead);
    }
  });

  it("gives the admin spec's Notice a required code (its enum is the catalogue: npm run generate)", () => {
    const spec = parse(read('spec/openapi.yaml')) as {
      components: { schemas: { Notice: { required: string[] } } };
    };
    expect(spec.components.schemas.Notice.required).toContain('code');
  });

  it('says for every kind when it is noted and what to do instead', () => {
    for (const [code, kind] of Object.entries(NOTICE_KINDS)) {
      expect(kind.when.length, code).toBeGreaterThan(10);
      expect(kind.instead.length, code).toBeGreaterThan(5);
    }
  });

  it('makes a notice with its code and location; the message defaults to what to do instead', () => {
    expect(notice('pageSizeCapped', 'query.resultsPerPage', '1000 is above the cap')).toEqual({
      code: 'pageSizeCapped',
      location: 'query.resultsPerPage',
      message: '1000 is above the cap',
    });
    expect(notice('repeatedParameter', 'query.pageNum')).toEqual({
      code: 'repeatedParameter',
      location: 'query.pageNum',
      message: NOTICE_KINDS.repeatedParameter.instead,
    });
  });

  it('collects notices in a sink that has no list until the first one', () => {
    const sink: NoticeSink = { notices: undefined };
    addNotice(sink, notice('nonApiPath', 'path'));
    addNotice(sink, notice('unknownParameter', 'query.orderby'));
    expect(sink.notices?.map((n) => n.code)).toEqual(['nonApiPath', 'unknownParameter']);
  });
});
