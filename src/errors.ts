/**
 * The one catalogue of error kinds. Each kind is defined once with its HTTP status, the vendor's
 * code and a default message; the domain and the HTTP layer throw `ApiError`s of these kinds and a
 * single error middleware renders them in the vendor's shape
 * `{success:false, message, code, status, apiRequestUid, errors?}`.
 *
 * Status and code follow the vendor's published error table (see docs/decisions.md).
 */

export interface ErrorKind {
  status: number;
  code: number;
  message: string;
  /** What the kind means, for docs/errors.md and the catalogue test. */
  meaning: string;
}

export const ERROR_KINDS = {
  invalidBody: {
    status: 400,
    code: 0,
    message: 'invalid request body',
    meaning: 'the body breaks the contract',
  },
  malformedJson: {
    status: 400,
    code: 0,
    message: 'malformed JSON body',
    meaning: 'the body is not parseable',
  },
  unsupportedMediaType: {
    status: 400,
    code: 0,
    message: 'unsupported content type',
    meaning: 'the body is not JSON (or form-encoded where allowed)',
  },
  invalidId: {
    status: 400,
    code: 0,
    message: 'invalid id',
    meaning: 'a document id that is not a positive integer',
  },
  invalidBatch: {
    status: 400,
    code: 0,
    message: 'invalid batch',
    meaning: 'an item of a batch update is rejected',
  },
  invalidParameter: {
    status: 400,
    code: 0,
    message: 'invalid parameter',
    meaning: 'an admin call with a filter or paging value out of range',
  },
  unknownDetailKeys: {
    status: 400,
    code: 0,
    message: 'unknown detail keys',
    meaning: 'details keys that are neither template fields nor stored on the document',
  },
  missingCredentials: {
    status: 401,
    code: 1000,
    message: 'Key verification failed',
    meaning: 'x-key or x-hash header missing on token generation',
  },
  unknownKey: {
    status: 401,
    code: 1000,
    message: 'Key verification failed: unknown key ID',
    meaning: 'no API key with that ID (key ID and secret swapped?)',
  },
  hashMismatch: {
    status: 401,
    code: 1000,
    message: 'Key verification failed: hash does not match',
    meaning: 'x-hash is not the HMAC of content under the key secret',
  },
  invalidToken: {
    status: 401,
    code: 1006,
    message: 'Invalid token',
    meaning: 'missing, unknown, expired or revoked token',
  },
  adminUnauthorized: {
    status: 401,
    code: 1006,
    message: 'Invalid admin token',
    meaning: 'ADMIN_TOKEN is set and the admin call lacks the bearer token',
  },
  notFound: {
    status: 403,
    code: 0,
    message: 'not found.',
    meaning: 'a document that is missing or not visible',
  },
  adminForbidden: {
    status: 403,
    code: 0,
    message: 'Forbidden',
    meaning:
      'an admin call from a web page not allowed, for a host the fake does not serve, or on another session',
  },
  proxyHostRefused: {
    status: 403,
    code: 0,
    message: 'Forbidden: not a host this fake serves',
    meaning:
      'a proxy request (CONNECT or absolute URL) for a host outside --tls-hosts; the fake never connects out',
  },
  invalidQuery: {
    status: 404,
    code: 0,
    message: 'invalid data',
    meaning: 'a query value outside its valid range',
  },
  routeNotFound: { status: 404, code: 0, message: 'Route not found', meaning: 'no such route' },
  sessionNotFound: {
    status: 404,
    code: 0,
    message: 'Session not found',
    meaning: 'unknown or deleted session',
  },
  requestNotFound: {
    status: 404,
    code: 0,
    message: 'Request not found',
    meaning: 'a journal entry the journal no longer holds',
  },
  tlsNotEnabled: {
    status: 404,
    code: 0,
    message: 'HTTPS is not enabled',
    meaning: 'the CA certificate asked for while the fake runs without --https-port',
  },
  methodNotAllowed: {
    status: 405,
    code: 3000,
    message: 'Method not allowed',
    meaning: 'known path, wrong method',
  },
  proxySessionNotFound: {
    status: 407,
    code: 0,
    message: 'Proxy session not found',
    meaning: 'proxy credentials naming a session that does not exist (the proxy user is the session id)',
  },
  requestTimeout: {
    status: 408,
    code: 0,
    message: 'request timeout',
    meaning: 'headers or body not received within headersTimeoutMs / requestTimeoutMs',
  },
  payloadTooLarge: {
    status: 413,
    code: 0,
    message: 'request body too large',
    meaning: 'body over bodyLimit',
  },
  uriTooLong: {
    status: 414,
    code: 0,
    message: 'request URI too long',
    meaning: 'query string over maxQueryLength',
  },
  expectationFailed: {
    status: 417,
    code: 0,
    message: 'expectation failed',
    meaning: 'an Expect header other than 100-continue',
  },
  memoryBudget: {
    status: 429,
    code: 0,
    message: 'memory budget reached',
    meaning:
      'the data a client made the fake hold (documents, fixture sets, bodies in flight) would pass memoryBudget or its share; the message names the option',
  },
  tooManySessions: { status: 429, code: 0, message: 'too many sessions', meaning: 'session cap reached' },
  headersTooLarge: {
    status: 431,
    code: 0,
    message: 'request headers too large',
    meaning: 'headers over maxHeaderSize',
  },
  stateNotSaved: {
    status: 500,
    code: 0,
    message: 'the change could not be saved to the state file',
    meaning:
      'with stateFile: the file could not be written (disk full, folder gone); nothing was acknowledged',
  },
  unexpected: {
    status: 500,
    code: 0,
    message: 'Unexpected error',
    meaning: 'a bug in the fake; never on bad input',
  },
} as const satisfies Record<string, ErrorKind>;

export type ErrorKindName = keyof typeof ERROR_KINDS;

/** One violation of the contract, as listed in the `errors` array. */
export interface Violation {
  /** Where: `query.pageNum`, `header.x-key`, `path.documentId`, `body/0/templateUid`, ... */
  location: string;
  message: string;
}

/** Most violations an error lists; the rest are counted in a last entry. */
export const MAX_LISTED_VIOLATIONS = 100;

/**
 * At most `max` violations, the last saying how many more there were: an error answers in a
 * bounded size however many problems a request has (a batch of 80,000 bad items, a fixture set
 * of 40,000 bad documents).
 */
export function capViolations(
  violations: Violation[],
  max = MAX_LISTED_VIOLATIONS,
  location = 'body',
): Violation[] {
  if (violations.length <= max) return violations;
  const more = violations.length - max;
  return [
    ...violations.slice(0, max),
    { location, message: `and ${more} more problem${more === 1 ? '' : 's'} (the first ${max} are listed)` },
  ];
}

export class ApiError extends Error {
  readonly kind: ErrorKindName;
  readonly status: number;
  readonly code: number;
  readonly errors: Violation[] | undefined;
  /**
   * What the error tells beyond its kind, as an id of the behaviour catalogue
   * (`harness/behaviours.ts`): `tokenExpired`, `foreignDocument`, `batchRefusedWhole`...
   */
  readonly fact: string | undefined;

  constructor(kind: ErrorKindName, message?: string, errors?: Violation[], fact?: string) {
    const def: ErrorKind = ERROR_KINDS[kind];
    super(message ?? def.message);
    this.name = 'ApiError';
    this.kind = kind;
    this.status = def.status;
    this.code = def.code;
    this.errors = errors;
    this.fact = fact;
  }
}

export interface ErrorBody {
  /** Boolean `false`, or the string `"false"` the vendor's table also shows (setting `errorSuccess`). */
  success: false | 'false';
  message: string;
  code: number;
  status: number;
  apiRequestUid: string;
  errors?: Violation[];
}

/**
 * The one renderer of error bodies in the vendor's shape, honouring the `errorSuccess` setting:
 * for an ApiError of the catalogue, and for an injected fault's status (any `status`, code 0).
 */
export function toErrorBody(
  error: Pick<ApiError, 'message' | 'code' | 'status' | 'errors'>,
  apiRequestUid: string,
  success: 'boolean' | 'string' = 'boolean',
): ErrorBody {
  const body: ErrorBody = {
    success: success === 'string' ? 'false' : false,
    message: error.message,
    code: error.code,
    status: error.status,
    apiRequestUid,
  };
  if (error.errors && error.errors.length > 0) body.errors = error.errors;
  return body;
}
