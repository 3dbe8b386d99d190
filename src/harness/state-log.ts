/**
 * The state file's format: a log of JSON lines. A snapshot (the reset point, the documents that
 * differ from it, tokens, settings, clock) then one group of lines per acknowledged change, each
 * group closed by a `commit` line. Reading it back replays the groups that were committed; a
 * group cut short (a crash in the middle of a write, which was never acknowledged) is dropped.
 * No line holds more than one document or a few hundred tokens, so no state is ever one string.
 *
 *   {"t":"head","format":"passportal-docs-fake state","version":2}
 *   {"t":"catalog",...} {"t":"base","documents":[...]}... {"t":"loaded"}   a reset point (a load)
 *   {"t":"documents","documents":[...]}      documents stored
 *   {"t":"tokens","tokens":[[token, grant]...]}   tokens issued
 *   {"t":"revokeTokens"} {"t":"reset"} {"t":"settings","settings":{}} {"t":"clock","offsetSeconds":0}
 *   {"t":"commit"}
 *
 * A session's lines are those same records with `"s":"<session id>"`, between its own:
 *
 *   {"t":"session","s":id,"createdAt":..,"lastUsedAt":..,"expires":true,"ownFixtures":false,
 *     "base":"root"?,"keys":[...]?,"run":..?,"owner":..?}   it starts (over the root's reset point
 *                                                           as it stands there, with `base`)
 *   {"t":"keys","s":id,"keys":[...]}                         its own keys changed (a fixture load)
 *   {"t":"controls","s":id,"controls":{faults,rateLimits,expectations,scenarios}}   as configured
 *   {"t":"counts","s":id,"lastUsedAt":..,"counts":{coverage,verdict}}   its report's exact counts
 *   {"t":"end","s":id}                                       deleted or reaped
 *
 * What the ended sessions of a run left for its report, folded in order at a restart:
 *
 *   {"t":"runEnded","run":label,"part":{...}}   a session of the run ended (its part of the report)
 *   {"t":"runCleared","run":label}              the run's report was cleared
 *
 * Version 2 files (the root only) and version 1 files (one JSON object, the whole state) are
 * still read, and carried on in this version.
 */
import { constants as bufferConstants } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';
import { ConfigError, type Settings } from '../config.js';
import { MAX_UNIX_SECONDS } from '../domain/clock.js';
import type { PersistentState, StateChange } from '../domain/fake.js';
import { buildDataset } from '../domain/fixtures/load-fixtures.js';
import type { TokenGrant } from '../domain/tokens.js';
import type { ApiKey, Dataset } from '../domain/types.js';
import { ApiError } from '../errors.js';
import type { NoticeCode } from '../notices.js';
import type { BehaviourId } from './behaviours.js';
import type { KeptCoverage } from './coverage.js';
import type { RunPart } from './run-part.js';
import { RUN_LABEL } from './run-reports.js';
import { mergeSettings } from './settings-input.js';
import type { KeptVerdict } from './verdict-tally.js';

export const FORMAT = 'passportal-docs-fake state';
export const VERSION = 3;
export const COMMIT_LINE = '{"t":"commit"}\n';

const line = (record: object): string => `${JSON.stringify(record)}\n`;

/** `record` as a line of the root (`s` undefined) or of session `s` (its `s` after its `t`). */
const lineOf = (s: string | undefined, t: string, rest: object = {}): string =>
  line(s === undefined ? { t, ...rest } : { t, s, ...rest });

/** A session as its `session` line describes it (see sessions.ts `RestoredSession`). */
export interface SessionMeta {
  id: string;
  createdAt: number;
  lastUsedAt: number;
  expires: boolean;
  ownFixtures: boolean;
  run: string | undefined;
  owner?: string;
  keys: ApiKey[] | undefined;
}

/** A session's line of its start; `base`: over the root's reset point as it stands at that line. */
export function sessionLine(meta: SessionMeta, base: boolean): string {
  const { id, run, owner, keys, ...times } = meta;
  return lineOf(id, 'session', {
    ...times,
    ...(base ? { base: 'root' } : {}),
    ...(run === undefined ? {} : { run }),
    ...(owner === undefined ? {} : { owner }),
    ...(keys === undefined ? {} : { keys }),
  });
}

export const keysLine = (s: string, keys: ApiKey[]): string => lineOf(s, 'keys', { keys });
export const controlsLine = (s: string, controls: object): string => lineOf(s, 'controls', { controls });
export const countsLine = (s: string, lastUsedAt: number, counts: object): string =>
  lineOf(s, 'counts', { lastUsedAt, counts });
export const endLine = (s: string): string => lineOf(s, 'end');

/** A run's part as a line: its maps as lists of pairs. */
export const runEndedLine = (run: string, part: RunPart): string =>
  line({
    t: 'runEnded',
    run,
    part: { ...part, operations: [...part.operations], behaviours: [...part.behaviours] },
  });
export const runClearedLine = (run: string): string => line({ t: 'runCleared', run });

/** What a snapshot writes of one session. */
export interface SessionSnapshot {
  meta: SessionMeta;
  /** True: its reset point is the root's (written just before it), with its own keys put in. */
  base: boolean;
  state: PersistentState;
  controls: object;
  lastUsedAt: number;
  counts: object;
}

export function headLine(): string {
  return line({ t: 'head', format: FORMAT, version: VERSION, savedAt: new Date().toISOString() });
}

/** The lines that make `dataset` the reset point (of the root, or of session `s`). */
export function* datasetLines(dataset: Dataset, s?: string): Generator<string> {
  const { organizations, clients, templates, apiKeys } = dataset;
  yield lineOf(s, 'catalog', { organizations, clients, templates, apiKeys });
  for (const doc of dataset.documents) yield lineOf(s, 'base', { documents: [doc] });
  yield lineOf(s, 'loaded');
}

/** The lines of one change the fake made (`Fake.onChange`), of the root or of session `s`. */
export function* changeLines(change: StateChange, s?: string): Generator<string> {
  switch (change.kind) {
    case 'documents':
      for (const doc of change.documents) yield lineOf(s, 'documents', { documents: [doc] });
      return;
    case 'tokens':
      yield lineOf(s, 'tokens', { tokens: change.tokens });
      return;
    case 'load':
      yield* datasetLines(change.dataset, s);
      return;
    default:
      yield lineOf(s, change.kind);
  }
}

export const settingsLine = (settings: Settings, s?: string): string => lineOf(s, 'settings', { settings });
export const clockLine = (offsetSeconds: number, s?: string): string => lineOf(s, 'clock', { offsetSeconds });

/** Tokens per line in a snapshot. */
const TOKENS_PER_LINE = 256;

/**
 * A whole state as a committed group, made line by line as it is read (tokens straight from the
 * live store), so a caller can write it in pieces between other work.
 */
export function* snapshotLines(
  state: PersistentState,
  sessions: Iterable<SessionSnapshot> = [],
  runs: Iterable<[string, RunPart]> = [],
): Generator<string> {
  yield headLine();
  yield* datasetLines(state.resetPoint);
  yield* stateLines(state);
  for (const [run, part] of runs) yield runEndedLine(run, part);
  for (const session of sessions) {
    const s = session.meta.id;
    yield sessionLine(session.meta, session.base);
    if (!session.base) yield* datasetLines(session.state.resetPoint, s);
    yield* stateLines(session.state, s);
    yield controlsLine(s, session.controls);
    yield countsLine(s, session.lastUsedAt, session.counts);
  }
  yield COMMIT_LINE;
}

/** An instance's state over its reset point: documents changed, tokens, settings and clock. */
function* stateLines(state: PersistentState, s?: string): Generator<string> {
  for (const doc of state.changed) yield lineOf(s, 'documents', { documents: [doc] });
  let tokens: Array<readonly [string, Readonly<TokenGrant>]> = [];
  for (const entry of state.tokens) {
    tokens.push(entry);
    if (tokens.length === TOKENS_PER_LINE) {
      yield lineOf(s, 'tokens', { tokens });
      tokens = [];
    }
  }
  if (tokens.length > 0) yield lineOf(s, 'tokens', { tokens });
  yield settingsLine(state.settings, s);
  yield clockLine(state.clockOffsetSeconds, s);
}

/** A session read back from a state file (its controls and counts as read, checked by the caller). */
export interface SessionBack {
  meta: SessionMeta;
  state: Omit<ReadBack, 'committedBytes' | 'snapshotBytes' | 'fileBytes' | 'version' | 'sessions' | 'runs'>;
  /** Its `controls` as read, and where (checked against the spec by whoever restores them). */
  controls: { value: unknown; where: string } | undefined;
  counts: KeptCounts | undefined;
  /** Whether its reset point is still the root's (as the root's stands at the end of the file). */
  baseIsRoot: boolean;
}

/** A session's report counts as kept (`counts` line). */
export interface KeptCounts {
  coverage: KeptCoverage;
  verdict: KeptVerdict;
}

/** A state file read back: the state, and how many bytes of the file hold committed groups. */
export interface ReadBack {
  sessions: SessionBack[];
  /** What ended sessions left for their runs' reports, in order (`part` undefined: the run was cleared). */
  runs: Array<{ label: string; part: RunPart | undefined }>;
  version: number;
  resetPoint: Dataset;
  changed: Dataset['documents'];
  tokens: Array<[string, TokenGrant]>;
  clockOffsetSeconds: number;
  settings: Settings;
  committedBytes: number;
  /** Bytes of the first group, the snapshot the log starts from. */
  snapshotBytes: number;
  fileBytes: number;
}

interface RawResetPoint {
  catalog: Record<string, unknown>;
  documents: unknown[];
}

/** The state as replayed so far, values as read (checked at the end, or as each line comes). */
class Replay {
  resetPoint: RawResetPoint | undefined;
  changed = new Map<number, unknown>();
  tokens = new Map<string, TokenGrant>();
  settings: Record<string, unknown> = {};
  clockOffsetSeconds = 0;
  #loading: RawResetPoint | undefined;
  /** The root's replay only: what ended sessions left for their runs, in order. */
  readonly runs: Array<{ label: string; part: RunPart | undefined }> = [];
  /** The root's replay only: the sessions started and not ended so far. */
  readonly sessions = new Map<
    string,
    { meta: SessionMeta; replay: Replay; controls?: { value: unknown; where: string }; counts?: KeptCounts }
  >();

  constructor(
    readonly where: (key: string) => string,
    readonly current: Settings,
    /** A session's replay: its lines come without their `s`. */
    readonly ofSession = false,
  ) {}

  apply(record: Record<string, unknown>, lineNo: number): void {
    const at = (key: string) => this.where(`line ${lineNo}, ${key}`);
    if (!this.ofSession && record.s !== undefined) {
      this.#applySession(record, lineNo, at);
      return;
    }
    switch (record.t) {
      case 'head':
        return;
      case 'catalog':
        this.#loading = { catalog: withoutTag(record), documents: [] };
        return;
      case 'base':
        if (!this.#loading) throw new ConfigError(`${at('base')}: a base document outside a reset point`);
        this.#loading.documents.push(...documentsOf(record, at));
        return;
      case 'loaded':
        if (!this.#loading) throw new ConfigError(`${at('loaded')}: no reset point before it`);
        this.resetPoint = this.#loading;
        this.#loading = undefined;
        this.changed.clear();
        this.tokens.clear();
        this.clockOffsetSeconds = 0;
        return;
      case 'documents':
        for (const doc of documentsOf(record, at)) this.changed.set((doc as { id: number }).id, doc);
        return;
      case 'tokens':
        checkTokens(record.tokens, at('tokens'), this.tokens);
        return;
      case 'revokeTokens':
        for (const grant of this.tokens.values()) grant.revoked = true;
        return;
      case 'reset':
        this.changed.clear();
        this.clockOffsetSeconds = 0;
        return;
      case 'settings':
        this.settings = checkSettings(this.current, record.settings, at);
        return;
      case 'clock':
        this.clockOffsetSeconds = checkOffset(record.offsetSeconds, at('offsetSeconds'));
        return;
      case 'runEnded':
      case 'runCleared':
        if (this.ofSession) throw new ConfigError(`${at('t')}: a run's record inside a session`);
        if (typeof record.run !== 'string' || !RUN_LABEL.test(record.run))
          throw new ConfigError(`${at('run')}: must be a run label`);
        this.runs.push({
          label: record.run,
          part: record.t === 'runEnded' ? checkRunPart(record.part, at) : undefined,
        });
        return;
      default:
        throw new ConfigError(`${at('t')}: unknown record ${JSON.stringify(record.t)}`);
    }
  }

  /** A line of a session (`s`): its start, end, keys, controls, counts, or a record of its state. */
  #applySession(record: Record<string, unknown>, lineNo: number, at: (key: string) => string): void {
    const s = record.s;
    if (typeof s !== 'string' || !SESSION_ID.test(s))
      throw new ConfigError(`${at('s')}: must be a session id (1-64 letters, digits, _ and -)`);
    if (record.t === 'session') {
      const replay = new Replay(this.where, this.current, true);
      if (record.base === 'root') {
        if (!this.resetPoint) throw new ConfigError(`${at('base')}: no reset point of the root before it`);
        replay.resetPoint = this.resetPoint;
      } else if (record.base !== undefined) throw new ConfigError(`${at('base')}: must be "root" or absent`);
      this.sessions.set(s, { meta: checkSessionMeta(s, record, at), replay });
      return;
    }
    // An end may follow a snapshot written after the session ended: nothing to end then.
    if (record.t === 'end') {
      this.sessions.delete(s);
      return;
    }
    const kept = this.sessions.get(s);
    if (!kept) throw new ConfigError(`${at('s')}: session ${s} was not started before this line`);
    switch (record.t) {
      case 'keys':
        kept.meta.keys = checkKeys(record.keys, at('keys'));
        return;
      case 'controls':
        kept.controls = { value: record.controls, where: at('controls') };
        return;
      case 'counts':
        kept.meta.lastUsedAt = checkTime(record.lastUsedAt, at('lastUsedAt'));
        kept.counts = checkCounts(record.counts, at);
        return;
      case 'head':
        throw new ConfigError(`${at('t')}: a head inside a session`);
      default: {
        const { s: _s, ...rest } = record;
        kept.replay.apply(rest, lineNo);
      }
    }
  }

  /** The sessions replayed, each checked as the root is. */
  finishSessions(current: Settings, source: string): SessionBack[] {
    return [...this.sessions.values()].map(({ meta, replay, controls, counts }) => {
      const { sessions: _none, runs: _noRuns, ...state } = replay.finish(current, source);
      return { meta, state, controls, counts, baseIsRoot: replay.resetPoint === this.resetPoint };
    });
  }

  /** The replayed state, every document checked against its reset point's catalogue. */
  finish(
    current: Settings,
    source: string,
  ): Omit<ReadBack, 'committedBytes' | 'snapshotBytes' | 'fileBytes' | 'version'> {
    if (!this.resetPoint) throw new ConfigError(`${this.where('catalog')}: no reset point in the file`);
    const raw = { ...this.resetPoint.catalog, documents: this.resetPoint.documents };
    const resetPoint = buildDataset(raw, source);
    const changed = buildDataset({ ...raw, documents: [...this.changed.values()] }, source).documents;
    const settings = mergeSettings(current, this.settings);
    return {
      resetPoint,
      changed,
      tokens: [...this.tokens],
      clockOffsetSeconds: this.clockOffsetSeconds,
      settings,
      sessions: this.ofSession ? [] : this.finishSessions(current, source),
      runs: this.runs,
    };
  }
}

/** A session id as the registry makes them (128 random bits, base64url), or any like it. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,64}$/;

function checkTime(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new ConfigError(`${where}: must be milliseconds since the Unix epoch`);
  return value;
}

function checkSessionMeta(id: string, r: Record<string, unknown>, at: (key: string) => string): SessionMeta {
  for (const key of ['expires', 'ownFixtures'])
    if (typeof r[key] !== 'boolean') throw new ConfigError(`${at(key)}: must be true or false`);
  if (r.run !== undefined && (typeof r.run !== 'string' || !RUN_LABEL.test(r.run)))
    throw new ConfigError(`${at('run')}: must be a run label`);
  if (r.owner !== undefined && (typeof r.owner !== 'string' || r.owner.length === 0 || r.owner.length > 256))
    throw new ConfigError(`${at('owner')}: must be a name of 1-256 characters`);
  return {
    id,
    createdAt: checkTime(r.createdAt, at('createdAt')),
    lastUsedAt: checkTime(r.lastUsedAt, at('lastUsedAt')),
    expires: r.expires as boolean,
    ownFixtures: r.ownFixtures as boolean,
    run: r.run as string | undefined,
    ...(r.owner === undefined ? {} : { owner: r.owner as string }),
    keys: r.keys === undefined ? undefined : checkKeys(r.keys, at('keys')),
  };
}

function checkKeys(value: unknown, where: string): ApiKey[] {
  if (!Array.isArray(value)) throw new ConfigError(`${where}: must be a list of keys`);
  return value.map((key, i) => {
    if (
      !isObject(key) ||
      typeof key.keyId !== 'string' ||
      key.keyId.length === 0 ||
      typeof key.secret !== 'string' ||
      key.secret.length === 0 ||
      !Number.isSafeInteger(key.organizationId)
    )
      throw new ConfigError(`${where}[${i}]: must be {keyId, secret, organizationId}`);
    return { keyId: key.keyId, secret: key.secret, organizationId: key.organizationId as number };
  });
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function checkPairs<K extends string>(value: unknown, where: string): Array<[K, number]> {
  if (!Array.isArray(value)) throw new ConfigError(`${where}: must be a list of [name, count]`);
  value.forEach((pair, i) => {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !isCount(pair[1]))
      throw new ConfigError(`${where}[${i}]: must be [name, count]`);
  });
  return value as Array<[K, number]>;
}

/** A `runEnded` line's part: its lists as lists, its counts as counts, its pairs made maps again. */
function checkRunPart(value: unknown, at: (key: string) => string): RunPart {
  if (!isObject(value)) throw new ConfigError(`${at('part')}: must be an object`);
  for (const key of ['sessions', 'violations', 'expectedViolations', 'notices', 'unmetExpectations'])
    if (!Array.isArray(value[key]) || !(value[key] as unknown[]).every(isObject))
      throw new ConfigError(`${at(`part.${key}`)}: must be a list of objects`);
  for (const key of ['sessionsNotListed', 'findingsDropped'])
    if (!isCount(value[key])) throw new ConfigError(`${at(`part.${key}`)}: must be a count`);
  checkTime(value.since, at('part.since'));
  const requests = value.requests;
  if (!isObject(requests) || !['total', 'held', 'noLongerHeld'].every((k) => isCount(requests[k])))
    throw new ConfigError(`${at('part.requests')}: must be {total, held, noLongerHeld} counts`);
  const summary = value.summary;
  if (
    !isObject(summary) ||
    !isObject(summary.noticeCodes) ||
    ![
      'violatingRequests',
      'requestsWithNotices',
      'expectedViolations',
      'unmetExpectations',
      'violationsNotListed',
      'noticesNotListed',
    ].every((k) => isCount(summary[k]))
  )
    throw new ConfigError(`${at('part.summary')}: must be a report's summary of counts`);
  return {
    ...(value as unknown as RunPart),
    operations: new Map(checkPairs(value.operations, at('part.operations'))),
    behaviours: new Map(checkPairs(value.behaviours, at('part.behaviours'))),
  };
}

/** A `counts` line's counts, each a whole number of at least 0 (the lists checked as lists). */
function checkCounts(value: unknown, at: (key: string) => string): KeptCounts {
  if (!isObject(value) || !isObject(value.coverage) || !isObject(value.verdict))
    throw new ConfigError(`${at('counts')}: must be {coverage, verdict}`);
  const c = value.coverage;
  const v = value.verdict;
  for (const key of ['requests', 'violatingRequests', 'requestsWithNotices'])
    if (!isCount(c[key])) throw new ConfigError(`${at(`counts.coverage.${key}`)}: must be a count`);
  for (const key of ['violatingRequests', 'requestsWithNotices', 'expectedViolations', 'unmetDiscarded'])
    if (!isCount(v[key])) throw new ConfigError(`${at(`counts.verdict.${key}`)}: must be a count`);
  if (!Array.isArray(v.unmet) || !v.unmet.every((u) => isObject(u) && typeof u.id === 'string'))
    throw new ConfigError(`${at('counts.verdict.unmet')}: must be a list of declarations`);
  return {
    coverage: {
      requests: c.requests as number,
      since: checkTime(c.since, at('counts.coverage.since')),
      operations: checkPairs(c.operations, at('counts.coverage.operations')),
      behaviours: checkPairs<BehaviourId>(c.behaviours, at('counts.coverage.behaviours')),
      violatingRequests: c.violatingRequests as number,
      requestsWithNotices: c.requestsWithNotices as number,
      noticeCodes: checkPairs<NoticeCode>(c.noticeCodes, at('counts.coverage.noticeCodes')),
    },
    verdict: v as unknown as KeptVerdict,
  };
}

/** `raw` checked as run-time settings over `current`; a ConfigError names the first bad key. */
function checkSettings(
  current: Settings,
  raw: unknown,
  at: (key: string) => string,
): Record<string, unknown> {
  if (!isObject(raw)) throw new ConfigError(`${at('settings')}: must be an object`);
  try {
    mergeSettings(current, raw);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const [, key = '', message = error.message] =
      /^invalid settings: body\/(\S+) (?:\S+: )?(.*)$/.exec(error.message) ?? [];
    throw new ConfigError(`${at(`settings.${key}`)}: ${message}; fix or remove that setting`);
  }
  return raw;
}

function withoutTag(record: Record<string, unknown>): Record<string, unknown> {
  const { t: _tag, ...rest } = record;
  return rest;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function documentsOf(record: Record<string, unknown>, at: (key: string) => string): unknown[] {
  const docs = record.documents;
  if (!Array.isArray(docs)) throw new ConfigError(`${at('documents')}: must be a list`);
  docs.forEach((doc, i) => {
    if (!isObject(doc) || !Number.isSafeInteger(doc.id) || (doc.id as number) < 1) {
      throw new ConfigError(`${at(`documents[${i}].id`)}: must be a positive integer`);
    }
  });
  return docs;
}

const GRANT_CHECKS: Array<[keyof TokenGrant, (v: unknown) => boolean, string]> = [
  ['organizationId', (v) => Number.isSafeInteger(v), 'an integer'],
  ['keyId', (v) => typeof v === 'string' && v.length > 0, 'a key ID'],
  ['expiry', (v) => typeof v === 'number' && Number.isFinite(v), 'a number of Unix seconds'],
  ['kind', (v) => v === 'access' || v === 'refresh', '"access" or "refresh"'],
  ['revoked', (v) => typeof v === 'boolean', 'true or false'],
];

/** Checks token entries `[token, grant]` and adds them to `into`, naming the first bad one. */
function checkTokens(entries: unknown, where: string, into: Map<string, TokenGrant>): void {
  if (!Array.isArray(entries)) throw new ConfigError(`${where}: must be a list of [token, grant]`);
  entries.forEach((entry, i) => {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || entry[0].length === 0) {
      throw new ConfigError(`${where}[${i}]: must be [token, grant] with a token text`);
    }
    const grant: unknown = entry[1];
    if (!isObject(grant)) throw new ConfigError(`${where}[${i}][1]: the grant must be an object`);
    for (const [key, ok, what] of GRANT_CHECKS) {
      if (!ok(grant[key])) throw new ConfigError(`${where}[${i}][1].${key}: must be ${what}`);
    }
    const { organizationId, keyId, expiry, kind, revoked } = grant as unknown as TokenGrant;
    into.set(entry[0], { organizationId, keyId, expiry, kind, revoked });
  });
}

function checkOffset(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > MAX_UNIX_SECONDS) {
    throw new ConfigError(`${where}: must be a number of seconds within ±${MAX_UNIX_SECONDS}`);
  }
  return value;
}

/**
 * The longest line read: the longest text Node can hold (a line is read as one string). The
 * format writes one document, or 256 tokens, to a line; a longer line is damage, not state.
 */
export const MAX_LINE_BYTES = bufferConstants.MAX_STRING_LENGTH;

/**
 * Reads `path` line by line, a megabyte at a time (no state is ever one string). A line is
 * found first and read whole only then, so a line longer than `maxLineBytes` is a ConfigError
 * naming it, and none of it is ever held.
 */
function* readLines(
  path: string,
  source: string,
  maxLineBytes: number,
): Generator<{ text: string; end: number; complete: boolean }> {
  const fd = openSync(path, 'r');
  const range = (from: number, length: number): string => {
    const bytes = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, bytes, got, length - got, from + got);
      if (n === 0) break;
      got += n;
    }
    return bytes.toString('utf8', 0, got);
  };
  try {
    const buffer = Buffer.alloc(1 << 20);
    let offset = 0;
    let lineStart = 0;
    let lineNo = 1;
    const tooLong = (bytes: number) =>
      new ConfigError(
        `${source}: line ${lineNo} is longer than ${maxLineBytes} bytes (${bytes} bytes found of it), ` +
          'longer than any line of a state file: the file is damaged or not a state file ' +
          '(move it away to start from the fixtures)',
      );
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, offset);
      if (n === 0) break;
      let start = 0;
      for (let nl = buffer.indexOf(10, 0); nl !== -1 && nl < n; nl = buffer.indexOf(10, start)) {
        const lineEnd = offset + nl;
        if (lineEnd - lineStart > maxLineBytes) throw tooLong(lineEnd - lineStart);
        const text =
          lineStart >= offset
            ? buffer.toString('utf8', lineStart - offset, nl)
            : range(lineStart, lineEnd - lineStart);
        yield { text, end: lineEnd + 1, complete: true };
        lineNo++;
        lineStart = lineEnd + 1;
        start = nl + 1;
      }
      offset += n;
      if (offset - lineStart > maxLineBytes) throw tooLong(offset - lineStart);
    }
    if (offset > lineStart)
      yield { text: range(lineStart, offset - lineStart), end: offset, complete: false };
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a state file back. A group not closed by `commit` at the end of the file was never
 * acknowledged and is left out (`committedBytes` says where it starts); anything malformed before
 * that is a ConfigError naming the file, the line and the key.
 */
export function readStateFile(path: string, current: Settings, maxLineBytes = MAX_LINE_BYTES): ReadBack {
  const source = `state file ${path}`;
  const replay = new Replay((key) => `${source}: ${key}`, current);
  let group: Array<[Record<string, unknown>, number]> = [];
  let committedBytes = 0;
  let snapshotBytes = 0;
  let fileBytes = 0;
  let lineNo = 0;
  let version = 0;
  for (const { text, end, complete } of readLines(path, source, maxLineBytes)) {
    lineNo++;
    fileBytes = end;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      // The tail of a write cut short, after the lines that were whole. A first line never is:
      // the fake writes a new file whole before it takes its place.
      if (!complete && lineNo > 1) break;
      if (lineNo === 1) throw new ConfigError(notAStateFile(source, text, complete));
      throw new ConfigError(
        `${source}: line ${lineNo} is not JSON (move the file away to start from the fixtures)`,
      );
    }
    if (lineNo === 1) {
      if (isObject(record) && record.format === FORMAT && record.version === 1 && !('t' in record)) {
        return {
          ...readVersion1(record, replay, current, source),
          version: 1,
          committedBytes: 0,
          snapshotBytes: 0,
          fileBytes,
        };
      }
      if (
        !isObject(record) ||
        record.t !== 'head' ||
        record.format !== FORMAT ||
        (record.version !== 2 && record.version !== VERSION)
      ) {
        throw new ConfigError(`${source}: not a ${FORMAT} file of version 1, 2 or ${VERSION}`);
      }
      version = record.version;
    }
    if (!isObject(record)) throw new ConfigError(`${source}: line ${lineNo} is not an object`);
    if (!complete) break;
    if (record.t !== 'commit') {
      group.push([record, lineNo]);
      continue;
    }
    for (const [r, n] of group) replay.apply(r, n);
    group = [];
    committedBytes = end;
    if (snapshotBytes === 0) snapshotBytes = end;
  }
  if (version === 0) throw new ConfigError(`${source}: empty (move it away to start from the fixtures)`);
  return { ...replay.finish(current, source), version, committedBytes, snapshotBytes, fileBytes };
}

/** What a first line that is not JSON says about the file: a version 1 file cut short, or not a state file. */
function notAStateFile(source: string, text: string, complete: boolean): string {
  const head = text.slice(0, 200);
  if (head.includes(`"format":"${FORMAT}"`) || head.includes(`"format": "${FORMAT}"`)) {
    return (
      `${source}: a version 1 state file cut short (its one JSON object ends ${complete ? 'early' : 'mid-way'}, ` +
      `after ${Buffer.byteLength(text)} bytes); restore it from a backup, or move it away to start from the fixtures`
    );
  }
  return `${source}: line 1 is not JSON: not a ${FORMAT} file (move it away to start from the fixtures)`;
}

/** A version 1 file: the whole state in one object. */
function readVersion1(
  body: Record<string, unknown>,
  replay: Replay,
  current: Settings,
  source: string,
): Omit<ReadBack, 'committedBytes' | 'snapshotBytes' | 'fileBytes' | 'version'> {
  const resetPoint = body.resetPoint;
  if (!isObject(resetPoint)) throw new ConfigError(`${source}: resetPoint must be a fixture set`);
  replay.resetPoint = {
    catalog: resetPoint,
    documents: Array.isArray(resetPoint.documents) ? resetPoint.documents : [],
  };
  const at = (key: string) => `${source}: ${key}`;
  for (const doc of documentsOf({ documents: body.changed ?? [] }, (k) =>
    at(k.replace('documents', 'changed')),
  )) {
    replay.changed.set((doc as { id: number }).id, doc);
  }
  checkTokens(body.tokens ?? [], at('tokens'), replay.tokens);
  replay.settings = checkSettings(current, body.settings ?? {}, at);
  replay.clockOffsetSeconds = checkOffset(body.clockOffsetSeconds ?? 0, at('clockOffsetSeconds'));
  return replay.finish(current, source);
}
