/**
 * The docs' tables of error kinds, notice codes and behaviours are made from their catalogues
 * (scripts/catalogue-tables.ts): a kind, code or behaviour added, changed or removed in the code
 * without the page made again fails here, naming the page and the command that mends it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGES, withTables } from '../scripts/catalogue-tables.js';

describe('tables made from the catalogues', () => {
  for (const page of PAGES) {
    it(`${page} shows the current tables (run \`npx tsx scripts/catalogue-tables.ts\`)`, () => {
      const text = readFileSync(new URL(`../${page}`, import.meta.url), 'utf8');
      expect(text).toBe(withTables(page, text));
    });
  }
});
