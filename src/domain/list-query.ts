/**
 * Listing documents: filters (AND-combined), ordering and paging over the store's cached orders.
 *
 * Without filters a page is a slice of the organization's cached order (read forwards for `asc`,
 * backwards for `desc`). The exact filters (`type`, `templateUid`, `clientId`) use a view when
 * there is one: the documents of the order that match them, in order, so a page costs the same
 * at any page number and store size. A view is built (one pass over the order) by the second
 * query with the same filters against an unchanged order (`OrgOrders.version`) and dropped when
 * the order changes, so alternating writes and lists never pay for views they cannot reuse.
 * Otherwise the query walks the order, skipping `(pageNum - 1) * resultsPerPage` matches and
 * stopping after `resultsPerPage`. `searchTxt` always walks (the view, when there is one); it reads
 * a lower-cased search string per document, computed once and cached by document object
 * (documents are immutable, so the cache never goes stale).
 */
import { ApiError } from '../errors.js';
import type { Catalog } from './catalog.js';
import type { PageQuery, PageWindow } from './list-page.js';
import type { OrgOrders } from './store.js';
import type { Document, DocumentSummary } from './types.js';

export type { PageQuery } from './list-page.js';
export type { DocumentSummary } from './types.js';

export interface ListQuery extends PageQuery {
  orderBy?: string;
  orderDir?: string;
  type?: string;
  templateUid?: string;
  clientId?: number;
  searchTxt?: string;
}

/** Every parameter `ListQuery` reads, checked against the spec's list operations by a test. */
export const LIST_QUERY_KEYS = Object.keys({
  resultsPerPage: true,
  pageNum: true,
  orderBy: true,
  orderDir: true,
  type: true,
  templateUid: true,
  clientId: true,
  searchTxt: true,
} satisfies Record<keyof ListQuery, true>) as ReadonlyArray<keyof ListQuery>;

const TEMPLATE_UID = /^(?:tpl-)?(\d{1,16})$/i;

/** Template id from `tpl-7`, `TPL-7`, `7` or 7; undefined when it is none of these. */
export function parseTemplateUid(value: unknown): number | undefined {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    const m = TEMPLATE_UID.exec(value);
    if (!m?.[1]) return undefined;
    n = Number(m[1]);
  } else return undefined;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

const SEPARATOR = '\u0000';

/** Filter views kept per order array; beyond this many distinct filters they are all dropped. */
const MAX_VIEWS = 64;

interface Views {
  version: number;
  /** Filters queried once against this version: the next query with one builds its view. */
  seen: Set<string>;
  byFilter: Map<string, readonly Document[]>;
}

/**
 * The list query's caches for one loaded dataset: per-document lower-cased search strings (by
 * document object) and filter views (by order array and its version). Both are keyed by objects
 * the store shares with its reset point, so they stay warm across resets.
 */
export class SearchIndex {
  readonly #cache = new WeakMap<Document, string>();
  readonly #views = new WeakMap<readonly Document[], Views>();
  readonly #typeTemplates = new Map<string, ReadonlySet<number>>();
  readonly #catalog: Catalog;

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  /** The ids of the templates of a template type. */
  templatesOfType(type: string): ReadonlySet<number> {
    let ids = this.#typeTemplates.get(type);
    if (ids === undefined) {
      ids = new Set(
        [...this.#catalog.templates.values()]
          .filter((t) => t.template.type === type)
          .map((t) => t.template.id),
      );
      this.#typeTemplates.set(type, ids);
    }
    return ids;
  }

  /**
   * The documents of `order` for which `matches` holds, in order (`filter` names the predicate);
   * undefined the first time a filter is asked for against this `version` of the order.
   */
  view(
    order: readonly Document[],
    version: number,
    filter: string,
    matches: (doc: Document) => boolean,
  ): readonly Document[] | undefined {
    let views = this.#views.get(order);
    if (views?.version !== version) {
      views = { version, seen: new Set(), byFilter: new Map() };
      this.#views.set(order, views);
    }
    let docs = views.byFilter.get(filter);
    if (docs === undefined) {
      if (!views.seen.has(filter)) {
        // Bounded like the views: a client asking for a new clientId each time must not grow it.
        if (views.seen.size >= MAX_VIEWS * 4) views.seen.clear();
        views.seen.add(filter);
        return undefined;
      }
      if (views.byFilter.size >= MAX_VIEWS) views.byFilter.clear();
      docs = order.filter(matches);
      views.byFilter.set(filter, docs);
    }
    return docs;
  }

  /** How many filters the index remembers for `order` (seen once, and with a view): bounded. */
  viewCounts(order: readonly Document[]): { seen: number; views: number } {
    const views = this.#views.get(order);
    return { seen: views?.seen.size ?? 0, views: views?.byFilter.size ?? 0 };
  }

  /** The searched texts of a document, joined by a separator no needle can match across. */
  textOf(doc: Document): string {
    let text = this.#cache.get(doc);
    if (text === undefined) {
      text = this.#partsOf(doc).join(SEPARATOR).toLowerCase();
      this.#cache.set(doc, text);
    }
    return text;
  }

  /**
   * Whether `needle` (lower-cased) occurs within one of the document's texts. A needle holding the
   * separator (a NUL) is matched text by text, so it never matches across two texts: `%00` matches
   * only a text that holds a NUL, not every document.
   */
  matchesText(doc: Document, needle: string): boolean {
    if (!needle.includes(SEPARATOR)) return this.textOf(doc).includes(needle);
    return this.#partsOf(doc).some((part) => part.toLowerCase().includes(needle));
  }

  #partsOf(doc: Document): string[] {
    const parts = [doc.label, doc.description, doc.customId];
    const info = this.#catalog.templates.get(doc.templateId);
    if (info) parts.push(info.template.name);
    collectDetailTexts(doc.details, parts);
    return parts;
  }
}

/** Detail texts: plain string entries, `value.text` of object entries, strings inside arrays (tags). */
function collectDetailTexts(details: Document['details'], out: string[]): void {
  if (typeof details !== 'object' || details === null) return;
  for (const key of Object.keys(details)) {
    const entry: unknown = details[key];
    if (typeof entry === 'string') out.push(entry);
    else if (Array.isArray(entry)) {
      for (const item of entry) {
        if (typeof item === 'string') out.push(item);
        else pushText(item, out);
      }
    } else if (typeof entry === 'object' && entry !== null && Object.hasOwn(entry, 'value')) {
      pushText((entry as { value: unknown }).value, out);
    }
  }
}

function pushText(value: unknown, out: string[]): void {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, 'text')) return;
  const text = (value as { text: unknown }).text;
  if (typeof text === 'string') out.push(text);
  else if (typeof text === 'number' && Number.isFinite(text)) out.push(String(text));
}

function invalidQuery(message: string): ApiError {
  return new ApiError('invalidQuery', message);
}

/**
 * One exact filter of the list: how its value is read from a query (undefined when the query does
 * not filter on it; an `invalidQuery` thrown when the value is not one it takes) and which
 * documents a value keeps.
 */
interface ExactFilter<T extends string | number> {
  read(q: ListQuery): T | undefined;
  keeps(value: T, search: SearchIndex): (doc: Document) => boolean;
}

const exactFilter = <T extends string | number>(filter: ExactFilter<T>): ExactFilter<T> => filter;

/**
 * The exact filters, declared once: matching, the walk and the key of the cached view all come
 * from this table, so a filter added here is applied, walked and keyed alike.
 */
export const EXACT_FILTERS = {
  // A type outside the documented list matches no template, so the page is empty.
  type: exactFilter({
    read: (q) => q.type?.toLowerCase(),
    keeps: (type, search) => {
      const templates = search.templatesOfType(type);
      return (doc) => templates.has(doc.templateId);
    },
  }),
  templateUid: exactFilter({
    read: (q) => {
      if (q.templateUid === undefined) return undefined;
      const id = parseTemplateUid(q.templateUid);
      if (id === undefined) throw invalidQuery('templateUid needs to be tpl-<number> or a number.');
      return id;
    },
    keeps: (templateId) => (doc) => doc.templateId === templateId,
  }),
  clientId: exactFilter({
    read: (q) => {
      if (q.clientId !== undefined && !Number.isSafeInteger(q.clientId)) {
        throw invalidQuery('clientId needs to be an integer.');
      }
      return q.clientId;
    },
    keeps: (clientId) => (doc) => doc.client_id === clientId,
  }),
} satisfies { [K in keyof ListQuery]?: ExactFilter<string> | ExactFilter<number> };

const FILTER_ENTRIES = Object.entries(EXACT_FILTERS) as Array<[string, ExactFilter<string | number>]>;

const keepAll = (): boolean => true;

/**
 * The exact filters a query asks for, in the table's order (so their errors come in that order):
 * one predicate that holds for the documents every one of them keeps, and the key of their cached
 * view (undefined when the query filters on none): the values read, in the table's order, as JSON,
 * so two different values never share a view.
 */
export function exactFiltersOf(
  q: ListQuery,
  search: SearchIndex,
): { matches: (doc: Document) => boolean; key: string | undefined } {
  const values: Array<string | number | null> = [];
  const predicates: Array<(doc: Document) => boolean> = [];
  for (const [, filter] of FILTER_ENTRIES) {
    const value = filter.read(q);
    values.push(value ?? null);
    if (value !== undefined) predicates.push(filter.keeps(value, search));
  }
  if (predicates.length === 0) return { matches: keepAll, key: undefined };
  const [only] = predicates;
  const matches =
    predicates.length === 1 && only ? only : (doc: Document) => predicates.every((keeps) => keeps(doc));
  return { matches, key: JSON.stringify(values) };
}

/** The documents of the page `window` of the query, in order (`pageWindow` reads the window off the query). */
export function queryDocuments(
  orders: OrgOrders | undefined,
  q: ListQuery,
  window: PageWindow,
  search: SearchIndex,
): Document[] {
  const { perPage } = window;
  const orderBy = (q.orderBy ?? 'label').toLowerCase();
  if (orderBy !== 'label' && orderBy !== 'id') throw invalidQuery('orderBy needs to be label or id.');
  const orderDir = (q.orderDir ?? 'asc').toLowerCase();
  if (orderDir !== 'asc' && orderDir !== 'desc') throw invalidQuery('orderDir needs to be asc or desc.');

  const filters = exactFiltersOf(q, search);
  const needle = q.searchTxt ? q.searchTxt.toLowerCase() : undefined;

  const page: Document[] = [];
  if (!orders) return page;
  const order = orderBy === 'id' ? orders.byId : orders.byLabel;
  const { matches } = filters;
  const view = filters.key === undefined ? order : search.view(order, orders.version, filters.key, matches);
  const list = view ?? order;
  const desc = orderDir === 'desc';
  const n = list.length;
  // Clamped so an absurd pageNum cannot make the arithmetic lose precision.
  let toSkip = Math.min(window.start, n);
  if (view !== undefined && needle === undefined) {
    const end = Math.min(toSkip + perPage, n);
    for (let k = toSkip; k < end; k++) page.push(list[desc ? n - 1 - k : k] as Document);
    return page;
  }
  for (let k = 0; k < n; k++) {
    const doc = list[desc ? n - 1 - k : k] as Document;
    if (view === undefined && !matches(doc)) continue;
    if (needle !== undefined && !search.matchesText(doc, needle)) continue;
    if (toSkip > 0) {
      toSkip--;
      continue;
    }
    page.push(doc);
    if (page.length >= perPage) break;
  }
  return page;
}

/** The list row of a document: contract fields plus the live service's extras (made once per document object). */
export function toSummary(doc: Document, catalog: Catalog): DocumentSummary {
  const cached = catalog.summaries.get(doc);
  if (cached) return cached;
  const template = catalog.templates.get(doc.templateId)?.template;
  const row: DocumentSummary = Object.freeze({
    id: doc.id,
    organization_id: doc.organization_id,
    label: doc.label,
    description: doc.description,
    client_id: doc.client_id,
    customId: doc.customId,
    templateId: doc.templateId,
    // A validated dataset always names an existing template; 'custom' keeps a row well-formed if not.
    templateName: template?.name ?? '',
    type: template?.type ?? 'custom',
    clientName: catalog.encodedClientName(doc.client_id),
    accessible: doc.accessible ?? true,
    last_modified: doc.last_modified,
  });
  catalog.summaries.set(doc, row);
  return row;
}
