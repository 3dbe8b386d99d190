import { boundText, MAX_FINDING_TEXT } from './errors.js';
/**
 * The one catalogue of notice kinds. A notice is the journal's second kind of finding: the
 * request worked here, but relies on something the vendor's documentation does not promise (an
 * omitted `pageNum`, a spelling variant, an ignored field...), so the client may break against the
 * live service. Each kind has a stable `code` a report or a test can key on (messages may gain
 * detail; codes do not change), what it means and what to do instead. `notice()` is the only way
 * to make one; `docs/notices.md` documents every code (checked both ways by a test).
 */

export interface NoticeKind {
  /** When the fake notes it, for docs/notices.md and the catalogue test. */
  when: string;
  /** What the client should do instead: the default message when a notice gives none. */
  instead: string;
}

export const NOTICE_KINDS = {
  pageNumOmitted: {
    when: 'a list request leaves out `pageNum` (the documentation gives its default as 100; the live service starts at page 1)',
    instead: 'send pageNum',
  },
  pageSizeCapped: {
    when: '`resultsPerPage` above the page-size cap (`maxResultsPerPage`, default 100): pages hold at most the cap, as on the live service',
    instead: 'page until results is empty rather than until a page is short',
  },
  undocumentedType: {
    when: 'a `type` outside the documented list (clients ask for `folders`): answered with no documents, the live answer being unknown',
    instead: 'send one of the documented types',
  },
  spellingVariant: {
    when: "a spelling from the vendor's examples (`clientID`, `orderBY`, `templateUID`, a batch item's `clientID`) read as the documented parameter or field",
    instead: 'send the spelling of the parameter table (clientId, orderBy, templateUid)',
  },
  spellingVariantIgnored: {
    when: 'a spelling variant sent together with the documented spelling, which wins',
    instead: 'send only the documented spelling',
  },
  unknownParameter: {
    when: 'a query parameter the operation does not have: ignored (names are case-sensitive; a near miss such as `orderby` is named)',
    instead: 'leave it out, or correct its spelling',
  },
  repeatedParameter: {
    when: 'a query parameter sent more than once (`?pageNum=1&pageNum=2`): the last value is used',
    instead: 'send it once',
  },
  tokenHeaderAlias: {
    when: "the access token read from `x-api-token` (named by the vendor's parameter tables; whether the live service accepts it is unconfirmed)",
    instead: "send the token in x-access-token, as the vendor's examples do",
  },
  batchFieldIgnored: {
    when: 'a batch item field the fake does not know ("further per-document fields: not shown"): ignored',
    instead: 'send only templateUid, id, title, clientId, description, customId and details',
  },
  readShapedDetails: {
    when: 'detail entries sent in the shape reads return (`null`, a plain string, an array, an object without `name`/`description`), stored as sent (with `readShapedDetails: accept`)',
    instead: 'send every entry as {"name": ..., "description": ..., "value": ...}',
  },
  valueCaseVariant: {
    when: 'an `orderBy` or `orderDir` value in a case the parameter table does not list (`LABEL`, `Desc`): read in lower case (validators of the spec refuse it)',
    instead: 'send the value in lower case (label, id, asc, desc)',
  },
  formEncodedBody: {
    when: "a body sent form-encoded (`application/x-www-form-urlencoded`, curl's `-d` without a content type) where the documentation shows JSON, such as the token call's: read all the same",
    instead: 'send the body as JSON with content-type: application/json',
  },
  batchItemWithoutId: {
    when: 'a batch update item (`PATCH`/`PUT /api/v2/documents`) without `id`, which the documentation marks required: created as a new document',
    instead: 'send "id": "" (blank) on an item that creates a document',
  },
  baggageMalformed: {
    when: 'a `baggage` header (W3C Baggage) that does not parse, in part or whole: the members that parse stand, and a `passportal-fake-session` member that does not parse names no session (the request goes where its URL and keys send it)',
    instead:
      'send baggage as the W3C Baggage spec writes it: key=value members separated by commas, values percent-encoded',
  },
  keySecretSwapped: {
    when: "a token call whose `x-key` holds a secret access key rather than a key ID (key ID and secret swapped): answered 401 `unknownKey` as the live service would, and noted so the run's report shows it even where the client swallows the 401",
    instead: 'send the key ID in x-key, and the HMAC of content keyed with the secret in x-hash',
  },
  nonApiPath: {
    when: "a path outside the Documents API (every API path starts with `/api/v2/`; a browser's `/` and `/favicon.ico` are not journaled): answered 404",
    instead: 'call a path of the API',
  },
} as const satisfies Record<string, NoticeKind>;

export type NoticeCode = keyof typeof NOTICE_KINDS;

/** Every notice code, in catalogue order (the admin spec's enum is checked against it). */
export const NOTICE_CODES = Object.keys(NOTICE_KINDS) as NoticeCode[];

/** Marks a notice as made by `notice()`: a hand-built object literal does not type-check. */
declare const madeByNotice: unique symbol;

/**
 * A notice: the request worked here, but relies on something the vendor's documentation does not
 * promise. Never a violation; listed apart from them. Made only by `notice()`.
 */
export interface Notice {
  /** Type-only (never on the wire): the notice came from `notice()`, so its code is one of the catalogue's. */
  readonly [madeByNotice]: true;
  /** The kind, stable across versions: what a report or a test keys on. */
  readonly code: NoticeCode;
  /** Where: `query.clientID`, `header.x-api-token`, `body/0/colour`, `path`, ... */
  readonly location: string;
  /** What was relied on, and what to send instead. */
  readonly message: string;
}

/** A notice of kind `code` at `location`; the message defaults to what to do instead. */
export function notice(code: NoticeCode, location: string, message?: string): Notice {
  return { code, location, message: message ?? NOTICE_KINDS[code].instead } as Notice;
}

/** Where notices are collected: an object whose `notices` list is made on the first one. */
export interface NoticeSink {
  notices: Notice[] | undefined;
}

/** Adds a notice to `sink`, making its list on the first one (no allocation for a plain request). */
export function addNotice(sink: NoticeSink, found: Notice): void {
  if (sink.notices === undefined) sink.notices = [found];
  else sink.notices.push(found);
}

/** Most notices one request keeps; the rest are counted, one last notice per code. */
export const MAX_LISTED_NOTICES = 100;

/**
 * At most `MAX_LISTED_NOTICES` notices, each location and message within `MAX_FINDING_TEXT`;
 * beyond them, one notice per code of those left out, at `request`, saying how many: what the
 * journal and the report keep of one request stays small however many notices it had (a batch
 * of 20,000 unknown fields).
 */
export function capNotices(notices: Notice[]): Notice[] {
  const listed = notices.length <= MAX_LISTED_NOTICES ? notices : notices.slice(0, MAX_LISTED_NOTICES);
  let bounded = listed;
  for (let i = 0; i < listed.length; i++) {
    const n = listed[i] as Notice;
    if (n.location.length <= MAX_FINDING_TEXT && n.message.length <= MAX_FINDING_TEXT) continue;
    if (bounded === notices) bounded = [...listed];
    bounded[i] = notice(n.code, boundText(n.location), boundText(n.message));
  }
  if (notices.length <= MAX_LISTED_NOTICES) return bounded;
  const left = new Map<NoticeCode, number>();
  for (let i = MAX_LISTED_NOTICES; i < notices.length; i++) {
    const code = (notices[i] as Notice).code;
    left.set(code, (left.get(code) ?? 0) + 1);
  }
  for (const [code, count] of left) {
    bounded.push(
      notice(
        code,
        'request',
        `and ${count} more ${code} notice${count === 1 ? '' : 's'} (the first ${MAX_LISTED_NOTICES} notices of the request are listed)`,
      ),
    );
  }
  return bounded;
}
