/**
 * Loads the package's start-up bundle (one CommonJS file, `dist/bundle/fake.cjs`) with V8's code
 * cache kept between starts, on every Node version: the cache Node itself keeps
 * (`module.enableCompileCache`) needs Node 22.1. The bundle is compiled as a script with the
 * cached data of an earlier start, which V8 checks against its own version and flags; the cache
 * file is named after the SHA-1 of the bundle's text, so an edited or rebuilt bundle never meets
 * the code of another. When there was no cache (or V8 refused it), one is written as the process
 * exits, with every function the run compiled, if the run created a server (`markServed`): a run
 * that only printed its version would leave a cache of little use.
 *
 * Where: `passportal-docs-fake` in `NODE_COMPILE_CACHE` (Node's own variable) when set, else
 * `passportal-docs-fake-<uid>` in the system's temporary folder; `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off. A cache is code this process runs, so a folder in the shared temporary folder is
 * used only when it is the user's own and no one else can write to it (made so, mode 0700); one
 * that another user made first is passed over. A folder that cannot be written costs nothing but
 * the cache.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

type Exports = Record<string, unknown>;

const loaded = new Map<string, Exports>();

/** Set on `globalThis` by the bundle's code when it has created a server. */
const SERVED = Symbol.for('passportal-docs-fake.served');

/** Called by `createMockServer`: this process's code cache is worth keeping. */
export function markServed(): void {
  (globalThis as Record<symbol, unknown>)[SERVED] = true;
}

interface CacheFolder {
  path: string;
  /** Named by the user (`NODE_COMPILE_CACHE`): trusted as it is. */
  chosen: boolean;
}

function cacheFolder(env: NodeJS.ProcessEnv): CacheFolder | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined;
  if (env.NODE_COMPILE_CACHE)
    return { path: join(env.NODE_COMPILE_CACHE, 'passportal-docs-fake'), chosen: true };
  return { path: join(tmpdir(), `passportal-docs-fake-${process.getuid?.() ?? 'user'}`), chosen: false };
}

/** Whether the folder's files may be run: chosen by the user, or the user's own and writable by no one else. */
function trusted(folder: CacheFolder): boolean {
  if (folder.chosen) return true;
  try {
    const stats = statSync(folder.path);
    const own = process.getuid === undefined || stats.uid === process.getuid();
    return stats.isDirectory() && own && (stats.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** The CommonJS file at `file` run as a module: its exports (once per process). */
export function loadBundle(file: string, env: NodeJS.ProcessEnv = process.env): Exports {
  const known = loaded.get(file);
  if (known !== undefined) return known;
  const source = readFileSync(file, 'utf8');
  const folder = cacheFolder(env);
  const cacheFile =
    folder &&
    join(
      folder.path,
      `${createHash('sha1').update(source).digest('hex')}-${process.version}-${process.arch}.cache`,
    );
  let cachedData: Buffer | undefined;
  if (folder && cacheFile && trusted(folder)) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  if (folder && cacheFile && (cachedData === undefined || script.cachedDataRejected === true)) {
    process.once('exit', () => {
      if ((globalThis as Record<symbol, unknown>)[SERVED] === true) save(script, folder, cacheFile);
    });
  }
  const module = { exports: {} as Exports };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  loaded.set(file, module.exports);
  return module.exports;
}

/** How many caches (of other builds, Node versions) a folder keeps besides the newest. */
const KEPT = 4;
const CACHE_NAME = /^[0-9a-f]{40}-v[\w.]+-\w+\.cache$/;

/** Removes the oldest caches of other builds beyond `KEPT`, so upgrades and rebuilds do not pile up. */
function pruneOthers(folder: string, kept: string): void {
  const others = readdirSync(folder)
    .filter((name) => CACHE_NAME.test(name) && join(folder, name) !== kept)
    .map((name) => ({ path: join(folder, name), at: statSync(join(folder, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of others.slice(KEPT)) rmSync(old.path, { force: true });
}

/** Writes the script's code cache whole (a temporary file renamed), or not at all. */
function save(script: Script, folder: CacheFolder, cacheFile: string): void {
  try {
    mkdirSync(folder.path, { recursive: true, mode: 0o700 });
    if (!trusted(folder)) return;
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, cacheFile);
    pruneOthers(folder.path, cacheFile);
  } catch {
    // Not writable: the next start compiles again.
  }
}
