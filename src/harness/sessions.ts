import { randomBytes } from 'node:crypto';
import type { Dataset } from '../domain/types.js';
import { ApiError } from '../errors.js';
import type { Instance } from './instance.js';

/**
 * The sessions of one server: whole, isolated instances addressed under `/sessions/{id}`.
 * Capped at `maxSessions` (one more is 429 `tooManySessions`); a session nobody has used for
 * `idleSeconds` (real time) is removed by a reaper timer that runs only while sessions exist,
 * never keeps the process alive (`unref`) and is stopped by `stop()`.
 */

export interface Session {
  id: string;
  instance: Instance;
  /** False: never removed for being idle. */
  expires: boolean;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  lastUsedAt: number;
}

export interface SessionRegistryOptions {
  maxSessions: number;
  idleSeconds: number;
  /** Builds the instance of a new session. */
  createInstance: (id: string, dataset: Dataset) => Instance;
  /** Real time in milliseconds (tests may pass another). */
  now?: () => number;
}

/** The path prefix under which a session is served. */
export const sessionPath = (id: string): string => `/sessions/${id}`;

export class SessionRegistry {
  readonly #sessions = new Map<string, Session>();
  readonly #options: SessionRegistryOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SessionRegistryOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Throws `tooManySessions` when no session can be added. Cheap; call before building a dataset. */
  assertRoom(): void {
    if (this.#sessions.size >= this.#options.maxSessions) {
      throw new ApiError(
        'tooManySessions',
        `too many sessions: at most ${this.#options.maxSessions} at once (delete one, or raise maxSessions)`,
      );
    }
  }

  /**
   * A new session over `dataset`. With `ownFixtures` (a set of its own, not the root's shared
   * one), the set as built is counted against the memory budget for as long as the session
   * lives: `memoryBudget` is thrown, and no session made, when it does not fit.
   */
  create(dataset: Dataset, ownFixtures = false, expires = true): Session {
    this.assertRoom();
    let id = newId();
    while (this.#sessions.has(id)) id = newId();
    const now = this.#now();
    const instance = this.#options.createInstance(id, dataset);
    if (ownFixtures) {
      try {
        instance.holdFixtures(dataset);
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
    };
    this.#sessions.set(id, session);
    this.#startReaper();
    return session;
  }

  /** The session's instance, marked as used now; undefined for an unknown or removed session. */
  use(id: string): Instance | undefined {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    session.lastUsedAt = this.#now();
    return session.instance;
  }

  delete(id: string): boolean {
    this.#sessions.get(id)?.instance.dispose();
    const deleted = this.#sessions.delete(id);
    if (this.#sessions.size === 0) this.stop();
    return deleted;
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
        session.instance.dispose();
        this.#sessions.delete(id);
        removed.push(id);
      }
    }
    if (this.#sessions.size === 0) this.stop();
    return removed;
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
