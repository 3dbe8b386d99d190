import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Notice, Violation } from '../errors.js';

/**
 * The request journal of one instance: the vendor API requests it received, newest last, each
 * with the response and the contract violations found. Bounded (`journalLimit`, oldest dropped)
 * so a long-running fake never grows without limit. Plain TypeScript: the recording middleware
 * (`request-recorder.ts`) fills it, the admin API and the programmatic API read it.
 */

/** What the recorder knows when a request is over. Kept raw; converted to JSON only when read. */
export interface JournalRecord {
  /** Arrival, milliseconds since the Unix epoch (real time, not the fake's clock). */
  arrivedAt: number;
  method: string;
  /** Relative to the instance: `/api/v2/documents` for the root and inside a session alike. */
  path: string;
  /** The query string as sent, without the `?`; parsed when the entry is read. */
  search: string;
  /** As the client sent them, token values included (this is a test tool). */
  headers: IncomingHttpHeaders;
  /** The parsed body; a Buffer for other media types; undefined when none was sent. */
  body: unknown;
  /** Undefined when no response was sent (connection dropped). */
  status: number | undefined;
  durationMs: number;
  /** The response body as sent. */
  response: unknown;
  operationId: string | undefined;
  /** The id of the fault that applied, if any. */
  fault: string | undefined;
  /** `dropped`: a fault destroyed the connection; `aborted`: the client closed it first. */
  outcome: 'completed' | 'dropped' | 'aborted';
  /** Contract violations; response violations are appended later when `validateResponses` is on. */
  violations: Violation[];
  /** What the request relied on that the documentation does not promise (never violations). */
  notices: Notice[];
}

export interface JournalEntry extends JournalRecord {
  /** Increasing for the instance's whole life (not reset by clear or reset). */
  id: number;
}

export interface JournalFilter {
  /** Case-insensitive. */
  method?: string;
  /** Exact, relative to the instance. */
  path?: string;
  status?: number;
  /** Only entries with a greater id. */
  since?: number;
}

/** The JSON form of an entry (the shape of `GET /__admin/requests`). */
export interface JournalEntryView {
  id: number;
  time: string;
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  body?: unknown;
  status?: number;
  durationMs: number;
  response?: unknown;
  operationId?: string;
  fault?: string;
  dropped?: true;
  aborted?: true;
  violations: Violation[];
  notices: Notice[];
}

/** One request that broke the contract (the shape of `GET /__admin/violations`). */
export interface ViolationRecord {
  /** The journal id of the request. */
  requestId: number;
  time: string;
  method: string;
  path: string;
  status?: number;
  violations: Violation[];
}

/** One request the fake answered but that relies on luck (the shape of `GET /__admin/notices`). */
export interface NoticeRecord {
  /** The journal id of the request. */
  requestId: number;
  time: string;
  method: string;
  path: string;
  status?: number;
  notices: Notice[];
}

/** A list that keeps its newest `limit` items; amortised O(1) per push. */
class BoundedList<T> {
  #items: Array<T | undefined> = [];
  #start = 0;

  constructor(readonly limit: number) {}

  push(item: T): void {
    if (this.limit <= 0) return;
    this.#items.push(item);
    if (this.#items.length - this.#start > this.limit) {
      this.#items[this.#start] = undefined;
      this.#start++;
      // Compacting costs O(limit) and happens at most once per `limit` pushes.
      if (this.#start * 2 > this.#items.length) {
        this.#items = this.#items.slice(this.#start);
        this.#start = 0;
      }
    }
  }

  values(): T[] {
    return this.#items.slice(this.#start) as T[];
  }

  clear(): void {
    this.#items = [];
    this.#start = 0;
  }

  get size(): number {
    return this.#items.length - this.#start;
  }
}

export class Journal {
  readonly #entries: BoundedList<JournalEntry>;
  /** The violating entries, kept apart so a violation outlives busy stretches of valid traffic. */
  readonly #violating: BoundedList<JournalEntry>;
  /** The entries with notices, kept apart for the same reason. */
  readonly #noticed: BoundedList<JournalEntry>;
  readonly #pending = new Set<Promise<unknown>>();
  #nextId = 1;

  constructor(limit: number) {
    this.#entries = new BoundedList(limit);
    this.#violating = new BoundedList(limit);
    this.#noticed = new BoundedList(limit);
  }

  record(record: JournalRecord): JournalEntry {
    const entry: JournalEntry = Object.assign(record, { id: this.#nextId++ });
    this.#entries.push(entry);
    if (entry.violations.length > 0) this.#violating.push(entry);
    if (entry.notices.length > 0) this.#noticed.push(entry);
    return entry;
  }

  /** Adds violations found after the entry was recorded (response checks). */
  addViolations(entry: JournalEntry, violations: Violation[]): void {
    if (violations.length === 0) return;
    const first = entry.violations.length === 0;
    entry.violations.push(...violations);
    if (first) this.#violating.push(entry);
  }

  /** Registers work that may still add violations; `settled()` waits for it. */
  track(work: Promise<unknown>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  /** Resolves once every tracked check has finished. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  list(filter: JournalFilter = {}): JournalEntry[] {
    const method = filter.method?.toUpperCase();
    return this.#entries
      .values()
      .filter(
        (e) =>
          (method === undefined || e.method === method) &&
          (filter.path === undefined || e.path === filter.path) &&
          (filter.status === undefined || e.status === filter.status) &&
          (filter.since === undefined || e.id > filter.since),
      );
  }

  violations(): ViolationRecord[] {
    return this.#violating.values().map((e) => ({
      requestId: e.id,
      time: new Date(e.arrivedAt).toISOString(),
      method: e.method,
      path: e.path,
      status: e.status,
      violations: e.violations,
    }));
  }

  notices(): NoticeRecord[] {
    return this.#noticed.values().map((e) => ({
      requestId: e.id,
      time: new Date(e.arrivedAt).toISOString(),
      method: e.method,
      path: e.path,
      status: e.status,
      notices: e.notices,
    }));
  }

  clear(): void {
    this.#entries.clear();
    this.#violating.clear();
    this.#noticed.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * A recorded value as it can be listed. A body nested thousands of levels deep parses fine but
 * overflows the JSON serialiser: such a value is replaced by a note, so the listing still works.
 */
function listable(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  try {
    JSON.stringify(value);
    return value;
  } catch {
    return '[not listed: nested too deeply to serialise]';
  }
}

/** The JSON form of an entry; a raw body becomes its UTF-8 text. */
export function viewEntry(entry: JournalEntry): JournalEntryView {
  return {
    id: entry.id,
    time: new Date(entry.arrivedAt).toISOString(),
    method: entry.method,
    path: entry.path,
    query: parseQuery(entry.search),
    headers: entry.headers,
    body: Buffer.isBuffer(entry.body) ? entry.body.toString('utf8') : listable(entry.body),
    status: entry.status,
    durationMs: entry.durationMs,
    response: listable(entry.response),
    operationId: entry.operationId,
    fault: entry.fault,
    dropped: entry.outcome === 'dropped' ? true : undefined,
    aborted: entry.outcome === 'aborted' ? true : undefined,
    violations: entry.violations,
    notices: entry.notices,
  };
}
