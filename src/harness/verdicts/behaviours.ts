import type { BehaviourMark } from '../../behaviour-marks.js';
import { emptyList } from '../../deep-freeze.js';
import { ERROR_KINDS, type ErrorKindName } from '../../errors.js';
import { NOTICE_CODES, NOTICE_KINDS, type NoticeCode } from '../../notices.js';
import { FAULT_KINDS, type FaultKind } from '../controls/faults.js';

/**
 * The behaviour catalogue: every behaviour of the vendor's service (as the fake plays it) that a
 * client can meet, each with a stable id. The request pipeline marks which ones each request
 * exercised (`behavioursOf`, called once per request when it is journaled); reports and the
 * inspector's coverage tab tell a team which ones its client never met, most likely to hurt first.
 *
 * Four groups, three of them derived from their own catalogues so nothing is typed twice:
 * - `vendor`: behaviours of the service the documentation or a decision names (below);
 * - `error.<kind>`: each error kind of `src/errors.ts` a vendor API request can be answered with;
 * - `notice.<code>`: each notice code of `src/notices.ts`;
 * - `fault.<kind>`: each kind of injected fault of `src/harness/controls/faults.ts`.
 * docs/behaviours.md documents every id (a test checks it both ways).
 */

export type BehaviourGroup = 'vendor' | 'error' | 'notice' | 'fault';

export interface Behaviour {
  id: BehaviourId;
  group: BehaviourGroup;
  /** One line: what happens. */
  meaning: string;
  /** The documentation passage or decision it comes from. */
  source: string;
  /** Why a client should be tested against it. */
  why: string;
  /** How to make the fake do it (the fault, clock, fixture or request to use). */
  how: string;
  /** How likely a client never tested against it breaks in production: 1 (rarely) to 5 (surely). */
  likelihood: 1 | 2 | 3 | 4 | 5;
}

type Described = Omit<Behaviour, 'id' | 'group'>;

/**
 * The behaviours of the vendor's service: the marks of `behaviour-marks.ts` (what only the domain,
 * a handler or a scenario knows a request met, carried with its answer), each described; the
 * compiler holds this table and `BehaviourMark` to the same ids.
 */
export const VENDOR_BEHAVIOURS = {
  tokenIssued: {
    meaning: 'an access token was issued for a key and an HMAC of the content',
    source: 'documents-api.md "Authentication": POST /api/v2/auth/client_token',
    why: 'every other call needs it; a wrong HMAC or scope spelling fails every call after it',
    how: 'POST /api/v2/auth/client_token with x-key, x-hash and {"scope":"docs_api","content":...}',
    likelihood: 5,
  },
  tokenExpired: {
    meaning: 'a call with an access token past its expiry_time answered 401 code 1006',
    source: 'documents-api.md "Authentication" (expiry_time); decision: token lifetime 3300 s',
    why: 'a client that never saw its token expire breaks at minute 55 of every long job',
    how: 'get a token, POST /__admin/clock {"advanceSeconds": 3600} (mock.advanceClock(3600)), call again',
    likelihood: 5,
  },
  tokenRevoked: {
    meaning: 'a call with a token that was revoked answered 401 code 1006',
    source: 'decision: tokens can be revoked (the live service invalidates tokens on key rotation)',
    why: 'a client must get a new token on 1006 before expiry_time, not only after it',
    how: 'get a token, POST /__admin/tokens/revoke (mock.revokeTokens()), call again',
    likelihood: 4,
  },
  refreshTokenUsed: {
    meaning: 'the refresh token sent as an access token answered 401',
    source: 'decision: refresh tokens are issued but not usable (no refresh call is documented)',
    why: 'a client that "refreshes" with it fails at the first expiry',
    how: 'send the refresh_token of a token answer in x-access-token',
    likelihood: 2,
  },
  pagePastEnd: {
    meaning: 'a list page past the last one answered success with results: []',
    source: 'decision: page past the end (field-notes.md)',
    why: 'a client that pages until an error never stops, or stops with an exception',
    how: 'GET /api/v2/documents?pageNum=9999&resultsPerPage=100',
    likelihood: 5,
  },
  shortLastPage: {
    meaning: 'a list page holding fewer rows than the page size (the last page)',
    source: 'documents-api.md "List documents" (resultsPerPage, pageNum)',
    why: 'a client never given a short last page loses or repeats rows at the end',
    how: 'list with a page size that does not divide the organization’s documents, up to the last page',
    likelihood: 4,
  },
  emptyList: {
    meaning: 'a list with no rows on its first page (nothing matches the filters)',
    source: 'documents-api.md "List documents" (filters); decision: page past the end',
    why: 'a client that expects a first row crashes on an empty organization or a search with no match',
    how: 'GET /api/v2/documents?pageNum=1&searchTxt=no-such-text',
    likelihood: 3,
  },
  foreignDocument: {
    meaning: "another organization's document read or written: 403 not found.",
    source: 'decision: visibility (an API key sees its own organization only)',
    why: 'a client sharing ids across tenants must handle 403 as "not yours", not retry',
    how: "GET /api/v2/documents/{id} with the id of another organization's document (see GET /__admin/state)",
    likelihood: 3,
  },
  missingDocument: {
    meaning: 'a document id that does not exist: 403 not found. (not 404)',
    source: 'decision: visibility (missing and foreign both answer 403 not found.)',
    why: 'a client that expects 404 for a deleted document treats 403 as an auth failure',
    how: 'GET /api/v2/documents/999999999',
    likelihood: 4,
  },
  batchCreate: {
    meaning: 'a batch item with a blank id created a document',
    source: 'decision: batch id blank creates a document',
    why: 'a client that sends blank ids by mistake creates duplicates; one that means to must read the new id back',
    how: 'PATCH /api/v2/documents with [{"templateUid":"tpl-7","id":"","title":"New"}]',
    likelihood: 3,
  },
  batchRefusedWhole: {
    meaning: 'one bad item refused a batch of several: nothing applied, the item named by index',
    source: 'decision: batch atomicity (every item validated first)',
    why: 'a client that assumes the good items were saved loses every write of the batch',
    how: 'PUT or PATCH /api/v2/documents with two items, the second with an unknown templateUid',
    likelihood: 4,
  },
  patchClearsOmittedFields: {
    meaning: 'PATCH of one document set template fields absent from the body to null',
    source: 'decision: PATCH one document replaces details',
    why: 'a client that sends only changed fields wipes the others in production',
    how: 'PATCH /api/v2/documents/{id} with one detail field of a document whose other fields have values',
    likelihood: 5,
  },
  documentChangedUnderYou: {
    meaning:
      'a PATCH of a document another user changed since the client read it: the PATCH wins, their change is lost',
    source:
      'decision: no ETag or If-Match is documented, so the last write wins (the changed-under-you scenario)',
    why: 'a read-modify-write client overwrites colleagues’ edits without knowing it',
    how: 'POST /__admin/scenarios {"name":"changed-under-you"}, GET a document, then PATCH it',
    likelihood: 3,
  },
  emptyQueryValue: {
    meaning: 'a query parameter sent with an empty value, read as not given',
    source: "decision: empty query values (as in the vendor's own example request)",
    why: 'a client that builds ?orderBy=&searchTxt= must get the defaults, not an error',
    how: 'GET /api/v2/documents?pageNum=1&orderBy=&searchTxt=',
    likelihood: 2,
  },
} as const satisfies Record<BehaviourMark, Described>;

/**
 * Error kinds a vendor API request is never journaled with, so no client can be seen meeting
 * them: each with why. Every other kind of the catalogue is a behaviour.
 */
export const ERRORS_NOT_MET = {
  invalidParameter: 'admin API only',
  invalidRunLabel: 'admin API only',
  adminUnauthorized: 'admin API only',
  adminForbidden: 'admin API only',
  sessionNotFound: 'admin API and session prefixes only',
  sessionConflict: 'answered before any instance (the request names two sessions)',
  requestNotFound: 'admin API only',
  runNotFound: 'admin API only',
  tlsNotEnabled: 'admin API only',
  tooManySessions: 'admin API only',
  tooManyRecords: 'admin API only',
  proxyHostRefused: 'answered by the proxy before any instance',
  proxyCredentialsRequired: 'answered by the proxy before any instance',
  proxySessionNotFound: 'answered by the proxy before any instance',
  requestTimeout: 'answered by Node before the app (no journal entry)',
  headersTooLarge: 'answered by Node before the app (no journal entry)',
  expectationFailed: 'answered by Node before the app (no journal entry)',
  stateNotSaved: "the fake's own failure (its disk), never something a client meets on the live service",
  unexpected: 'a bug in the fake',
  replicaUnavailable: "answered by the fleet's routing before any instance (no journal entry)",
  fleetHopRefused: "answered by the fleet's routing before any instance (no journal entry)",
  replicaDraining: 'admin API only',
  notInFleet: 'admin API only',
} as const satisfies Partial<Record<ErrorKindName, string>>;

/** The error kinds a vendor API request can be answered with: each is a behaviour. */
type MetErrorKind = Exclude<ErrorKindName, keyof typeof ERRORS_NOT_MET>;

/**
 * Every behaviour id of the catalogue: the vendor's marks and the three derived families, so a
 * misspelt id (`error.notFund`, `notice.pageSizeCaped`) fails the compiler.
 */
export type BehaviourId =
  | BehaviourMark
  | `error.${MetErrorKind}`
  | `notice.${NoticeCode}`
  | `fault.${FaultKind}`;

const NOT_MET: Partial<Record<ErrorKindName, string>> = ERRORS_NOT_MET;

/** Whether requests answered with an error of `kind` can be journaled (so it is a behaviour). */
const isMet = (kind: ErrorKindName): kind is MetErrorKind => NOT_MET[kind] === undefined;

/** Per error kind: why a client should meet it and how to make the fake answer it. */
const ERROR_HOW: Partial<Record<MetErrorKind, Pick<Described, 'how' | 'likelihood'>>> = {
  invalidToken: {
    how: 'call with no token, an unknown one, or an expired one (advance the clock)',
    likelihood: 5,
  },
  hashMismatch: { how: 'POST /api/v2/auth/client_token with an x-hash of other content', likelihood: 4 },
  unknownKey: { how: 'POST /api/v2/auth/client_token with an unknown x-key', likelihood: 3 },
  missingCredentials: { how: 'POST /api/v2/auth/client_token without x-hash', likelihood: 2 },
  notFound: { how: 'GET /api/v2/documents/999999999', likelihood: 4 },
  invalidBatch: { how: 'PATCH /api/v2/documents with an item whose templateUid is unknown', likelihood: 4 },
  unknownDetailKeys: {
    how: 'PATCH /api/v2/documents/{id} with a details key the template lacks',
    likelihood: 3,
  },
  invalidQuery: { how: 'GET /api/v2/documents?pageNum=0', likelihood: 3 },
  invalidId: { how: 'GET /api/v2/documents/abc', likelihood: 2 },
  memoryBudget: { how: 'start a fake with a small memoryBudget and create documents past it', likelihood: 1 },
  payloadTooLarge: { how: 'send a body over bodyLimit (1 MB by default)', likelihood: 2 },
  rateLimited: {
    how: 'POST /__admin/scenarios {"name":"throttled","limit":2,"windowSeconds":30}, then send three requests with one key',
    likelihood: 4,
  },
};

/** Per notice code: how likely a client relying on it breaks. */
const NOTICE_LIKELIHOOD: Partial<Record<NoticeCode, Behaviour['likelihood']>> = {
  pageSizeCapped: 5,
  pageNumOmitted: 4,
  readShapedDetails: 3,
  tokenHeaderAlias: 3,
  spellingVariant: 2,
  batchFieldIgnored: 2,
};

/** The kinds of injected fault: what each stands for on the live service. */
const FAULT_WHY: Record<FaultKind, Pick<Described, 'why' | 'likelihood'>> = {
  status: {
    why: 'the live service answers 5xx and 429 at times; a client must retry or report, not corrupt state',
    likelihood: 4,
  },
  delay: { why: 'a slow answer must hit the client’s timeout, not hang a job', likelihood: 3 },
  drop: {
    why: 'a connection reset mid-call must be retried or reported, never taken as success',
    likelihood: 3,
  },
};

function errorBehaviour(kind: MetErrorKind): Behaviour {
  const def = ERROR_KINDS[kind];
  const extra = ERROR_HOW[kind];
  return {
    id: `error.${kind}`,
    group: 'error',
    meaning: `${def.status} code ${def.code} "${def.message}": ${def.meaning}`,
    source: 'errors.ts error catalogue (docs/errors.md), from the vendor error table',
    why: `a client must tell this answer (${def.status}, code ${def.code}) from the others and act on it`,
    how: extra?.how ?? `send what the catalogue describes: ${def.meaning}`,
    likelihood: extra?.likelihood ?? 2,
  };
}

/** The situation a notice's `when` describes: its text before the first `: ` outside brackets and quotes. */
function situationOf(when: string): string {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < when.length - 1; i++) {
    const ch = when[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ':' && when[i + 1] === ' ' && depth === 0 && !quoted) return when.slice(0, i);
  }
  return when;
}

function noticeBehaviour(code: NoticeCode): Behaviour {
  const kind = NOTICE_KINDS[code];
  // The catalogue's wording is the notices page's, with code spans; behaviours are plain text.
  const when = kind.when.replace(/`/g, '');
  return {
    id: `notice.${code}`,
    group: 'notice',
    meaning: when,
    source: 'notices.ts notice catalogue (docs/notices.md)',
    why: `it works here but is not promised; the live service may differ: ${kind.instead}`,
    how: `send what the notice describes: ${situationOf(when)}`,
    likelihood: NOTICE_LIKELIHOOD[code] ?? 1,
  };
}

function faultBehaviour(kind: FaultKind): Behaviour {
  return {
    id: `fault.${kind}`,
    group: 'fault',
    meaning: FAULT_KINDS[kind].meaning,
    source: 'faults.ts (docs/faults.md): POST /__admin/faults',
    how: FAULT_KINDS[kind].how,
    ...FAULT_WHY[kind],
  };
}

/** The whole catalogue, in a stable order: vendor behaviours, error kinds, notices, faults. */
export const BEHAVIOURS: readonly Behaviour[] = Object.freeze([
  ...(Object.entries(VENDOR_BEHAVIOURS) as Array<[BehaviourMark, Described]>).map(
    ([id, b]): Behaviour => ({ id, group: 'vendor', ...b }),
  ),
  ...(Object.keys(ERROR_KINDS) as ErrorKindName[]).filter(isMet).map(errorBehaviour),
  ...NOTICE_CODES.map(noticeBehaviour),
  ...(Object.keys(FAULT_KINDS) as FaultKind[]).map(faultBehaviour),
]);

export const BEHAVIOUR_IDS: readonly BehaviourId[] = BEHAVIOURS.map((b) => b.id);

const BY_ID = new Map<string, Behaviour>(BEHAVIOURS.map((b) => [b.id, b]));

/** The behaviour of an id (one a user gave, so any text: undefined when the catalogue has none). */
export function behaviourOf(id: string): Behaviour | undefined {
  return BY_ID.get(id);
}

/** What the pipeline knows of a request once its answer is decided: what `behavioursOf` reads. */
export interface RequestOutcome {
  operationId: string | undefined;
  /** The query string as sent, without `?`. */
  search: string;
  /** The error kind the answer was rendered from, and the behaviour it shows beyond its kind. */
  errorKind: ErrorKindName | undefined;
  errorMark: BehaviourMark | undefined;
  notices: readonly { code: NoticeCode }[];
  faultKinds: readonly FaultKind[];
  /** The behaviours only the handler, the domain or a scenario knew the answer shows. */
  marks: readonly BehaviourMark[] | undefined;
  status: number | undefined;
}

/** A query string with a parameter sent empty (`a=&b`, `a`): read as not given. */
const EMPTY_VALUE = /(?:^|&)[^=&]+(?:=)?(?=&|$)/;

/** The behaviours one request exercised, in catalogue order, without repeats. */
export function behavioursOf(outcome: RequestOutcome): BehaviourId[] {
  // The usual request (a plain read) meets nothing worth a mark: no set is made for it.
  if (
    outcome.errorKind === undefined &&
    outcome.marks === undefined &&
    outcome.notices.length === 0 &&
    outcome.faultKinds.length === 0 &&
    outcome.operationId !== 'createClientToken' &&
    (outcome.search === '' || !EMPTY_VALUE.test(outcome.search))
  ) {
    return emptyList();
  }
  const found = new Set<BehaviourId>();
  if (outcome.operationId === 'createClientToken' && outcome.status === 200) found.add('tokenIssued');
  for (const mark of outcome.marks ?? []) found.add(mark);
  if (outcome.errorMark) found.add(outcome.errorMark);
  if (outcome.errorKind && isMet(outcome.errorKind)) found.add(`error.${outcome.errorKind}`);
  for (const n of outcome.notices) found.add(`notice.${n.code}`);
  for (const kind of outcome.faultKinds) found.add(`fault.${kind}`);
  if (outcome.operationId && outcome.search !== '' && EMPTY_VALUE.test(outcome.search))
    found.add('emptyQueryValue');
  if (found.size <= 1) return [...found];
  return BEHAVIOUR_IDS.filter((id) => found.has(id));
}
