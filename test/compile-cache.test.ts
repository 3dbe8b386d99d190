/**
 * The start-up bundle's code cache (src/compile-cache.ts): written after a run that served, used
 * by the next start, never read from or written to a folder another user could have planted.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'compile-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bundle = join(dir, 'bundle.cjs');
writeFileSync(bundle, 'exports.answer = [1, 2, 3].map((n) => n * 14).join(",");\n');
const runner = join(dir, 'run.mts');
writeFileSync(
  runner,
  `import { loadBundle, markServed } from ${JSON.stringify(join(process.cwd(), 'src/compile-cache.ts'))};
const bundle = loadBundle(process.argv[2]);
if (process.argv[3] === 'served') markServed();
process.stdout.write(String(bundle.answer));
`,
);

/** Runs the bundle through the loader in a fresh process; answers what the bundle exported. */
function start(env: NodeJS.ProcessEnv, served = true): string {
  const clean = { ...process.env };
  delete clean.NODE_COMPILE_CACHE;
  delete clean.NODE_DISABLE_COMPILE_CACHE;
  return execFileSync(process.execPath, ['--import', 'tsx', runner, bundle, served ? 'served' : 'not'], {
    env: { ...clean, ...env },
    encoding: 'utf8',
  });
}

const cacheFiles = (folder: string): string[] => {
  try {
    return readdirSync(folder).filter((f) => f.endsWith('.cache'));
  } catch {
    return [];
  }
};

describe('the start-up code cache', () => {
  it('is written after a run that served, then used as it is by the next start', () => {
    const chosen = join(dir, 'chosen');
    expect(start({ NODE_COMPILE_CACHE: chosen }, false)).toBe('14,28,42');
    // A run that served nothing (--version, --help) leaves no cache of little use.
    expect(cacheFiles(join(chosen, 'passportal-docs-fake'))).toEqual([]);
    expect(start({ NODE_COMPILE_CACHE: chosen })).toBe('14,28,42');
    const [file] = cacheFiles(join(chosen, 'passportal-docs-fake'));
    expect(file).toMatch(new RegExp(`^[0-9a-f]{40}-${process.version}-${process.arch}\\.cache$`));
    const written = statSync(join(chosen, 'passportal-docs-fake', file as string)).mtimeMs;
    // Accepted by V8, so not written again.
    expect(start({ NODE_COMPILE_CACHE: chosen })).toBe('14,28,42');
    expect(statSync(join(chosen, 'passportal-docs-fake', file as string)).mtimeMs).toBe(written);
  });

  it('in the shared temporary folder, keeps its own folder private and passes over one anyone may write', () => {
    const shared = join(dir, 'tmp');
    mkdirSync(shared);
    const own = join(shared, `passportal-docs-fake-${process.getuid?.() ?? 'user'}`);
    expect(start({ TMPDIR: shared })).toBe('14,28,42');
    expect(cacheFiles(own)).toHaveLength(1);
    expect(statSync(own).mode & 0o777).toBe(0o700);

    rmSync(own, { recursive: true });
    mkdirSync(own);
    chmodSync(own, 0o777);
    expect(start({ TMPDIR: shared })).toBe('14,28,42');
    expect(cacheFiles(own)).toEqual([]);
  });

  it('keeps the caches of a few other builds, the newest, and removes older ones', () => {
    const chosen = join(dir, 'pruned');
    const folder = join(chosen, 'passportal-docs-fake');
    mkdirSync(folder, { recursive: true });
    const others = Array.from({ length: 6 }, (_, i) => `${String(i).repeat(40)}-v20.0.0-x64.cache`);
    others.forEach((name, i) => {
      writeFileSync(join(folder, name), 'old');
      const at = new Date(Date.now() - (10 - i) * 60_000);
      utimesSync(join(folder, name), at, at);
    });
    writeFileSync(join(folder, 'notes.txt'), 'not a cache');
    expect(start({ NODE_COMPILE_CACHE: chosen })).toBe('14,28,42');
    const left = readdirSync(folder).sort();
    // Its own, the four newest others, and what is not a cache.
    expect(left).toHaveLength(6);
    expect(left).toEqual(expect.arrayContaining([...others.slice(2), 'notes.txt']));
  });

  it('is off with NODE_DISABLE_COMPILE_CACHE=1', () => {
    const chosen = join(dir, 'off');
    expect(start({ NODE_COMPILE_CACHE: chosen, NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('14,28,42');
    expect(cacheFiles(join(chosen, 'passportal-docs-fake'))).toEqual([]);
  });
});
