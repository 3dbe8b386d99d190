/**
 * Listing documents: filters (AND-combined), ordering and paging over the store's cached orders.
 *
 * A list walks the organization's cached order (forwards for `asc`, backwards for `desc`), skips
 * `(pageNum - 1) * resultsPerPage` matches and stops after `resultsPerPage`: nothing is copied or
 * sorted per request. Search reads a lower-cased search string per document, computed once and
 * cached by document object (documents are immutable, so the cache never goes stale).
 */
import type { Settings } from '../config.js';
import { ApiError } from '../errors.js';
import type { Catalog, OrgOrders } from './store.js';
import { type Document, TEMPLATE_TYPES, type TemplateType } from './types.js';

export interface ListQuery {
  resultsPerPage?: number;
  pageNum?: number;
  orderBy?: string;
  orderDir?: string;
  type?: string;
  templateUid?: string;
  clientId?: number;
  searchTxt?: string;
}

export interface DocumentSummary {
  id: number;
  organization_id: number;
  label: string;
  description: string;
  client_id: number;
  customId: string;
  templateId: number;
  templateName: string;
  type: TemplateType;
  /** HTML-entity-encoded, as the live service returns it. */
  clientName: string;
  accessible: boolean;
  last_modified: string;
}

export const DEFAULT_RESULTS_PER_PAGE = 100;

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

/** Per-document lower-cased search strings, cached by document object. */
export class SearchIndex {
  readonly #cache = new WeakMap<Document, string>();
  readonly #catalog: Catalog;

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  textOf(doc: Document): string {
    let text = this.#cache.get(doc);
    if (text === undefined) {
      const parts = [doc.label, doc.description, doc.customId];
      const info = this.#catalog.templates.get(doc.templateId);
      if (info) parts.push(info.template.name);
      collectDetailTexts(doc.details, parts);
      text = parts.join(SEPARATOR).toLowerCase();
      this.#cache.set(doc, text);
    }
    return text;
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

function positiveInt(value: number | undefined, fallback: number, name: string, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw invalidQuery(`${name} needs to be an integer between 1 and ${max}.`);
  }
  return value;
}

/** The documents of one page, in order. */
export function queryDocuments(
  orders: OrgOrders | undefined,
  q: ListQuery,
  catalog: Catalog,
  search: SearchIndex,
  settings: Settings,
): Document[] {
  const pageNum = positiveInt(q.pageNum, settings.defaultPageNum, 'pageNum', 9999);
  const requested = positiveInt(q.resultsPerPage, DEFAULT_RESULTS_PER_PAGE, 'resultsPerPage', 9999);
  const perPage = Math.min(requested, settings.maxResultsPerPage);
  const orderBy = (q.orderBy ?? 'label').toLowerCase();
  if (orderBy !== 'label' && orderBy !== 'id') throw invalidQuery('orderBy needs to be label or id.');
  const orderDir = (q.orderDir ?? 'asc').toLowerCase();
  if (orderDir !== 'asc' && orderDir !== 'desc') throw invalidQuery('orderDir needs to be asc or desc.');

  let type: string | undefined;
  if (q.type !== undefined) {
    type = q.type.toLowerCase();
    if (!(TEMPLATE_TYPES as readonly string[]).includes(type)) {
      throw invalidQuery(`type needs to be one of ${TEMPLATE_TYPES.join(', ')}.`);
    }
  }
  let templateId: number | undefined;
  if (q.templateUid !== undefined) {
    templateId = parseTemplateUid(q.templateUid);
    if (templateId === undefined) throw invalidQuery('templateUid needs to be tpl-<number> or a number.');
  }
  const clientId = q.clientId;
  if (clientId !== undefined && !Number.isSafeInteger(clientId)) {
    throw invalidQuery('clientId needs to be an integer.');
  }
  const needle = q.searchTxt ? q.searchTxt.toLowerCase() : undefined;

  const page: Document[] = [];
  if (!orders) return page;
  const list = orderBy === 'id' ? orders.byId : orders.byLabel;
  const desc = orderDir === 'desc';
  const n = list.length;
  // Clamped so an absurd pageNum cannot make the arithmetic lose precision.
  let toSkip = Math.min((pageNum - 1) * perPage, n);
  for (let k = 0; k < n; k++) {
    const doc = list[desc ? n - 1 - k : k];
    if (!doc) continue;
    if (clientId !== undefined && doc.client_id !== clientId) continue;
    if (templateId !== undefined && doc.templateId !== templateId) continue;
    if (type !== undefined && catalog.templates.get(doc.templateId)?.template.type !== type) continue;
    if (needle !== undefined && !search.textOf(doc).includes(needle)) continue;
    if (toSkip > 0) {
      toSkip--;
      continue;
    }
    page.push(doc);
    if (page.length >= perPage) break;
  }
  return page;
}

/** The list row of a document: contract fields plus the live service's extras. */
export function toSummary(doc: Document, catalog: Catalog): DocumentSummary {
  const template = catalog.templates.get(doc.templateId)?.template;
  return {
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
    accessible: true,
    last_modified: doc.last_modified,
  };
}
