import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  fsync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  write,
} from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { ConfigError } from '../config.js';
import type { StateChange } from '../domain/fake.js';
import type { Instance } from './instance.js';
import {
  createExclusive,
  NODE_FS,
  resolveStatePath,
  type StateFs,
  StateLock,
  syncFolder,
  writeFully,
} from './state-file-io.js';
import {
  COMMIT_LINE,
  changeLines,
  clockLine,
  readStateFile,
  settingsLine,
  snapshotLines,
  VERSION,
} from './state-log.js';

/**
 * The root instance kept in a file (`stateFile`), for days-long use: documents, tokens, clock
 * offset, settings and the reset point survive a restart, even `kill -9`. Sessions, the journal
 * and faults are not kept: they belong to a test run.
 *
 * The file is a log (`state-log.ts`): a snapshot, then one group of lines per change, appended
 * and fsynced before the answer that acknowledges the change is sent, so a write costs what the
 * change costs. A write that fails or comes up short is cut off again and answers `stateNotSaved`;
 * the change stays pending in memory and goes out with the next write. When the log has grown past
 * its snapshot, a new snapshot is written beside it in the background, in pieces between requests,
 * then the changes made meanwhile are added and it is renamed over the log.
 *
 * One fake per file: `<file>.lock` (state-file-io.ts). A symlinked path is resolved once at start.
 */

const writeAt = promisify(write);
const fsyncAsync = promisify(fsync);
const fdatasyncAsync = promisify(fdatasync);

/** A snapshot is written in pieces of about this many characters, the event loop free between them. */
const PIECE_CHARS = 64 * 1024;
/** A snapshot being written is flushed to disk every this many bytes. */
const SYNC_EVERY_BYTES = 512 * 1024;
/** The log is compacted once it is larger than this and than twice its last snapshot. */
const MIN_COMPACT_BYTES = 4 * 1024 * 1024;

export interface StateFileOptions {
  /** The file-system calls writes go through (a test's seam for a full disk). */
  fs?: StateFs;
  /** Told when a background compaction fails (the log is kept and grows on). */
  onCompactionError?: (error: unknown) => void;
  /** The log is compacted once larger than this and than twice its snapshot (default 4 MiB). */
  compactAfterBytes?: number;
}

export class StateFile {
  /** Where the state is written: the given path with any symlink resolved at start. */
  readonly path: string;
  readonly #fs: StateFs;
  readonly #lock: StateLock;
  readonly #onCompactionError: (error: unknown) => void;
  readonly #compactAfterBytes: number;
  #instance: Instance | undefined;
  #fd: number | undefined;
  /** Bytes of the log that hold committed groups; every write starts here. */
  #size = 0;
  /** After a failed write the file may hold a cut-off tail: cut it before the next write. */
  #tailDirty = false;
  /** Groups written so far, and how many of them (and bytes of the file) are known on disk. */
  #writtenSeq = 0;
  #syncedSeq = 0;
  #syncedSize = 0;
  /** Changes whenever the file is replaced, so a flush of the old one is not counted for the new. */
  #epoch = 0;
  #runningFlush: Promise<void> | undefined;
  #queuedFlush: Promise<void> | undefined;
  /** After a failed flush, the next write is a whole snapshot. */
  #needsSnapshot = false;
  /** A compaction under way when a flush failed must not put its copy of those groups in place. */
  #compactionSpoiled = false;
  #snapshotBytes = 0;
  #pending: StateChange[] = [];
  #savedSettings = '';
  #savedClock = 0;
  /** Groups committed while a compaction runs, to add to the new file before it replaces the log. */
  #duringCompaction: Buffer[] | undefined;
  #compaction: Promise<void> | undefined;
  #closed = false;
  /** Writes so far and the time they took (for the log and the benchmark). */
  writes = 0;
  writeMs = 0;
  compactions = 0;

  constructor(path: string, options: StateFileOptions = {}) {
    this.path = resolveStatePath(path);
    this.#fs = options.fs ?? NODE_FS;
    this.#lock = new StateLock(this.path);
    this.#onCompactionError = options.onCompactionError ?? (() => {});
    this.#compactAfterBytes = options.compactAfterBytes ?? MIN_COMPACT_BYTES;
  }

  /**
   * Locks the file, restores `instance` from it when it exists (false when it did not) or writes
   * it first, and from then on records the instance's changes. A file it cannot read back, a held
   * lock or a folder it cannot write is a ConfigError.
   */
  open(instance: Instance): boolean {
    this.#lock.acquire(this.path);
    this.#instance = instance;
    try {
      const restored = this.#restore(instance);
      instance.fake.onChange = (change) => this.#pending.push(change);
      return restored;
    } catch (error) {
      this.close();
      const code = (error as NodeJS.ErrnoException).code;
      if (error instanceof ConfigError || !code) throw error;
      // Node's own errors (ERR_...) are not the folder's: named as what they are.
      if (code.startsWith('ERR_')) {
        throw new ConfigError(
          `state file ${this.path}: cannot be read back (${code}: ${(error as Error).message}); ` +
            'move it away to start from the fixtures',
        );
      }
      throw new ConfigError(
        `state file ${this.path}: cannot be written (${(error as NodeJS.ErrnoException).code}); ` +
          'make its folder writable or give another --state-file',
      );
    }
  }

  #restore(instance: Instance): boolean {
    const { fake } = instance;
    let exists = true;
    try {
      statSync(this.path);
    } catch {
      exists = false;
    }
    if (exists) {
      const back = readStateFile(this.path, fake.settings);
      fake.restoreState(back);
      if (back.version === VERSION) {
        this.#fd = openLog(this.path);
        this.#size = back.committedBytes;
        this.#snapshotBytes = back.snapshotBytes;
        // A group cut short at the end was never acknowledged: cut it off before writing on.
        if (back.fileBytes > back.committedBytes) this.#fs.ftruncateSync(this.#fd, this.#size);
        this.#remember();
        return true;
      }
    }
    // A new file, or a version 1 file: a snapshot written whole, then renamed into place.
    this.#remember();
    this.#writeSnapshotSync();
    return exists;
  }

  #remember(): void {
    const fake = this.#instance?.fake;
    if (!fake) return;
    this.#savedSettings = JSON.stringify(fake.settings);
    this.#savedClock = fake.clock.offsetSeconds();
  }

  /**
   * Writes the changes made since the last write as one group; the promise settles once it (and
   * every group written before it) is on disk. The write itself is synchronous and throws (keeping
   * the changes for the next write) when it fails or comes up short; the fdatasync runs off the
   * event loop, one at a time, each covering every group written before it starts (group commit).
   * With nothing to write, the promise still waits for groups written earlier: they may hold this
   * caller's changes.
   */
  commit(): Promise<void> {
    const fake = this.#instance?.fake;
    if (!fake || this.#fd === undefined) throw new Error(`state file ${this.path} is closed`);
    const settings = JSON.stringify(fake.settings);
    const clock = fake.clock.offsetSeconds();
    if (this.#pending.length === 0 && settings === this.#savedSettings && clock === this.#savedClock) {
      return this.#durable(this.#writtenSeq);
    }
    const started = performance.now();
    if (this.#needsSnapshot || !this.#stillOurs()) {
      // Removed or replaced under the fake (by hand, or its folder), or a flush failed: a whole
      // new snapshot, which holds every change in memory, or stateNotSaved when even that fails.
      this.#writeSnapshotSync();
      this.#needsSnapshot = false;
      this.#settled(settings, clock);
      return Promise.resolve();
    }
    const pieces: string[] = [];
    for (const change of this.#pending) for (const piece of changeLines(change)) pieces.push(piece);
    if (settings !== this.#savedSettings) pieces.push(settingsLine(fake.settings));
    if (clock !== this.#savedClock) pieces.push(clockLine(clock));
    pieces.push(COMMIT_LINE);
    const group = Buffer.from(pieces.join(''), 'utf8');
    const fd = this.#fd;
    try {
      if (this.#tailDirty) this.#fs.ftruncateSync(fd, this.#size);
      this.#tailDirty = false;
      writeFully(this.#fs, fd, group, this.#size);
    } catch (error) {
      this.#tailDirty = true;
      try {
        this.#fs.ftruncateSync(fd, this.#size);
        this.#tailDirty = false;
      } catch {
        // Cut before the next write instead; a reader drops an uncommitted tail anyway.
      }
      throw error;
    }
    this.#size += group.length;
    const seq = ++this.#writtenSeq;
    this.#settled(settings, clock);
    this.#duringCompaction?.push(group);
    this.writes++;
    this.writeMs += performance.now() - started;
    if (!this.#compaction && this.#size > Math.max(this.#compactAfterBytes, 2 * this.#snapshotBytes)) {
      this.#compaction = this.#compact().finally(() => {
        this.#compaction = undefined;
      });
    }
    return this.#durable(seq);
  }

  /** Settles once group `seq` is on disk; rejects when the flush that should have put it there failed. */
  #durable(seq: number): Promise<void> {
    if (this.#syncedSeq >= seq) return Promise.resolve();
    return this.#flush().then(() => {
      if (this.#syncedSeq < seq) throw new Error(`state file ${this.path}: not flushed to disk`);
    });
  }

  /**
   * One fdatasync at a time, off the event loop; one asked for while another runs starts when that
   * ends and covers every group written by then, so concurrent writes share it.
   */
  #flush(): Promise<void> {
    this.#queuedFlush ??= (this.#runningFlush ?? Promise.resolve()).then(() => {
      this.#queuedFlush = undefined;
      const fd = this.#fd;
      const epoch = this.#epoch;
      const seq = this.#writtenSeq;
      const size = this.#size;
      if (fd === undefined || seq <= this.#syncedSeq) return;
      const run = new Promise<void>((done, fail) => {
        this.#fs.fdatasync(fd, (error) => {
          if (epoch !== this.#epoch) return done(); // the file was replaced by a synced one meanwhile
          if (error) {
            this.#lostDurability();
            return fail(error);
          }
          this.#syncedSeq = Math.max(this.#syncedSeq, seq);
          this.#syncedSize = size;
          done();
        });
      });
      const settled = run.then(
        () => {},
        () => {},
      );
      this.#runningFlush = settled;
      void settled.then(() => {
        if (this.#runningFlush === settled) this.#runningFlush = undefined;
      });
      return run;
    });
    return this.#queuedFlush;
  }

  /**
   * A flush failed: what was written since the last good one may or may not be on disk. It is cut
   * off (no restart may come up with a change that was not acknowledged), and the next write is a
   * whole snapshot, which carries those changes again from memory.
   */
  #lostDurability(): void {
    try {
      if (this.#fd !== undefined) this.#fs.ftruncateSync(this.#fd, this.#syncedSize);
    } catch {
      this.#tailDirty = true;
    }
    this.#size = this.#syncedSize;
    this.#writtenSeq = this.#syncedSeq;
    this.#needsSnapshot = true;
    this.#compactionSpoiled = true;
  }

  #settled(settings: string, clock: number): void {
    this.#pending = [];
    this.#savedSettings = settings;
    this.#savedClock = clock;
  }

  /** Whether the path still names the file this fake writes (one stat, no read). */
  #stillOurs(): boolean {
    if (this.#fd === undefined) return false;
    try {
      const atPath = statSync(this.path);
      const open = fstatSync(this.#fd);
      return atPath.ino === open.ino && atPath.dev === open.dev;
    } catch {
      return false;
    }
  }

  /** The compaction under way, if any (settles when it has replaced the log, or given up). */
  get compacting(): Promise<void> | undefined {
    return this.#compaction;
  }

  /** Bytes of the log (committed groups). */
  get size(): number {
    return this.#size;
  }

  /** Finishes (or abandons) a compaction under way, then lets the file and its lock go. */
  async closeAsync(): Promise<void> {
    this.#closed = true;
    await this.#compaction;
    await this.#queuedFlush?.catch(() => {});
    await this.#runningFlush;
    this.close();
  }

  /** Lets the file and its lock go at once, flushed (a compaction under way is abandoned). */
  close(): void {
    this.#closed = true;
    this.#epoch++;
    if (this.#instance) this.#instance.fake.onChange = undefined;
    if (this.#fd !== undefined) {
      try {
        this.#fs.fdatasyncSync(this.#fd);
        this.#syncedSeq = this.#writtenSeq;
      } catch {
        // Nothing more can be done for it here; it was not acknowledged.
      }
      closeSync(this.#fd);
    }
    this.#fd = undefined;
    this.#lock.release();
  }

  /** The new file `name` (open as `fd`, all on disk, `size` bytes) takes the log's place and name. */
  #moveIn(name: string, fd: number, size: number): void {
    renameSync(name, this.path);
    syncFolder(this.#fs, dirname(this.path));
    this.#replaceLog(fd, size);
  }

  /** `fd` (a new file, all on disk, `size` bytes) is the log from now on. */
  #replaceLog(fd: number, size: number): void {
    const old = this.#fd;
    this.#fd = fd;
    this.#size = size;
    this.#epoch++;
    this.#syncedSeq = this.#writtenSeq;
    this.#syncedSize = size;
    this.#tailDirty = false;
    if (old === undefined) return;
    // A flush of the old file may still run: close it once that is done.
    const running = this.#runningFlush;
    if (running) void running.then(() => closeSync(old));
    else closeSync(old);
  }

  /** Writes the whole state to a new file and renames it over the log (at start). */
  #writeSnapshotSync(): void {
    const fake = this.#instance?.fake;
    if (!fake) throw new Error('no instance');
    const { name, fd } = createExclusive(this.path, 'tmp-state');
    try {
      let at = 0;
      for (const piece of pieces(snapshotLines(fake.persistentState()))) {
        const buffer = Buffer.from(piece, 'utf8');
        writeFully(this.#fs, fd, buffer, at);
        at += buffer.length;
      }
      this.#fs.fsyncSync(fd);
      this.#moveIn(name, fd, at);
      this.#snapshotBytes = at;
    } catch (error) {
      closeSync(fd);
      rmSync(name, { force: true });
      throw error;
    }
  }

  /**
   * A new snapshot beside the log, written in pieces with the event loop free between them; the
   * groups committed meanwhile are added, then it replaces the log in one synchronous step.
   */
  async #compact(): Promise<void> {
    const fake = this.#instance?.fake;
    if (!fake) return;
    let created: { name: string; fd: number } | undefined;
    try {
      created = createExclusive(this.path, 'tmp-state');
      const { name, fd } = created;
      this.#duringCompaction = [];
      this.#compactionSpoiled = false;
      let at = 0;
      let unsynced = 0;
      for (const piece of pieces(snapshotLines(fake.persistentState()))) {
        if (this.#closed) throw new Error('closed');
        const buffer = Buffer.from(piece, 'utf8');
        const { bytesWritten } = await writeAt(fd, buffer, 0, buffer.length, at);
        if (bytesWritten !== buffer.length) throw new Error('short write');
        at += buffer.length;
        unsynced += buffer.length;
        // Flushed as it goes (off the event loop): on ext4 a request's fsync also waits for other
        // files' dirty data, so a large unflushed snapshot would hold every write up meanwhile.
        if (unsynced >= SYNC_EVERY_BYTES) {
          await fdatasyncAsync(fd);
          unsynced = 0;
        }
        await new Promise<void>((done) => setImmediate(done));
      }
      await fsyncAsync(fd);
      const snapshotBytes = at;
      // Most of what was committed meanwhile goes out with the event loop free, the rest below.
      let added = 0;
      for (; added < this.#duringCompaction.length; added++) {
        const group = this.#duringCompaction[added] as Buffer;
        await writeAt(fd, group, 0, group.length, at);
        at += group.length;
      }
      await fdatasyncAsync(fd);
      if (this.#closed || this.#fd === undefined) throw new Error('closed');
      if (this.#compactionSpoiled) throw new Error('a flush of the log failed meanwhile');
      // From here to the rename nothing else runs: the new file takes every group committed.
      for (const group of this.#duringCompaction.slice(added)) {
        writeFully(this.#fs, fd, group, at);
        at += group.length;
      }
      this.#fs.fdatasyncSync(fd);
      this.#moveIn(name, fd, at);
      this.#snapshotBytes = snapshotBytes;
      this.compactions++;
      created = undefined;
    } catch (error) {
      if (created) {
        closeSync(created.fd);
        rmSync(created.name, { force: true });
      }
      if (!this.#closed) {
        // Not again before the log has grown by as much once more.
        this.#snapshotBytes = this.#size;
        this.#onCompactionError(error);
      }
    } finally {
      this.#duringCompaction = undefined;
    }
  }
}

/** Lines joined into pieces of about `PIECE_CHARS`. */
function* pieces(lines: Iterable<string>): Generator<string> {
  let piece = '';
  for (const text of lines) {
    piece += text;
    if (piece.length >= PIECE_CHARS) {
      yield piece;
      piece = '';
    }
  }
  if (piece.length > 0) yield piece;
}

/** The log opened for writing in place, never through a link (the path is already resolved). */
function openLog(path: string): number {
  return openSync(path, constants.O_RDWR | constants.O_NOFOLLOW);
}
