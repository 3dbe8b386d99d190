/**
 * test/README.md is the map from concern to test files: every test file on exactly one row, and
 * every row naming a file that exists. A test file added, moved or removed without its row fails
 * here, so the map a newcomer reads stays whole.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TEST = fileURLToPath(new URL('.', import.meta.url));

function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((e) => {
    const path = join(folder, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testFiles(path);
    return e.name.endsWith('.test.ts') ? [relative(TEST, path)] : [];
  });
}

describe('test/README.md', () => {
  const rows = [...readFileSync(join(TEST, 'README.md'), 'utf8').matchAll(/^\| `([^`]+)` \|/gm)].map(
    (m) => m[1] ?? '',
  );

  it('names each test file once', () => {
    expect(rows.length).toBe(new Set(rows).size);
    expect([...rows].sort()).toEqual(testFiles(TEST).sort());
  });
});
