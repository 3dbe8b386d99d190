import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { capViolations, type Violation } from '../../errors.js';
import type { MemoryAccount } from '../../memory-budget.js';
import type { Notice } from '../../notices.js';
import { hasUnexpected, unexpectedOf } from '../controls/expected-violations.js';
import { pathMatcher } from '../controls/path-pattern.js';
import type { BehaviourId } from './behaviours.js';
import { findingsBytes } from './finding-list.js';
import { type KeptBody, keptBytes, previewBody, readBody, slimBody } from './kept-body.js';
import { MemoryPool } from './memory-pool.js';

/**
 * The request journal of one instance: the vendor API requests it received, newest last, each
 * with the response and the findings (violations, notices). Bounded by count (`journalLimit`) and
 * by size (`journalBytes`), oldest dropped first, so a long-running fake never grows without
 * limit whatever clients send; bodies are kept as text up to `journalBodyBytes` each and
 * summarised beyond (`kept-body.ts`). Plain TypeScript: the recording middleware fills it, the
 * admin API and the programmatic API read it.
 */

/**
 * How a request reached the fake: straight to its port (`direct`); through the fake's forward
 * proxy (`proxy`), with proxy credentials naming a session (`proxy-session`); or at the root URL
 * with a session's own API key or a token issued to it, which routed it to that session
 * (`key-session`); or at the root URL with a `baggage` header naming the session
 * (`baggage-session`, http/session-baggage.ts).
 */
export type RequestVia = 'direct' | 'proxy' | 'proxy-session' | 'key-session' | 'baggage-session';

/** What the recorder knows when a request is over. Kept raw; converted to JSON only when read. */
export interface JournalRecord {
  /** Arrival, milliseconds since the Unix epoch (real time, not the fake's clock). */
  arrivedAt: number;
  /** The scheme the client used. */
  scheme: 'http' | 'https';
  /** The `Host` header as the client sent it (undefined when it sent none). */
  host: string | undefined;
  via: RequestVia;
  method: string;
  /** Relative to the instance: `/api/v2/documents` for the root and inside a session alike. */
  path: string;
  /** The query string as sent, without the `?`; parsed when the entry is read. */
  search: string;
  /** As the client sent them, token values included (this is a test tool). */
  headers: IncomingHttpHeaders;
  /** The body as sent; undefined when none was sent. */
  body: KeptBody | undefined;
  /** Undefined when no response was sent (connection dropped). */
  status: number | undefined;
  durationMs: number;
  /** The response body as sent. */
  response: KeptBody | undefined;
  operationId: string | undefined;
  /** The id of the fault that applied, if any. */
  fault: string | undefined;
  /** `dropped`: a fault destroyed the connection; `aborted`: the client closed it first. */
  outcome: 'completed' | 'dropped' | 'aborted';
  /** Contract violations; response violations are appended later when `validateResponses` is on. */
  violations: Violation[];
  /** What the request relied on that the documentation does not promise (never violations). */
  notices: Notice[];
  /** The behaviours of the catalogue the request exercised (`behaviours.ts`), in catalogue order. */
  behaviours: BehaviourId[];
}

export interface JournalEntry extends JournalRecord {
  /** Increasing for the instance's whole life (not reset by clear or reset). */
  id: number;
  /** What the entry costs the byte budget (fixed when recorded). */
  weight: number;
}

export interface JournalFilter {
  /** Case-insensitive. */
  method?: string;
  /** Relative to the instance: exact, or a prefix when it ends in `*`. */
  path?: string;
  status?: number;
  /** Only entries with a greater id. */
  since?: number;
  /** Only entries with violations. */
  violations?: boolean;
  /** Only entries with notices. */
  notices?: boolean;
}

export interface JournalPage {
  /** `asc`: oldest first (default); `desc`: newest first. */
  order?: 'asc' | 'desc';
  offset?: number;
  limit?: number;
}

export interface JournalLimits {
  /** Most entries kept. */
  entries: number;
  /** Most bytes kept (bodies, headers, query), oldest entries dropped first. */
  bytes: number;
  /** Largest body (request or response) kept whole; larger ones are summarised. */
  bodyBytes: number;
}

/** The JSON form of an entry (the shape of `GET /__admin/requests`). */
export interface JournalEntryView {
  id: number;
  time: string;
  scheme: 'http' | 'https';
  /** The `Host` header as sent; absent when none was sent. */
  host?: string;
  via: RequestVia;
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  body?: unknown;
  /** In listings: the body was longer than the preview; `body` holds its start. */
  bodyTruncated?: true;
  bodyBytes?: number;
  status?: number;
  durationMs: number;
  response?: unknown;
  responseTruncated?: true;
  responseBytes?: number;
  operationId?: string;
  fault?: string;
  dropped?: true;
  aborted?: true;
  violations: Violation[];
  notices: Notice[];
  behaviours: BehaviourId[];
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

/** A list that keeps its newest `limit` items; amortised O(1) per push and shift. */
class BoundedList<T> {
  #items: Array<T | undefined> = [];
  #start = 0;

  constructor(readonly limit: number) {}

  /** Adds `item`; answers the item dropped to stay within the limit, if any. */
  push(item: T): T | undefined {
    if (this.limit <= 0) return item;
    this.#items.push(item);
    return this.size > this.limit ? this.shift() : undefined;
  }

  /** Removes and answers the oldest item. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.#items[this.#start];
    this.#items[this.#start] = undefined;
    this.#start++;
    // Compacting costs O(size) and happens at most once per `size` shifts.
    if (this.#start * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#start);
      this.#start = 0;
    }
    return item;
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

/** What an entry costs: its bodies, headers, query, path, findings' text and the record itself. */
function entryWeight(record: JournalRecord): number {
  let headers = 0;
  const all = record.headers;
  for (const name in all) {
    const value = all[name];
    headers += name.length + (Array.isArray(value) ? value.join('').length : String(value ?? '').length);
  }
  return (
    256 +
    headers +
    (record.host?.length ?? 0) +
    record.search.length +
    record.path.length +
    keptBytes(record.body) +
    keptBytes(record.response) +
    findingsBytes(record.violations) +
    findingsBytes(record.notices)
  );
}

/**
 * The journals of one server (root and sessions) within the `journals` share of its memory
 * budget: past it, the largest journal drops its oldest entries first, so a noisy session pays
 * for its own traffic before a quiet one loses anything. A tenant's pool (over its quota, with
 * the server's as `parent`) holds its sessions' journals, which are the server's too: past the
 * tenant's quota its own largest journal drops first, then the server's pool trims as ever.
 */
export class JournalPool extends MemoryPool<Journal> {
  constructor(budget: MemoryAccount, parent?: JournalPool) {
    super('journals', [(journal) => journal.canDrop], budget, parent);
  }
}

export class Journal {
  readonly limits: JournalLimits;
  readonly #entries: BoundedList<JournalEntry>;
  readonly #byId = new Map<number, JournalEntry>();
  /**
   * The violating entries (with violations the suite did not declare), kept apart so a violation
   * outlives busy stretches of valid traffic.
   */
  readonly #violating: BoundedList<JournalEntry>;
  /** The entries with notices, kept apart for the same reason. */
  readonly #noticed: BoundedList<JournalEntry>;
  readonly #pending = new Set<Promise<unknown>>();
  /**
   * Entries dropped from the journal but still listed as findings, with how many of the two
   * findings lists still hold each: their summaries and headers stay counted in `#bytes` until
   * the last list lets go of them.
   */
  readonly #retained = new Map<JournalEntry, number>();
  /** Findings dropped for the byte bounds while the findings lists still hold them. */
  readonly #evicted = new WeakSet<JournalEntry>();
  #nextId = 1;
  #bytes = 0;
  readonly #pool: JournalPool | undefined;

  constructor(limits: JournalLimits, pool?: JournalPool) {
    this.limits = limits;
    this.#pool = pool;
    pool?.join(this);
    this.#entries = new BoundedList(limits.entries);
    this.#violating = new BoundedList(limits.entries);
    this.#noticed = new BoundedList(limits.entries);
  }

  record(record: JournalRecord): JournalEntry {
    const entry = record as JournalEntry;
    entry.id = this.#nextId++;
    entry.weight = entryWeight(record);
    this.#byId.set(entry.id, entry);
    this.#bytes += entry.weight;
    this.#pool?.budget.add('journals', entry.weight);
    const dropped = this.#entries.push(entry);
    if (dropped) this.#drop(dropped);
    if (hasUnexpected(entry.violations)) this.#unlist(this.#violating.push(entry));
    if (entry.notices.length > 0) this.#unlist(this.#noticed.push(entry));
    while (this.#bytes > this.limits.bytes && this.dropOldest()) {}
    this.#pool?.trim();
    return entry;
  }

  /** Whether `dropOldest` has anything to drop (never the newest entry). */
  get canDrop(): boolean {
    return this.#entries.size > 1 || this.#retained.size > 0;
  }

  /**
   * Drops the oldest entry, or when only the newest is left, the oldest finding kept after its
   * entry was dropped (the byte bounds' call, the memory budget's too). Answers whether anything
   * was dropped.
   */
  dropOldest(): boolean {
    if (this.#entries.size > 1) {
      const oldest = this.#entries.shift();
      if (oldest) this.#drop(oldest);
      return true;
    }
    const [finding] = this.#retained.keys();
    if (finding === undefined) return false;
    // Left in the findings lists (until they shift it out) as an empty shell, never listed.
    this.#retained.delete(finding);
    this.#evicted.add(finding);
    this.#bytes -= finding.weight;
    this.#pool?.budget.release('journals', finding.weight);
    finding.headers = {};
    finding.body = undefined;
    finding.response = undefined;
    return true;
  }

  /** A findings list let go of `entry`: its bytes are freed once nothing holds it. */
  #unlist(entry: JournalEntry | undefined): void {
    const lists = entry ? this.#retained.get(entry) : undefined;
    if (entry === undefined || lists === undefined) return;
    if (lists > 1) {
      this.#retained.set(entry, lists - 1);
      return;
    }
    this.#retained.delete(entry);
    this.#bytes -= entry.weight;
    this.#pool?.budget.release('journals', entry.weight);
  }

  /** Empties the journal and leaves the pool (the instance is going away). */
  dispose(): void {
    this.clear();
    this.#pool?.leave(this);
  }

  /**
   * An entry leaves the journal; one still listed as a finding keeps its bodies only as summaries,
   * so the findings lists stay small whatever the bodies were.
   */
  #drop(entry: JournalEntry): void {
    this.#byId.delete(entry.id);
    this.#bytes -= entry.weight;
    this.#pool?.budget.release('journals', entry.weight);
    const lists = (hasUnexpected(entry.violations) ? 1 : 0) + (entry.notices.length > 0 ? 1 : 0);
    if (lists > 0) {
      if (entry.body) entry.body = slimBody(entry.body);
      if (entry.response) entry.response = slimBody(entry.response);
      // Still listed as a finding: what it keeps (headers, summaries) stays counted.
      entry.weight = entryWeight(entry);
      this.#retained.set(entry, lists);
      this.#bytes += entry.weight;
      this.#pool?.budget.add('journals', entry.weight);
    }
  }

  /**
   * Adds violations found after the entry was recorded (response checks), within the first 100
   * of the entry; answers the bytes they added (0: none).
   */
  addViolations(entry: JournalEntry, violations: Violation[]): number {
    if (violations.length === 0) return 0;
    const first = !hasUnexpected(entry.violations);
    const all = capViolations([...entry.violations, ...violations], undefined, 'response');
    const added = findingsBytes(all) - findingsBytes(entry.violations);
    entry.violations.splice(0, entry.violations.length, ...all);
    // Counted while the journal holds the entry (listed, or kept as a finding only).
    if (this.#byId.has(entry.id) || this.#retained.has(entry)) {
      entry.weight += added;
      this.#bytes += added;
      this.#pool?.budget.add('journals', added);
    }
    if (first && hasUnexpected(entry.violations)) {
      const lists = this.#retained.get(entry);
      if (lists !== undefined) this.#retained.set(entry, lists + 1);
      this.#unlist(this.#violating.push(entry));
    }
    while (this.#bytes > this.limits.bytes && this.dropOldest()) {}
    this.#pool?.trim();
    return added;
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

  /** The entries that match, oldest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const method = filter.method?.toUpperCase();
    const path = filter.path === undefined ? undefined : pathMatcher(filter.path);
    return this.#entries
      .values()
      .filter(
        (e) =>
          (method === undefined || e.method === method) &&
          (path === undefined || path(e.path)) &&
          (filter.status === undefined || e.status === filter.status) &&
          (filter.since === undefined || e.id > filter.since) &&
          (filter.violations !== true || e.violations.length > 0) &&
          (filter.notices !== true || e.notices.length > 0),
      );
  }

  /** One page of the entries that match, and how many match in all. */
  page(filter: JournalFilter, page: JournalPage = {}): { entries: JournalEntry[]; count: number } {
    const matching = this.list(filter);
    if (page.order === 'desc') matching.reverse();
    const offset = page.offset ?? 0;
    const limit = page.limit ?? matching.length;
    return { entries: matching.slice(offset, offset + limit), count: matching.length };
  }

  /** The entry with this id, while the journal still holds it. */
  get(id: number): JournalEntry | undefined {
    return this.#byId.get(id);
  }

  violations(): ViolationRecord[] {
    return this.#violating
      .values()
      .filter((e) => !this.#evicted.has(e))
      .map((e) => ({ ...findingBase(e), violations: unexpectedOf(e.violations) }));
  }

  notices(): NoticeRecord[] {
    return this.#noticed
      .values()
      .filter((e) => !this.#evicted.has(e))
      .map((e) => ({ ...findingBase(e), notices: e.notices }));
  }

  clear(): void {
    this.#entries.clear();
    this.#violating.clear();
    this.#noticed.clear();
    this.#byId.clear();
    this.#retained.clear();
    this.#pool?.budget.release('journals', this.#bytes);
    this.#bytes = 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** What the entries cost the byte budget. */
  get bytes(): number {
    return this.#bytes;
  }
}

/** What every finding record says of its request: the journal's and the report's lists alike. */
export function findingBase(e: JournalEntry) {
  return {
    requestId: e.id,
    time: new Date(e.arrivedAt).toISOString(),
    method: e.method,
    path: e.path,
    status: e.status,
  };
}

/**
 * The JSON form of an entry. Whole by default; with `previewBytes` (listings), a body or response
 * longer than that is shown as the start of its text, flagged, with its size.
 */
export function viewEntry(entry: JournalEntry, previewBytes?: number): JournalEntryView {
  const view: JournalEntryView = {
    id: entry.id,
    time: new Date(entry.arrivedAt).toISOString(),
    scheme: entry.scheme,
    host: entry.host,
    via: entry.via,
    method: entry.method,
    path: entry.path,
    query: { ...parseQuery(entry.search) },
    headers: entry.headers,
    status: entry.status,
    durationMs: entry.durationMs,
    operationId: entry.operationId,
    fault: entry.fault,
    dropped: entry.outcome === 'dropped' ? true : undefined,
    aborted: entry.outcome === 'aborted' ? true : undefined,
    violations: entry.violations,
    notices: entry.notices,
    behaviours: entry.behaviours,
  };
  if (previewBytes === undefined) {
    view.body = readBody(entry.body);
    view.response = readBody(entry.response);
    return view;
  }
  const body = previewBody(entry.body, previewBytes);
  const response = previewBody(entry.response, previewBytes);
  view.body = body.value;
  view.response = response.value;
  if (body.truncated) [view.bodyTruncated, view.bodyBytes] = [true, body.bytes];
  if (response.truncated) [view.responseTruncated, view.responseBytes] = [true, response.bytes];
  return view;
}
