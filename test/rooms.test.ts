/**
 * Rooms a newcomer can find: each folder of `src/` has a README.md with one table row per file
 * (and per subfolder, written `name/`), and every row names something that exists; `src/` itself
 * names each of its files and folders in its README.md. A file added, renamed or removed without
 * its line fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** A folder's entries as its README names them: files as they are, folders with a trailing `/`. */
function entriesOf(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.name !== 'README.md')
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
}

function foldersBelow(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      const path = join(folder, e.name);
      return [path, ...foldersBelow(path)];
    });
}

/** The names in the first column of a README's table: `| \`name\` | ... |`. */
function rowsOf(readme: string): string[] {
  return [...readme.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] ?? '').sort();
}

describe('every src/ folder has its file table', () => {
  const folders = foldersBelow(SRC);

  it('finds the folders', () => {
    expect(folders.map((f) => relative(SRC, f))).toEqual(
      expect.arrayContaining(['contract', 'domain', 'domain/fixtures', 'harness', 'http', 'tls', 'ui']),
    );
  });

  for (const folder of folders) {
    const name = relative(SRC, folder);
    it(`src/${name}/README.md has one line per file, each naming a file that exists`, () => {
      const readme = readFileSync(join(folder, 'README.md'), 'utf8');
      expect(readme.startsWith(`# ${name}/`), 'the heading names the folder').toBe(true);
      const rows = rowsOf(readme);
      expect(rows.length, 'no name twice').toBe(new Set(rows).size);
      expect(rows).toEqual(entriesOf(folder));
    });
  }

  it("src/README.md names each of src/'s own files and folders", () => {
    const readme = readFileSync(join(SRC, 'README.md'), 'utf8');
    const missing = entriesOf(SRC).filter((entry) => !readme.includes(entry));
    expect(missing).toEqual([]);
  });
});
