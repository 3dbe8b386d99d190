/**
 * What a user reads after `npm install` must lead somewhere: every relative link (and image) of
 * every Markdown file the package ships points at a file the package ships too, and a link to a
 * heading finds that heading. `npm pack --dry-run --json` lists what would ship.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A heading's anchor as GitHub and npm make it: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** The text outside fenced code blocks, where Markdown links live. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '');

let shipped: Set<string>;

beforeAll(async () => {
  const { stdout } = await run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [result] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  shipped = new Set((result?.files ?? []).map((f) => f.path));
}, 120_000);

describe("the packed package's docs", () => {
  it('link only to files and headings the package ships', () => {
    const pages = [...shipped].filter((path) => path.endsWith('.md'));
    expect(pages).toContain('README.md');
    const broken: string[] = [];
    let links = 0;
    for (const page of pages) {
      const text = prose(readFileSync(`${ROOT}/${page}`, 'utf8'));
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith('//')) continue;
        links += 1;
        const [file = '', anchor] = target.split('#');
        const resolved = file === '' ? page : posix.normalize(posix.join(posix.dirname(page), file));
        const folder = `${resolved.replace(/\/$/, '')}/`;
        const exists = shipped.has(resolved) || [...shipped].some((path) => path.startsWith(folder));
        if (!exists) {
          broken.push(`${page}: ${target} (not shipped)`);
          continue;
        }
        if (anchor && resolved.endsWith('.md')) {
          const headings = [
            ...prose(readFileSync(`${ROOT}/${resolved}`, 'utf8')).matchAll(/^#{1,6} (.+)$/gm),
          ];
          if (!headings.map((m) => anchorOf(m[1] ?? '')).includes(anchor)) {
            broken.push(`${page}: ${target} (no such heading)`);
          }
        }
      }
    }
    expect(links).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });
});
