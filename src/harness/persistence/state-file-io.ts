/**
 * The file-system side of the state file (`state-file.ts`): where the file really is, the lock
 * that keeps a second fake off it, files created exclusively, and writes that are whole or fail.
 *
 * Every write goes through a `StateFs` (node:fs by default), the seam a test uses to make a write
 * come up short the way a full disk does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../../config.js';

/** The calls a state file writes with; tests replace some to fail as a full disk does. */
export interface StateFs {
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  fdatasyncSync(fd: number): void;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
  /** The flush that runs off the event loop. */
  fdatasync(fd: number, done: (error: NodeJS.ErrnoException | null) => void): void;
}

export const NODE_FS: StateFs = { writeSync, fdatasyncSync, fsyncSync, ftruncateSync, fdatasync };

const { O_CREAT, O_EXCL, O_RDWR, O_WRONLY, O_NOFOLLOW } = constants;

/**
 * The path the state is kept at, resolved once at start: a symlink (state on a mounted volume) is
 * followed to its target, which is then written in place, so the link is never replaced by a plain
 * file. A link to nowhere is followed to where it points, when that folder exists.
 */
export function resolveStatePath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unusable(absolute, error);
  }
  let target = absolute;
  try {
    if (lstatSync(absolute).isSymbolicLink()) target = resolve(dirname(absolute), readlinkSync(absolute));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unusable(absolute, error);
  }
  try {
    return join(realpathSync(dirname(target)), basename(target));
  } catch (error) {
    throw unusable(absolute, error);
  }
}

function unusable(path: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  const folder = dirname(path);
  const why =
    code === 'ENOENT'
      ? `the folder ${folder} does not exist; create it first (mkdir -p ${folder}) or name a file in a folder that exists`
      : `its folder ${folder} cannot be used (${code}); name a file in a folder the fake may write to`;
  return new ConfigError(`state file ${path} (--state-file, STATE_FILE): ${why}`);
}

/**
 * Creates a new file beside `path` under an unpredictable name, exclusively (O_EXCL, never
 * following a link planted there); returns its name and a read-write descriptor.
 */
export function createExclusive(path: string, suffix: string): { name: string; fd: number } {
  const name = join(dirname(path), `.${basename(path)}.${randomBytes(12).toString('base64url')}.${suffix}`);
  const fd = openSync(name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW, 0o600);
  return { name, fd };
}

/** Writes all of `buffer` at `position`; a write that stops short (a full disk) throws ENOSPC. */
export function writeFully(fs: StateFs, fd: number, buffer: Uint8Array, position: number): void {
  let done = 0;
  while (done < buffer.length) {
    const n = fs.writeSync(fd, buffer, done, buffer.length - done, position + done);
    if (n <= 0) {
      throw Object.assign(new Error(`short write: ${done} of ${buffer.length} bytes written`), {
        code: 'ENOSPC',
      });
    }
    done += n;
  }
}

/** Makes a rename or a new file in `folder` durable. */
export function syncFolder(fs: StateFs, folder: string): void {
  const fd = openSync(folder, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

interface Holder {
  pid: number;
  host: string;
  /** The holder process's start (performance.timeOrigin), telling a restarted pid 1 from itself. */
  started: number;
  id: string;
  since: string;
}

/** How often a holder marks its lock as alive, and after how long a lock not marked is taken over. */
const HEARTBEAT_MS = 5_000;
const STALE_MS = 30_000;

/**
 * An exclusive lock on a state file: `<file>.lock`, created with O_EXCL, naming its holder (pid,
 * host, start). A lock whose holder is gone is taken over: on the same host when that pid is not
 * running (or is this very process restarted, as pid 1 in a container is); from another host when
 * the holder has not marked it alive for `STALE_MS`.
 */
export class StateLock {
  readonly path: string;
  readonly #me: Holder;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(statePath: string) {
    this.path = `${statePath}.lock`;
    this.#me = {
      pid: process.pid,
      host: hostname(),
      started: Math.round(performance.timeOrigin),
      id: randomUUID(),
      since: new Date().toISOString(),
    };
  }

  /** Takes the lock or throws a ConfigError naming the file and its holder. */
  acquire(statePath: string): void {
    for (let attempt = 0; attempt < 3; attempt++) {
      let fd: number;
      try {
        fd = openSync(this.path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o644);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new ConfigError(
            `state file ${statePath}: cannot create its lock ${this.path} (${(error as NodeJS.ErrnoException).code})`,
          );
        }
        const holder = this.#holder();
        if (holder.stale) {
          try {
            unlinkSync(this.path);
          } catch {
            // Taken over by another starter meanwhile: the next attempt tells.
          }
          continue;
        }
        throw new ConfigError(
          `state file ${statePath} is in use by another fake (${holder.text}; lock ${this.path}): ` +
            'stop that fake, or give this one another --state-file',
        );
      }
      try {
        writeSync(fd, JSON.stringify(this.#me));
      } finally {
        closeSync(fd);
      }
      this.#heartbeat = setInterval(() => this.#markAlive(), HEARTBEAT_MS);
      this.#heartbeat.unref();
      return;
    }
    throw new ConfigError(
      `state file ${statePath}: its lock ${this.path} keeps changing; is another fake starting?`,
    );
  }

  /** Gives the lock up (only if it is still this fake's). */
  release(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    try {
      const held = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<Holder>;
      if (held.id === this.#me.id) unlinkSync(this.path);
    } catch {
      // Gone already, or not ours.
    }
  }

  #markAlive(): void {
    const now = new Date();
    try {
      utimesSync(this.path, now, now);
    } catch {
      // Removed by hand: nothing to mark.
    }
  }

  #holder(): { stale: boolean; text: string } {
    let held: Partial<Holder>;
    let ageMs: number;
    try {
      ageMs = Date.now() - statSync(this.path).mtimeMs;
      held = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<Holder>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { stale: true, text: '' };
      // Unreadable: a holder that died while writing it, unless it is brand new.
      return { stale: Date.now() - safeMtime(this.path) > STALE_MS, text: 'holder unknown' };
    }
    const text = `pid ${String(held.pid)} on ${String(held.host)}, since ${String(held.since)}`;
    if (held.host !== this.#me.host) return { stale: ageMs > STALE_MS, text };
    if (held.pid === this.#me.pid) return { stale: held.started !== this.#me.started, text };
    return { stale: typeof held.pid !== 'number' || !isRunning(held.pid), text };
  }
}

function safeMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
