import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every path of this repository that the README, docs/ and examples/ name (a fixture folder to
 * load, a file to read, a script to run) exists, from the repository's root or from the page's
 * own folder: a reader who pastes `--fixtures <path>` gets that set, not an empty mount.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const pagesOf = (folder: string) =>
  readdirSync(join(ROOT, folder))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `${folder}/${name}`);
const PAGES = ['README.md', ...pagesOf('docs'), ...pagesOf('examples')];

/** Paths the docs name that the reader or a command makes, not the repository. */
const MADE_BY_THE_READER = new Map([
  ['test/fixtures/passportal', "the README's in-process suite: the reader copies the example set there"],
  ['test/fixtures/our-tenant', "capture --out: the reader's captured fixture set"],
  ['fixtures/documents.json', "docs/testing.md's suite: the reader's own fixture file, beside the test"],
  ['bench/results/latest.json', 'written by npm run bench'],
  ['docs/ledgers/', 'where ledgers of check-live are committed, once there is one'],
]);

/** A repository path: a top-level folder of the repository and what follows, outside URLs and names. */
const PATH =
  /(?<![\w./$:-])(?:\.\/)?((?:examples|test|src|fixtures|spec|scripts|docker|bench|docs|deploy)\/[\w./*-]*[\w/])/g;

describe('paths the docs name', () => {
  it('exist in the repository (from its root, from the page, or from examples/ for its excerpts)', () => {
    const missing: string[] = [];
    let named = 0;
    for (const page of PAGES) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, path = ''] of text.matchAll(PATH)) {
        if (path.includes('*') || MADE_BY_THE_READER.has(path)) continue;
        named += 1;
        // Excerpts of examples/docker-compose.yml name paths from its folder.
        const found = [ROOT, join(ROOT, dirname(page)), join(ROOT, 'examples')].some((from) =>
          existsSync(join(from, path)),
        );
        if (!found) missing.push(`${page}: ${path}`);
      }
    }
    expect(named).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });

  it('name the example fixture folder where it is (examples/fixtures/suite), never a test/fixtures/suite', () => {
    for (const page of PAGES) {
      expect(readFileSync(join(ROOT, page), 'utf8'), page).not.toContain('test/fixtures/suite');
    }
    expect(readdirSync(join(ROOT, 'examples/fixtures/suite'))).toContain('documents.json');
  });
});
