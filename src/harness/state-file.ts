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
import type { ControlChecks } from './instance-controls.js';
import { activityOf, controlsOf, countsOf, restoreControls, restoreCounts } from './kept-session.js';
import type { Session, SessionRegistry } from './sessions.js';
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
  controlsLine,
  countsLine,
  datasetLines,
  endLine,
  keysLine,
  readStateFile,
  runClearedLine,
  runEndedLine,
  type SessionBack,
  type SessionMeta,
  type SessionSnapshot,
  sessionLine,
  settingsLine,
  snapshotLines,
  VERSION,
} from './state-log.js';

/**
 * The root instance and every live session kept in a file (`stateFile`), for days-long use:
 * documents, tokens, clock offset, settings and the reset point of each survive a restart, even
 * `kill -9`; of a session also its id, own keys, run label, owner, expiry, what its owner
 * configured (faults, rate limits, expected violations, scenarios) and its report's exact counts.
 * Journals are not kept.
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
/** How often sessions' use and report counts are written when they moved (no answer waits for it). */
const ACTIVITY_EVERY_MS = 1_000;

/** A session the file keeps, with what the file holds of it (to write only what changed). */
interface Tracked {
  session: Session;
  /** The root's reset point (its marker) the session's reset point is; undefined once it loaded its own. */
  base: object | undefined;
  settings: string;
  clock: number;
  controls: string;
  keys: string;
  activity: string;
  ended: boolean;
}

/** The sessions a state file keeps, and the checks their controls are read back with. */
export interface KeptSessions {
  registry: SessionRegistry;
  checks: ControlChecks;
  /** Told when the sessions' use and counts could not be written (the next write carries them). */
  onActivityError?: (error: unknown) => void;
}

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
  /** What is still to be written, in order: changes of the root (`s` undefined) or a session, and lines made at once. */
  #pending: Array<{ s: string | undefined; change: StateChange } | string> = [];
  #kept: KeptSessions | undefined;
  /** The sessions kept, by id. */
  readonly #sessions = new Map<string, Tracked>();
  /** Sessions a request may have changed, compared at the next write. */
  readonly #touched = new Set<Tracked>();
  #activityTimer: NodeJS.Timeout | undefined;
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
  open(instance: Instance, sessions?: KeptSessions): boolean {
    this.#lock.acquire(this.path);
    this.#instance = instance;
    this.#kept = sessions;
    try {
      const restored = this.#restore(instance);
      instance.fake.onChange = (change) => this.#pending.push({ s: undefined, change });
      if (sessions) {
        sessions.registry.observer = {
          opened: (session) => this.#opened(session),
          ended: (session) => this.#ended(session),
        };
        const runs = sessions.registry.runs;
        if (runs) {
          runs.observer = {
            ended: (label, part) => this.#pending.push(runEndedLine(label, part)),
            cleared: (label) => {
              this.#pending.push(runClearedLine(label));
              // Its live sessions' reports are cleared too: written with the clear.
              for (const live of runs.liveInstances(label)) {
                const t = live.id === undefined ? undefined : this.#sessions.get(live.id);
                if (t) this.#touched.add(t);
              }
            },
          };
        }
        this.#activityTimer = setInterval(() => this.#saveActivity(), ACTIVITY_EVERY_MS);
        this.#activityTimer.unref();
      }
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
      const runs = this.#kept?.registry.runs;
      if (runs) {
        for (const { label, part } of back.runs) {
          if (part) runs.restoreEnded(label, part);
          else runs.clear(label);
        }
      }
      for (const session of back.sessions) this.#restoreSession(session);
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
    for (const t of this.#sessions.values()) this.#changesOf(t).settle();
    this.#touched.clear();
  }

  /** A session read back: made again under its id, its state, controls and counts put back. */
  #restoreSession(back: SessionBack): void {
    const kept = this.#kept;
    if (!kept) return; // a fake without sessions (a test's bare instance): they stay in the file's past
    const { meta } = back;
    const session = kept.registry.restore(meta, back.state.resetPoint, (instance) => {
      // Its reset point as the session holds it (its own keys put in).
      instance.fake.restoreState({ ...back.state, resetPoint: instance.fake.resetPoint() });
      if (back.controls) restoreControls(instance, back.controls.value, back.controls.where, kept.checks);
      if (back.counts) restoreCounts(instance, back.counts);
    });
    this.#track(session, back.baseIsRoot ? this.#instance?.fake.resetPointMarker : undefined);
  }

  /** Starts keeping `session`: the file holds it as it is now. */
  #track(session: Session, base: object | undefined): Tracked {
    const t: Tracked = {
      session,
      base,
      settings: '',
      clock: 0,
      controls: '',
      keys: '',
      activity: '',
      ended: false,
    };
    this.#changesOf(t).settle();
    session.instance.fake.onChange = (change) => {
      if (change.kind === 'load') t.base = undefined;
      this.#pending.push({ s: session.id, change });
    };
    this.#sessions.set(session.id, t);
    return t;
  }

  /** A new session: its start is written with the next write (over the root's reset point when it took that). */
  #opened(session: Session): void {
    const { instance } = session;
    const base = session.ownFixtures ? undefined : this.#instance?.fake.resetPointMarker;
    const lines = [sessionLine(metaOf(session), base !== undefined)];
    if (base === undefined)
      for (const text of datasetLines(instance.fake.resetPoint(), session.id)) lines.push(text);
    lines.push(settingsLine(instance.fake.settings, session.id));
    this.#pending.push(lines.join(''));
    this.#track(session, base);
  }

  /** A session deleted or reaped: its end is written with the next write. */
  #ended(session: Session): void {
    const t = this.#sessions.get(session.id);
    if (!t || t.session !== session) return;
    t.ended = true;
    session.instance.fake.onChange = undefined;
    this.#sessions.delete(session.id);
    this.#touched.delete(t);
    this.#pending.push(endLine(session.id));
  }

  /**
   * The lines that bring the file's record of a session up to date (its settings, clock, controls,
   * own keys and counts, each when it changed), and `settle` to call once they are written.
   */
  #changesOf(t: Tracked): { lines: string[]; settle: () => void } {
    const { session } = t;
    const { instance } = session;
    const { fake } = instance;
    const s = session.id;
    const lines: string[] = [];
    const settings = JSON.stringify(fake.settings);
    if (settings !== t.settings) lines.push(settingsLine(fake.settings, s));
    const clock = fake.clock.offsetSeconds();
    if (clock !== t.clock) lines.push(clockLine(clock, s));
    const controls = controlsOf(instance);
    const controlsText = JSON.stringify(controls);
    if (controlsText !== t.controls) lines.push(controlsLine(s, controls));
    const keys = instance.ownKeys?.list();
    const keysText = JSON.stringify(keys ?? null);
    if (keys && keysText !== t.keys) lines.push(keysLine(s, keys));
    const activity = activityOf(session);
    if (activity !== t.activity) lines.push(countsLine(s, session.lastUsedAt, countsOf(instance)));
    return {
      lines,
      settle: () => {
        t.settings = settings;
        t.clock = clock;
        t.controls = controlsText;
        t.keys = keysText;
        t.activity = activity;
      },
    };
  }

  /**
   * Every second: the sessions used, or whose counts moved, since the last write are written (no
   * answer waits for it; a request that changes a session's state or configuration is answered
   * only once that is on disk, as any change).
   */
  #saveActivity(): void {
    if (this.#closed || this.#fd === undefined) return;
    for (const t of this.#sessions.values()) if (activityOf(t.session) !== t.activity) this.#touched.add(t);
    if (this.#pending.length === 0 && this.#touched.size === 0) return;
    const onError = this.#kept?.onActivityError ?? (() => {});
    try {
      this.commit().catch(onError);
    } catch (error) {
      onError(error);
    }
  }

  /** What a snapshot writes of each session kept now (made as the snapshot reaches it). */
  *#sessionSnapshots(list: Tracked[], rootBase: object): Generator<SessionSnapshot> {
    for (const t of list) {
      if (t.ended) continue;
      const { session } = t;
      const { instance } = session;
      yield {
        meta: metaOf(session),
        base: t.base !== undefined && t.base === rootBase,
        state: instance.fake.persistentState(),
        controls: controlsOf(instance),
        lastUsedAt: session.lastUsedAt,
        counts: countsOf(instance),
      };
    }
  }

  /**
   * Writes the changes made since the last write as one group; the promise settles once it (and
   * every group written before it) is on disk. The write itself is synchronous and throws (keeping
   * the changes for the next write) when it fails or comes up short; the fdatasync runs off the
   * event loop, one at a time, each covering every group written before it starts (group commit).
   * With nothing to write, the promise still waits for groups written earlier: they may hold this
   * caller's changes.
   */
  commit(touched?: Instance): Promise<void> {
    const fake = this.#instance?.fake;
    if (!fake || this.#fd === undefined) throw new Error(`state file ${this.path} is closed`);
    if (touched?.id !== undefined) {
      const t = this.#sessions.get(touched.id);
      if (t && t.session.instance === touched) this.#touched.add(t);
    }
    const settings = JSON.stringify(fake.settings);
    const clock = fake.clock.offsetSeconds();
    const sessionChanges = [...this.#touched].map((t) => this.#changesOf(t));
    if (
      this.#pending.length === 0 &&
      settings === this.#savedSettings &&
      clock === this.#savedClock &&
      sessionChanges.every((c) => c.lines.length === 0)
    ) {
      this.#touched.clear();
      return this.#durable(this.#writtenSeq);
    }
    const started = performance.now();
    if (this.#needsSnapshot || !this.#stillOurs()) {
      // Removed or replaced under the fake (by hand, or its folder), or a flush failed: a whole
      // new snapshot, which holds every change in memory, or stateNotSaved when even that fails.
      this.#writeSnapshotSync();
      this.#needsSnapshot = false;
      this.#settled(settings, clock);
      this.#remember();
      return Promise.resolve();
    }
    const pieces: string[] = [];
    for (const item of this.#pending) {
      if (typeof item === 'string') pieces.push(item);
      else for (const piece of changeLines(item.change, item.s)) pieces.push(piece);
    }
    if (settings !== this.#savedSettings) pieces.push(settingsLine(fake.settings));
    if (clock !== this.#savedClock) pieces.push(clockLine(clock));
    for (const change of sessionChanges) for (const piece of change.lines) pieces.push(piece);
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
    for (const change of sessionChanges) change.settle();
    this.#touched.clear();
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
    // A clean stop writes the sessions' last use and counts, so they come back exact.
    this.#saveActivity();
    this.#closed = true;
    await this.#compaction;
    await this.#queuedFlush?.catch(() => {});
    await this.#runningFlush;
    this.close();
  }

  /** Lets the file and its lock go at once, flushed (a compaction under way is abandoned). */
  close(): void {
    if (!this.#closed) this.#saveActivity();
    this.#closed = true;
    this.#epoch++;
    clearInterval(this.#activityTimer);
    if (this.#kept) {
      this.#kept.registry.observer = undefined;
      if (this.#kept.registry.runs) this.#kept.registry.runs.observer = undefined;
    }
    for (const t of this.#sessions.values()) t.session.instance.fake.onChange = undefined;
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

  /** The whole state as lines: the root's, then each session's kept now. */
  #snapshot(): Generator<string> {
    const fake = this.#instance?.fake;
    if (!fake) throw new Error('no instance');
    const state = fake.persistentState();
    return snapshotLines(
      state,
      this.#sessionSnapshots([...this.#sessions.values()], state.loaded),
      this.#kept?.registry.runs?.endedRecords() ?? [],
    );
  }

  /** Writes the whole state to a new file and renames it over the log (at start). */
  #writeSnapshotSync(): void {
    const fake = this.#instance?.fake;
    if (!fake) throw new Error('no instance');
    const { name, fd } = createExclusive(this.path, 'tmp-state');
    try {
      let at = 0;
      for (const piece of pieces(this.#snapshot())) {
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
      for (const piece of pieces(this.#snapshot())) {
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

/** A session's `session` line as it stands now. */
function metaOf(session: Session): SessionMeta {
  return {
    id: session.id,
    createdAt: session.createdAt,
    lastUsedAt: session.lastUsedAt,
    expires: session.expires,
    ownFixtures: session.ownFixtures,
    run: session.run,
    ...(session.owner === undefined ? {} : { owner: session.owner }),
    keys: session.instance.ownKeys?.list(),
  };
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
