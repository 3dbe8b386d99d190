/**
 * The one catalogue of error kinds. Each kind is defined once with its HTTP status, the vendor's
 * code and a default message; the domain and the HTTP layer throw `ApiError`s of these kinds and a
 * single renderer (`renderError`) writes them in the vendor's shape
 * `{success:false, message, code, status, apiRequestUid, errors?}`, whichever path answers. Each
 * kind also says whether answering it is a contract violation, and where.
 *
 * Status and code follow the vendor's published error table (see docs/decisions.md).
 */
import type { BehaviourMark } from './behaviour-marks.js';

export interface ErrorKind {
  status: number;
  code: number;
  message: string;
  /** What the kind means, for docs/errors.md and the catalogue test. */
  meaning: string;
  /**
   * Whether answering it means the client broke the contract (listed by `GET /__admin/violations`):
   * `true` always, `false` never (credentials, state or limits of the fake), `'named'` only when
   * the error names what was broken in `errors` (a token header left out, not a token expired).
   */
  violation: boolean | 'named';
  /** Where the violation is, for an error that lists no `errors` of its own (`request` if unset). */
  location?: string;
}

export const ERROR_KINDS = {
  invalidBody: {
    status: 400,
    code: 0,
    message: 'invalid request body',
    meaning: 'the body breaks the contract',
    violation: true,
  },
  malformedJson: {
    status: 400,
    code: 0,
    message: 'malformed JSON body',
    meaning: 'the body is not parseable',
    violation: true,
  },
  unsupportedMediaType: {
    status: 400,
    code: 0,
    message: 'unsupported content type',
    meaning: 'the body is not JSON (or form-encoded where allowed)',
    violation: true,
  },
  invalidId: {
    status: 400,
    code: 0,
    message: 'invalid id',
    meaning: 'a document id that is not a positive integer',
    violation: true,
    location: 'path.documentId',
  },
  invalidBatch: {
    status: 400,
    code: 0,
    message: 'invalid batch',
    meaning: 'an item of a batch update is rejected',
    violation: true,
  },
  invalidRunLabel: {
    status: 400,
    code: 4000,
    message: 'invalid run label',
    meaning:
      'a session\u2019s run label (`run` of POST /__admin/sessions) breaks its rule: 1-128 characters of letters, digits and ._:@/-; its own code, 4000, tells it from a fake that knows no run labels (400 invalidBody, code 0, naming body/run as an unknown field)',
    violation: true,
  },
  invalidParameter: {
    status: 400,
    code: 0,
    message: 'invalid parameter',
    meaning: 'an admin call with a filter or paging value out of range',
    violation: true,
  },
  unknownDetailKeys: {
    status: 400,
    code: 0,
    message: 'unknown detail keys',
    meaning: 'details keys that are neither template fields nor stored on the document',
    violation: true,
  },
  missingCredentials: {
    status: 401,
    code: 1000,
    message: 'Key verification failed',
    meaning: 'x-key or x-hash header missing on token generation',
    violation: true,
  },
  unknownKey: {
    status: 401,
    code: 1000,
    message: 'Key verification failed: unknown key ID',
    meaning: 'no API key with that ID (key ID and secret swapped?)',
    violation: false,
  },
  hashMismatch: {
    status: 401,
    code: 1000,
    message: 'Key verification failed: hash does not match',
    meaning: 'x-hash is not the HMAC of content under the key secret',
    violation: false,
  },
  invalidToken: {
    status: 401,
    code: 1006,
    message: 'Invalid token',
    meaning: 'missing, unknown, expired or revoked token',
    violation: 'named',
  },
  adminUnauthorized: {
    status: 401,
    code: 1006,
    message: 'Invalid admin token',
    meaning: 'ADMIN_TOKEN is set and the admin call lacks the bearer token',
    violation: false,
  },
  notFound: {
    status: 403,
    code: 0,
    message: 'not found.',
    meaning: 'a document that is missing or not visible',
    violation: false,
  },
  adminForbidden: {
    status: 403,
    code: 0,
    message: 'Forbidden',
    meaning:
      'an admin call from a web page not allowed, for a host the fake does not serve, on another session, or by a tenant beyond its own sessions (the message says what it may do)',
    violation: false,
  },
  proxyHostRefused: {
    status: 403,
    code: 0,
    message: 'Forbidden: not a host this fake serves',
    meaning:
      'a proxy request (CONNECT or absolute URL) for a host outside --tls-hosts; the fake never connects out',
    violation: false,
  },
  invalidQuery: {
    status: 404,
    code: 0,
    message: 'invalid data',
    meaning: 'a query value outside its valid range',
    violation: true,
    location: 'query',
  },
  routeNotFound: {
    status: 404,
    code: 0,
    message: 'Route not found',
    meaning: 'no such route',
    violation: true,
    location: 'path',
  },
  sessionConflict: {
    status: 400,
    code: 0,
    message: 'The request names two sessions',
    meaning:
      'the `baggage` member `passportal-fake-session` names another session than the URL prefix, the proxy user or an own key does',
    violation: true,
    location: 'header.baggage',
  },
  sessionNotFound: {
    status: 404,
    code: 0,
    message: 'Session not found',
    meaning: 'unknown or deleted session',
    violation: false,
  },
  runNotFound: {
    status: 404,
    code: 0,
    message: 'Run not found',
    meaning: 'a run report asked for a run label no session was created with (or cleared)',
    violation: false,
  },
  requestNotFound: {
    status: 404,
    code: 0,
    message: 'Request not found',
    meaning: 'a journal entry the journal no longer holds',
    violation: false,
  },
  tlsNotEnabled: {
    status: 404,
    code: 0,
    message: 'HTTPS is not enabled',
    meaning: 'the CA certificate asked for while the fake runs without --https-port',
    violation: false,
  },
  methodNotAllowed: {
    status: 405,
    code: 3000,
    message: 'Method not allowed',
    meaning: 'known path, wrong method',
    violation: true,
    location: 'method',
  },
  proxyCredentialsRequired: {
    status: 407,
    code: 0,
    message: 'Proxy credentials required',
    meaning:
      "with --proxy-auth challenge, a proxy request without credentials (the challenge .NET clients need before they send them; the proxy user 'root' names the root)",
    violation: false,
  },
  proxySessionNotFound: {
    status: 407,
    code: 0,
    message: 'Proxy session not found',
    meaning: 'proxy credentials naming a session that does not exist (the proxy user is the session id)',
    violation: false,
  },
  requestTimeout: {
    status: 408,
    code: 0,
    message: 'request timeout',
    meaning: 'headers or body not received within headersTimeoutMs / requestTimeoutMs',
    violation: false,
  },
  payloadTooLarge: {
    status: 413,
    code: 0,
    message: 'request body too large',
    meaning: 'body over bodyLimit',
    violation: true,
    location: 'body',
  },
  uriTooLong: {
    status: 414,
    code: 0,
    message: 'request URI too long',
    meaning: 'query string over maxQueryLength',
    violation: true,
    location: 'query',
  },
  expectationFailed: {
    status: 417,
    code: 0,
    message: 'expectation failed',
    meaning: 'an Expect header other than 100-continue',
    violation: false,
  },
  memoryBudget: {
    status: 429,
    code: 0,
    message: 'memory budget reached',
    meaning:
      "the data a client made the fake hold (documents, fixture sets, bodies in flight) would pass memoryBudget, its share, or the tenant's memoryBytes; the message names the option",
    violation: false,
  },
  rateLimited: {
    status: 429,
    code: 0,
    message: 'Too many requests',
    meaning:
      'a rate limit set through POST /__admin/rate-limits (or the throttled scenario) is used up for its window; Retry-After says in how many seconds it frees (off by default: the live limits are not published)',
    violation: false,
  },
  replicaUnavailable: {
    status: 503,
    code: 0,
    message: 'replica unavailable',
    meaning:
      'the fleet replica owning the session (or a replica a fleet-wide view needs) does not answer; Retry-After says when to try again (docs/fleet.md)',
    violation: false,
  },
  replicaDraining: {
    status: 503,
    code: 0,
    message: 'replica draining',
    meaning:
      'the fleet replica that received a session creation was drained and creates no more sessions; Retry-After says when to try again, a balancer tries another replica (docs/fleet.md)',
    violation: false,
  },
  notInFleet: {
    status: 409,
    code: 0,
    message: 'not a fleet replica',
    meaning: 'a fleet operation (drain) asked of a fake started without --fleet-peers (docs/fleet.md)',
    violation: false,
  },
  fleetHopRefused: {
    status: 403,
    code: 0,
    message: 'fleet hop marker refused',
    meaning:
      'a request carried a fleet hop marker that is not signed with the fleet secret, or is stale (docs/fleet.md)',
    violation: false,
  },
  tooManySessions: {
    status: 429,
    code: 0,
    message: 'too many sessions',
    meaning: 'session cap reached: maxSessions of the server, or of the tenant (the message names which)',
    violation: false,
  },
  tooManyRecords: {
    status: 429,
    code: 0,
    message: 'too many records of this kind',
    meaning:
      'an instance holds its most faults (1,000), rate limits (100), expected violations (10,000) or applied scenarios (100); the message names the bound; nothing was added',
    violation: false,
  },
  headersTooLarge: {
    status: 431,
    code: 0,
    message: 'request headers too large',
    meaning: 'headers over maxHeaderSize',
    violation: false,
  },
  stateNotSaved: {
    status: 500,
    code: 0,
    message: 'the change could not be saved to the state file',
    meaning:
      'with stateFile: the file could not be written (disk full, folder gone); nothing was acknowledged',
    violation: false,
  },
  unexpected: {
    status: 500,
    code: 0,
    message: 'Unexpected error',
    meaning: 'a bug in the fake; never on bad input',
    violation: false,
  },
} as const satisfies Record<string, ErrorKind>;

export type ErrorKindName = keyof typeof ERROR_KINDS;

/** One violation of the contract, as listed in the `errors` array. */
export interface Violation {
  /** Where: `query.pageNum`, `header.x-key`, `path.documentId`, `body/0/templateUid`, ... */
  location: string;
  message: string;
  /**
   * The suite declared it before provoking it (`POST /__admin/expected-violations`): kept in the
   * journal, left out of `GET /__admin/violations` and the report's violation gate.
   */
  expected?: true;
}

/** Most violations an error lists; the rest are counted in a last entry. */
export const MAX_LISTED_VIOLATIONS = 100;

/**
 * Most characters of one location or message of a finding (a violation, a notice): client text (a detail key, a field name) quoted in them is cut there.
 */
export const MAX_FINDING_TEXT = 1000;

/** Most characters of an error's message (the same cut). */
export const MAX_ERROR_MESSAGE = 2000;

/**
 * `text`, cut to `max` characters with how long it was when longer (by more than the 40 that
 * saying so takes: a text cut once is left as it is).
 */
export function boundText(text: string, max = MAX_FINDING_TEXT): string {
  if (text.length <= max + 40) return text;
  return `${text.slice(0, max)}\u2026 (${text.length} characters)`;
}

/** The last entry of a cut list. */
const MORE_PROBLEMS = /^and \d+ more problems? \(the first \d+ are listed\)$/;

/**
 * At most `max` violations, the last saying how many more there were, each location and message
 * within `MAX_FINDING_TEXT`: an error answers, and a journal keeps, a bounded size however many
 * problems a request has (a batch of 80,000 bad items, a PATCH of 20,000 unknown detail keys, a
 * fixture set of 40,000 bad documents). Every list of problems goes through here.
 */
export function capViolations(
  violations: Violation[],
  max = MAX_LISTED_VIOLATIONS,
  location = 'body',
): Violation[] {
  // Already cut (the journal keeps an error's list as answered): left as it is.
  const capped = violations.length === max + 1 && MORE_PROBLEMS.test(violations[max]?.message ?? '');
  const listed = violations.length <= max || capped ? violations : violations.slice(0, max);
  let bounded = listed;
  for (let i = 0; i < listed.length; i++) {
    const v = listed[i] as Violation;
    if (v.location.length <= MAX_FINDING_TEXT && v.message.length <= MAX_FINDING_TEXT) continue;
    if (bounded === violations) bounded = [...listed];
    bounded[i] = { location: boundText(v.location), message: boundText(v.message) };
  }
  if (violations.length <= max || capped) return bounded;
  const more = violations.length - max;
  return [
    ...bounded,
    { location, message: `and ${more} more problem${more === 1 ? '' : 's'} (the first ${max} are listed)` },
  ];
}

export class ApiError extends Error {
  readonly kind: ErrorKindName;
  readonly status: number;
  readonly code: number;
  readonly errors: Violation[] | undefined;
  /**
   * The behaviour the answer shows beyond its kind (`behaviour-marks.ts`): `tokenExpired`,
   * `foreignDocument`, `batchRefusedWhole`...
   */
  readonly mark: BehaviourMark | undefined;
  /** Seconds the client is told to wait before it asks again (`Retry-After`), when the answer says. */
  retryAfter: number | undefined = undefined;

  constructor(kind: ErrorKindName, message?: string, errors?: Violation[], mark?: BehaviourMark) {
    const def: ErrorKind = ERROR_KINDS[kind];
    super(boundText(message ?? def.message, MAX_ERROR_MESSAGE));
    this.name = 'ApiError';
    this.kind = kind;
    this.status = def.status;
    this.code = def.code;
    this.errors = errors;
    this.mark = mark;
  }
}

/** `success` of error bodies: boolean `false`, or the string `"false"` (setting `errorSuccess`). */
export type ErrorSuccess = 'boolean' | 'string';

export interface ErrorBody {
  /** Boolean `false`, or the string `"false"` the vendor's table also shows (setting `errorSuccess`). */
  success: false | 'false';
  message: string;
  code: number;
  status: number;
  apiRequestUid: string;
  errors?: Violation[];
}

/** What an error is rendered from: an `ApiError`, or an injected fault's status (code 0). */
export type RenderedError = Pick<ApiError, 'message' | 'code' | 'status' | 'errors'>;

/** An error answer: its status, and its body's JSON text with that text's length in UTF-8 bytes. */
export interface ErrorAnswer {
  status: number;
  text: string;
  bytes: number;
}

/**
 * The one renderer of error answers, in the vendor's shape
 * `{success:false, message, code, status, apiRequestUid, errors?}`, honouring `errorSuccess`. Every
 * path that answers an error goes through it: the error middleware, injected faults, what Node
 * answers before Express (client errors, CONNECT, `Expect`), the forward proxy and the state
 * file's held answer; each adds only the headers its channel needs.
 */
export function renderError(
  error: RenderedError,
  apiRequestUid: string,
  success: ErrorSuccess = 'boolean',
): ErrorAnswer {
  const body: ErrorBody = {
    success: success === 'string' ? 'false' : false,
    message: error.message,
    code: error.code,
    status: error.status,
    apiRequestUid,
  };
  if (error.errors && error.errors.length > 0) body.errors = error.errors;
  const text = JSON.stringify(body);
  return { status: error.status, text, bytes: Buffer.byteLength(text) };
}
