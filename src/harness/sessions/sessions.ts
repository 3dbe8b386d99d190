import { randomBytes } from 'node:crypto';
import type { TokenObserver } from '../../domain/tokens.js';
import type { ApiKey, Dataset } from '../../domain/types.js';
import { ApiError } from '../../errors.js';
import type { Instance } from '../instance/instance.js';
import { RUN_LABEL, type RunReports } from '../verdicts/run-reports.js';
import { OwnKeys } from './own-keys.js';

/**
 * The sessions of one server: whole, isolated instances addressed under `/sessions/{id}`.
 * Capped at `maxSessions` (one more is 429 `tooManySessions`); a session nobody has used for
 * `idleSeconds` (real time) is removed by a reaper timer that runs only while sessions exist,
 * never keeps the process alive (`unref`) and is stopped by `stop()`.
 *
 * A session created with keys of its own is also reached without its prefix: the registry keeps
 * one table from each such key ID, and from each token issued to those keys, to its session
 * (`byKey`, `byToken`: one Map lookup per request). The table follows the sessions: a key is in
 * it while its session holds it (a reset keeps the keys, a fixture load keeps them per
 * organization), a token while the session's token store holds it (added when issued, gone when
 * pruned after expiry, on a fixture load, or when the session is deleted or reaped), so a
 * deleted session's keys and tokens reach nothing but the root, which does not know them (401).
 */

export interface Session {
  id: string;
  instance: Instance;
  /** False: never removed for being idle. */
  expires: boolean;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  lastUsedAt: number;
  /** The run it belongs to (`RunReports`), if labelled. */
  run: string | undefined;
  /** The name of the tenant that created and owns it; undefined for the operator's. */
  owner: string | undefined;
  /** Whether it holds a fixture set of its own (counted against the memory budget). */
  ownFixtures: boolean;
}

/** A session as a state file brings it back: what it was, minus its instance. */
export interface RestoredSession {
  id: string;
  expires: boolean;
  createdAt: number;
  lastUsedAt: number;
  run: string | undefined;
  owner?: string;
  ownFixtures: boolean;
  /** Its own keys, when it has them. */
  keys: ApiKey[] | undefined;
}

/** Told when a session starts or ends (a state file keeps them). */
export interface SessionObserver {
  opened(session: Session): void;
  ended(session: Session): void;
}

/** How a session was created. */
export interface SessionCreation {
  /**
   * True: a fixture set of its own (not the root's shared one), counted as built against the
   * memory budget for as long as the session lives.
   */
  ownFixtures?: boolean;
  /** False: never removed for being idle. */
  expires?: boolean;
  /** True: keys of its own (see `OwnKeys`), which reach it at the root too. */
  ownKeys?: boolean;
  /** A run label: the session's report is kept for its run's report, after it ends too. */
  run?: string;
  /** The tenant creating it, which owns it, with its own cap on sessions (`maxSessions`). */
  owner?: SessionOwner;
}

/** A tenant as the registry sees it: its name and its cap. */
export interface SessionOwner {
  name: string;
  maxSessions: number | undefined;
}

export interface SessionRegistryOptions {
  maxSessions: number;
  idleSeconds: number;
  /** Builds the instance of a new session (`owner`: the tenant's name, whose memory quota it counts in). */
  createInstance: (id: string, dataset: Dataset, owner: string | undefined) => Instance;
  /** Real time in milliseconds (tests may pass another). */
  now?: () => number;
  /** Where sessions labelled with a run leave their reports: the operator's runs. */
  runs?: RunReports;
  /** A tenant's own runs (its run labels are its own), by its name. */
  runsOf?: (owner: string) => RunReports | undefined;
  /** Makes a new session id (a fleet replica's ids name it); default: 128 random bits, URL-safe. */
  newId?: () => string;
}

/** The path prefix under which a session is served. */
export const sessionPath = (id: string): string => `/sessions/${id}`;

export class SessionRegistry {
  readonly #sessions = new Map<string, Session>();
  /** Own key ID → its session. */
  readonly #byKey = new Map<string, Session>();
  /** Token issued to an own key (access or refresh) → its session. */
  readonly #byToken = new Map<string, Session>();
  readonly #options: SessionRegistryOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  /** Told of sessions starting and ending (set by a state file). */
  observer: SessionObserver | undefined = undefined;

  constructor(options: SessionRegistryOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Throws `tooManySessions` when no session can be added: by the server's `maxSessions`, or by
   * the owner's (naming the tenant's quota). Cheap; call before building a dataset.
   */
  assertRoom(owner?: SessionOwner): void {
    if (owner?.maxSessions !== undefined && this.countOf(owner.name) >= owner.maxSessions) {
      throw new ApiError(
        'tooManySessions',
        `too many sessions: tenant "${owner.name}" holds ${owner.maxSessions}, its maxSessions quota in the tenants file (delete one of its sessions, or raise its maxSessions)`,
      );
    }
    if (this.#sessions.size >= this.#options.maxSessions) {
      throw new ApiError(
        'tooManySessions',
        `too many sessions: at most ${this.#options.maxSessions} at once (delete one, or raise maxSessions)`,
      );
    }
  }

  /** How many live sessions the tenant `owner` holds. */
  countOf(owner: string): number {
    let count = 0;
    for (const session of this.#sessions.values()) if (session.owner === owner) count++;
    return count;
  }

  /** The session with this id, not marked as used (undefined when unknown). */
  peek(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** The runs a session of `owner` belongs to: the tenant's own, or the operator's. */
  #runsOf(owner: string | undefined): RunReports | undefined {
    return owner === undefined ? this.#options.runs : this.#options.runsOf?.(owner);
  }

  /**
   * A new session over `dataset`. With `ownFixtures`, the set as built is counted against the
   * memory budget: `memoryBudget` is thrown, and no session made, when it does not fit.
   */
  create(
    dataset: Dataset,
    { ownFixtures = false, expires = true, ownKeys = false, run, owner }: SessionCreation = {},
  ): Session {
    this.assertRoom(owner);
    if (run !== undefined && !RUN_LABEL.test(run)) {
      const message = 'must be 1-128 characters of letters, digits and ._:@/- (e.g. ci-1234)';
      throw new ApiError('invalidRunLabel', `invalid run label: ${message}`, [
        { location: 'body/run', message },
      ]);
    }
    const makeId = this.#options.newId ?? newId;
    let id = makeId();
    while (this.#sessions.has(id)) id = makeId();
    const now = this.#now();
    const keys = ownKeys ? new OwnKeys() : undefined;
    const built = keys ? keys.apply(dataset) : dataset;
    const instance = this.#options.createInstance(id, built, owner?.name);
    if (ownFixtures) {
      try {
        instance.holdFixtures(built);
      } catch (error) {
        instance.dispose();
        throw error;
      }
    }
    const session: Session = {
      id,
      instance,
      expires,
      createdAt: now,
      lastUsedAt: now,
      run,
      owner: owner?.name,
      ownFixtures,
    };
    this.#enter(session, keys);
    return session;
  }

  /**
   * Brings back a session a state file kept, under its id, over `dataset` (its reset point, its
   * own keys put in again); `fill` restores its state before its keys and tokens are routed. Not
   * capped (it was admitted before); a set of its own is counted against the budget, never refused.
   */
  restore(kept: RestoredSession, dataset: Dataset, fill: (instance: Instance) => void): Session {
    const keys = kept.keys ? OwnKeys.from(kept.keys) : undefined;
    const built = keys ? keys.apply(dataset) : dataset;
    const instance = this.#options.createInstance(kept.id, built, kept.owner);
    if (kept.ownFixtures) instance.holdFixtures(built, false);
    fill(instance);
    const { keys: _keys, ...rest } = kept;
    const session: Session = { ...rest, owner: kept.owner, instance };
    this.#enter(session, keys);
    return session;
  }

  #enter(session: Session, keys: OwnKeys | undefined): void {
    const { instance } = session;
    if (keys) {
      instance.ownKeys = keys;
      keys.onChange = (added, removed) => this.#routeKeys(session, added, removed);
      this.#routeKeys(session, keys.list(), []);
      instance.fake.observeTokens(this.#tokenRoutes(session));
    }
    this.#sessions.set(session.id, session);
    if (session.run !== undefined) this.#runsOf(session.owner)?.join(session.run, session.id, instance);
    this.observer?.opened(session);
    this.#startReaper();
  }

  /** The session one of whose own keys has this ID, marked as used now. */
  byKey(keyId: string): Session | undefined {
    return this.#touch(this.#byKey.get(keyId));
  }

  /** The session that issued this token to one of its own keys, marked as used now. */
  byToken(token: string): Session | undefined {
    return this.#touch(this.#byToken.get(token));
  }

  /** Whether any session has keys of its own (else nothing at the root can be routed to one). */
  get routesByKey(): boolean {
    return this.#byKey.size > 0;
  }

  #touch(session: Session | undefined): Session | undefined {
    if (session) session.lastUsedAt = this.#now();
    return session;
  }

  #routeKeys(session: Session, added: ApiKey[], removed: ApiKey[]): void {
    for (const key of removed) if (this.#byKey.get(key.keyId) === session) this.#byKey.delete(key.keyId);
    for (const key of added) this.#byKey.set(key.keyId, session);
  }

  #tokenRoutes(session: Session): TokenObserver {
    return {
      added: (token) => this.#byToken.set(token, session),
      removed: (token) => {
        if (this.#byToken.get(token) === session) this.#byToken.delete(token);
      },
    };
  }

  /** Takes a removed session's keys and tokens out of the routing table. */
  #unroute(session: Session): void {
    const { instance } = session;
    if (!instance.ownKeys) return;
    this.#routeKeys(session, [], instance.ownKeys.list());
    for (const token of instance.fake.heldTokens()) {
      if (this.#byToken.get(token) === session) this.#byToken.delete(token);
    }
    instance.fake.observeTokens(undefined);
  }

  /** The session's instance, marked as used now; undefined for an unknown or removed session. */
  use(id: string): Instance | undefined {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    session.lastUsedAt = this.#now();
    return session.instance;
  }

  delete(id: string): boolean {
    const session = this.#sessions.get(id);
    if (session === undefined) return false;
    this.observer?.ended(session);
    this.#runsOf(session.owner)?.leave(id);
    session.instance.dispose();
    this.#sessions.delete(id);
    this.#unroute(session);
    if (this.#sessions.size === 0) this.stop();
    return true;
  }

  list(): Session[] {
    return [...this.#sessions.values()];
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Removes the sessions idle for longer than `idleSeconds`; returns their ids. */
  reapIdle(): string[] {
    const cutoff = this.#now() - this.#options.idleSeconds * 1000;
    const removed: string[] = [];
    for (const [id, session] of this.#sessions) {
      if (session.expires && session.lastUsedAt <= cutoff) {
        this.observer?.ended(session);
        this.#runsOf(session.owner)?.leave(id);
        session.instance.dispose();
        this.#sessions.delete(id);
        this.#unroute(session);
        removed.push(id);
      }
    }
    if (this.#sessions.size === 0) this.stop();
    return removed;
  }

  /** The run reports of this server's sessions (undefined when the server keeps none). */
  get runs(): RunReports | undefined {
    return this.#options.runs;
  }

  /** Stops the reaper (sessions stay; a new session starts it again). */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #startReaper(): void {
    if (this.#timer) return;
    // A quarter of the idle time (100 ms to 60 s): a session goes at most 25% past its idle time.
    const every = Math.min(Math.max((this.#options.idleSeconds * 1000) / 4, 100), 60_000);
    this.#timer = setInterval(() => this.reapIdle(), every);
    this.#timer.unref();
  }
}

/** 128 random bits, URL-safe. */
function newId(): string {
  return randomBytes(16).toString('base64url');
}
