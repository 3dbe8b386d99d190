/**
 * What a list page tells beyond its rows, decided where the page is made: the behaviours it shows
 * (an empty first page, a page past the end, a short last page) and the notices on its query (an
 * omitted `pageNum`, a page size above the cap, an undocumented `type`). Shared by the document
 * list and the client list; the HTTP layer only passes them on.
 */
import type { BehaviourMark } from '../behaviour-marks.js';
import type { Settings } from '../config.js';
import { emptyList } from '../deep-freeze.js';
import { ApiError } from '../errors.js';
import { type Notice, notice } from '../notices.js';
import { TEMPLATE_TYPES } from './types.js';

/** Paging, shared by the document list and the client list. */
export interface PageQuery {
  resultsPerPage?: number;
  pageNum?: number;
}

/** One page of a list: its rows, what it shows and what its query relied on. */
export interface ListPage<Row> {
  rows: Row[];
  /** The behaviours the page shows (see `behaviour-marks.ts`); undefined for a full page. */
  marks: readonly BehaviourMark[] | undefined;
  /** What the query relied on that the documentation does not promise (empty for most). */
  notices: readonly Notice[];
}

/** The window of rows a query asks for: page `pageNum` (1-based) of `perPage` rows from `start`. */
export interface PageWindow {
  pageNum: number;
  perPage: number;
  start: number;
}

export const DEFAULT_RESULTS_PER_PAGE = 100;

function positiveInt(value: number | undefined, fallback: number, name: string, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ApiError('invalidQuery', `${name} needs to be an integer between 1 and ${max}.`);
  }
  return value;
}

/**
 * The page a query asks for: `pageNum` (1-based, default `defaultPageNum`) of `resultsPerPage`
 * rows (default 100, capped at `maxResultsPerPage` as the live service caps it, with a `pageSizeCapped` notice).
 */
export function pageWindow(q: PageQuery, settings: Settings): PageWindow {
  const pageNum = positiveInt(q.pageNum, settings.defaultPageNum, 'pageNum', 9999);
  const requested = positiveInt(q.resultsPerPage, DEFAULT_RESULTS_PER_PAGE, 'resultsPerPage', 9999);
  const perPage = Math.min(requested, settings.maxResultsPerPage);
  return { pageNum, perPage, start: (pageNum - 1) * perPage };
}

/** Whether a `type` is one the documentation lists (any case). Others match no document. */
export function isDocumentedType(type: string): boolean {
  return (TEMPLATE_TYPES as readonly string[]).includes(type.toLowerCase());
}

/** The notices on a list query's paging: an omitted `pageNum`, a page size above the cap. */
export function pagingNotices(q: PageQuery, settings: Settings): Notice[] | undefined {
  let notices: Notice[] | undefined;
  if (q.pageNum === undefined) {
    notices = [
      notice(
        'pageNumOmitted',
        'query.pageNum',
        'left out: the documentation gives its default as 100, the live service (and the fake) start at page 1; send pageNum',
      ),
    ];
  }
  const cap = settings.maxResultsPerPage;
  if (q.resultsPerPage !== undefined && q.resultsPerPage > cap) {
    const capped = notice(
      'pageSizeCapped',
      'query.resultsPerPage',
      `${q.resultsPerPage} is above the page-size cap (${cap}): pages hold at most ${cap} rows, as on the live service; page until results is empty rather than until a page is short`,
    );
    if (notices) notices.push(capped);
    else notices = [capped];
  }
  return notices;
}

/** The notice on a `type` the documentation does not list (answered with no documents). */
export function undocumentedTypeNotice(type: string): Notice {
  return notice(
    'undocumentedType',
    'query.type',
    `"${type}" is not a type the documentation lists; answered with no documents (the live service's answer is unknown)`,
  );
}

// One frozen list per mark, shared by every page that shows it.
const EMPTY_LIST: readonly BehaviourMark[] = Object.freeze(['emptyList']);
const PAGE_PAST_END: readonly BehaviourMark[] = Object.freeze(['pagePastEnd']);
const SHORT_LAST_PAGE: readonly BehaviourMark[] = Object.freeze(['shortLastPage']);

/** A page of `rows` answered for `window`, with the notices found on its query. */
export function pageOf<Row>(rows: Row[], window: PageWindow, notices: Notice[] | undefined): ListPage<Row> {
  let marks: readonly BehaviourMark[] | undefined;
  if (rows.length === 0) marks = window.pageNum > 1 ? PAGE_PAST_END : EMPTY_LIST;
  else if (rows.length < window.perPage) marks = SHORT_LAST_PAGE;
  return { rows, marks, notices: notices ?? emptyList() };
}
