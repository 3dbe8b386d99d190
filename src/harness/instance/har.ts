import { Buffer } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import type { Violation } from '../../errors.js';
import type { Notice } from '../../notices.js';
import { PACKAGE_VERSION } from '../../package-root.js';
import { SCRUBBED, SecretScrubber } from '../../secret-scrub.js';
import { sessionPath } from '../sessions/sessions.js';
import type { JournalEntry } from '../verdicts/journal.js';
import type { BodyMedia, KeptBody } from '../verdicts/kept-body.js';
import type { Instance } from './instance.js';

/**
 * The journal of one instance as an HTTP Archive (HAR 1.2): what a browser's devtools opens,
 * Playwright's `routeFromHAR` replays and MSW's `fromTraffic` turns into handlers. Every entry is
 * a journaled request with its answer, timed from the journal, bodies as the journal kept them
 * (a summarised body is its first bytes, flagged), and the fake's findings in `_passportal`.
 *
 * Redacted as the live tools redact (`SecretScrubber`): the values of the credential headers
 * (`x-access-token`, `x-api-token`, `x-hash`, `authorization`, `cookie`...) are replaced whole,
 * and every other text (URL, header values, bodies, findings) loses the instance's key IDs and
 * secrets, the tokens it holds, the admin token and anything token-like. A session's own id in
 * its URL prefix stays: it is the address the archive was asked at.
 */

/** Headers whose values are credentials: replaced whole. */
const CREDENTIAL_HEADERS = new Set([
  'x-access-token',
  'x-api-token',
  'x-hash',
  'x-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** The answer's media type, from what the journal kept of its body (the journal keeps no answer headers). */
const MEDIA_TYPES: Record<BodyMedia, string> = {
  json: 'application/json; charset=utf-8',
  form: 'application/x-www-form-urlencoded',
  text: 'text/plain; charset=utf-8',
};

export interface HarNameValue {
  name: string;
  value: string;
}

/** What the fake adds to each entry (`_passportal`): the journal's id and the findings. */
export interface HarFindings {
  requestId: number;
  operationId?: string;
  via: string;
  outcome: 'completed' | 'dropped' | 'aborted';
  fault?: string;
  violations: Violation[];
  notices: Notice[];
  behaviours: string[];
  /** The request body was longer than the journal keeps: `postData.text` is its start. */
  requestBodyTruncated?: { bytes: number };
  /** The answer was longer than the journal keeps: `content.text` is its start. */
  responseBodyTruncated?: { bytes: number };
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    queryString: HarNameValue[];
    postData?: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: HarNameValue[];
    headers: HarNameValue[];
    content: { size: number; mimeType: string; text?: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  _passportal: HarFindings;
}

/** An HTTP Archive, HAR 1.2 (`GET /__admin/har`). */
export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    comment: string;
    entries: HarEntry[];
  };
}

/** The HTTP reason phrases of the statuses the fake answers (the journal keeps the status only). */
const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** A host header fit for a URL; anything else (absent, or a client's odd text) is `localhost`. */
function hostOf(host: string | undefined): string {
  return host !== undefined && /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/.test(host)
    ? host
    : 'localhost';
}

function headersOf(headers: IncomingHttpHeaders, scrub: SecretScrubber): HarNameValue[] {
  const out: HarNameValue[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      out.push({ name, value: CREDENTIAL_HEADERS.has(name) ? SCRUBBED : scrub.text(String(one)) });
    }
  }
  return out;
}

function queryOf(search: string, scrub: SecretScrubber): HarNameValue[] {
  return [...new URLSearchParams(search)].map(([name, value]) => ({
    name: scrub.text(name),
    value: scrub.text(value),
  }));
}

/** A kept body's text (a summarised one: its start) and whether it was cut. */
function keptText(body: KeptBody): { text: string; truncated: boolean } {
  return body.kind === 'text' ? { text: body.text, truncated: false } : { text: body.head, truncated: true };
}

function entryOf(entry: JournalEntry, prefix: string, scrub: SecretScrubber): HarEntry {
  const search = entry.search === '' ? '' : `?${entry.search}`;
  const url = `${entry.scheme}://${hostOf(entry.host)}${prefix}${scrub.text(entry.path)}${scrub.text(search)}`;
  const findings: HarFindings = {
    requestId: entry.id,
    ...(entry.operationId === undefined ? {} : { operationId: entry.operationId }),
    via: entry.via,
    outcome: entry.outcome,
    ...(entry.fault === undefined ? {} : { fault: entry.fault }),
    violations: entry.violations.map((v) => ({
      ...v,
      location: scrub.text(v.location),
      message: scrub.text(v.message),
    })),
    notices: entry.notices.map((n) => ({
      ...n,
      location: scrub.text(n.location),
      message: scrub.text(n.message),
    })),
    behaviours: [...entry.behaviours],
  };
  const request: HarEntry['request'] = {
    method: entry.method,
    url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: headersOf(entry.headers, scrub),
    queryString: queryOf(entry.search, scrub),
    headersSize: -1,
    bodySize: entry.body?.bytes ?? 0,
  };
  if (entry.body !== undefined) {
    const { text, truncated } = keptText(entry.body);
    const type = entry.headers['content-type'];
    request.postData = {
      mimeType: scrub.text(typeof type === 'string' ? type : MEDIA_TYPES[entry.body.media]),
      text: scrub.text(text),
    };
    if (truncated) findings.requestBodyTruncated = { bytes: entry.body.bytes };
  }
  const status = entry.status ?? 0;
  const content: HarEntry['response']['content'] = { size: 0, mimeType: 'x-unknown' };
  const headers: HarNameValue[] = [];
  if (entry.response !== undefined) {
    const { text, truncated } = keptText(entry.response);
    const scrubbed = scrub.text(text);
    content.mimeType = MEDIA_TYPES[entry.response.media];
    content.text = scrubbed;
    // The size of the text as given here, so a tool that replays it sends what it says.
    content.size = Buffer.byteLength(scrubbed);
    headers.push({ name: 'content-type', value: content.mimeType });
    if (truncated) findings.responseBodyTruncated = { bytes: entry.response.bytes };
  }
  return {
    startedDateTime: new Date(entry.arrivedAt).toISOString(),
    time: entry.durationMs,
    request,
    response: {
      status,
      statusText: REASONS[status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers,
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: entry.response?.bytes ?? (status === 0 ? 0 : -1),
    },
    cache: {},
    // The journal times the whole exchange, from arrival to the last byte of the answer.
    timings: { send: 0, wait: entry.durationMs, receive: 0 },
    _passportal: findings,
  };
}

/**
 * The instance's journal as HAR 1.2, oldest entry first, redacted. `secrets`: texts of the server
 * that must never show besides the instance's own (the admin token). Waits for pending response
 * checks, so each entry's findings are whole.
 */
export async function harOf(
  instance: Instance,
  secrets: ReadonlyArray<string | undefined> = [],
): Promise<Har> {
  const { journal } = instance;
  await journal.settled();
  const scrub = new SecretScrubber().add(...secrets, ...instance.fake.secretTexts());
  const prefix = instance.id === undefined ? '' : sessionPath(instance.id);
  const entries = journal.list().map((entry) => entryOf(entry, entry.via === 'direct' ? prefix : '', scrub));
  return {
    log: {
      version: '1.2',
      creator: { name: 'passportal-docs-fake', version: PACKAGE_VERSION },
      comment: `The journal of ${instance.id === undefined ? 'the root' : `session ${instance.id}`}; credentials and token-like texts redacted.`,
      entries,
    },
  };
}
