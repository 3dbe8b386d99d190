/**
 * The document store of one fake (its catalogue of templates, clients and keys is `catalog.ts`).
 *
 * Documents are immutable: a write replaces the stored object. The store keeps a Map by id and,
 * per organization, two cached orders: by id, and by lower-cased label then id. A `StoreBase`
 * (the reset point) holds the loaded documents with their orders already sorted; a store built
 * from it shares those arrays and copies an organization's arrays only on its first write
 * (copy-on-write), so a reset costs one Map rebuild and no sorting.
 */

import { ApiError } from '../errors.js';
import type { Document } from './types.js';

/** Lower-cased label, the primary key of the label order. */
export function labelKey(doc: Document): string {
  return doc.label.toLowerCase();
}

/**
 * Strings by Unicode code point, as the spec and docs/decisions.md say (no locale). JavaScript's
 * `<` compares UTF-16 code units, which puts a character past U+FFFF (a surrogate pair, from
 * 0xD800) before U+E000–U+FFFF (`𐀀` U+10000 before `豈` U+F900); only there do the two differ.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) return codePointRank(x) - codePointRank(y);
    return x - y;
  }
  return a.length - b.length;
}

/** A code unit from 0xD800 up, ranked so that surrogates (code points past U+FFFF) come last. */
const codePointRank = (unit: number): number => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

/** The label order: lower-cased label by code point (no locale), then id. */
export function compareByLabel(a: Document, b: Document): number {
  return compareCodePoints(labelKey(a), labelKey(b)) || a.id - b.id;
}

const compareById = (a: Document, b: Document): number => a.id - b.id;

/** Batches larger than this are stored by filtering and merging the orders instead of splicing. */
const BULK_WRITE = 64;

export interface OrgOrders {
  readonly byId: readonly Document[];
  readonly byLabel: readonly Document[];
  /**
   * Changes whenever the arrays are changed in place, so anything derived from them (the list
   * query's filter views) knows it is stale. Arrays shared with the reset point never change.
   */
  readonly version: number;
}

/** A reset point: the documents as loaded plus their sorted per-organization orders. */
export interface StoreBase {
  readonly documents: readonly Document[];
  readonly orders: ReadonlyMap<number, OrgOrders>;
  readonly maxId: number;
}

/** Sorts the documents into per-organization orders; rejects duplicate or invalid ids. */
export function buildBase(documents: readonly Document[]): StoreBase {
  const groups = new Map<number, Document[]>();
  const seen = new Set<number>();
  let maxId = 0;
  for (const doc of documents) {
    if (!Number.isSafeInteger(doc.id) || doc.id < 1) {
      throw new ApiError('invalidBody', `document id ${String(doc.id)} is not a positive integer`);
    }
    if (seen.has(doc.id)) throw new ApiError('invalidBody', `duplicate document id ${doc.id}`);
    seen.add(doc.id);
    if (doc.id > maxId) maxId = doc.id;
    const group = groups.get(doc.organization_id);
    if (group) group.push(doc);
    else groups.set(doc.organization_id, [doc]);
  }
  const orders = new Map<number, OrgOrders>();
  for (const [orgId, group] of groups) {
    group.sort(compareById); // TimSort: linear when already in id order, the usual case
    orders.set(orgId, { byId: group, byLabel: sortByLabel(group), version: 0 });
  }
  return { documents, orders, maxId };
}

/** A label-ordered copy, each label lower-cased once. */
function sortByLabel(docs: readonly Document[]): Document[] {
  const decorated = docs.map((doc) => ({ key: labelKey(doc), doc }));
  decorated.sort((a, b) => compareCodePoints(a.key, b.key) || a.doc.id - b.doc.id);
  return decorated.map((d) => d.doc);
}

/**
 * Merges `b` into `a` (both sorted by `compare`): each element of `b` finds its place by binary
 * search, so only O(k log n) comparisons are made and the rest is copying.
 */
function mergeSorted(a: readonly Document[], b: readonly Document[], compare: Compare): Document[] {
  const out = new Array<Document>(a.length + b.length);
  let from = 0;
  let k = 0;
  for (const doc of b) {
    const at = lowerBound(a, doc, compare, from);
    for (let i = from; i < at; i++) out[k++] = a[i] as Document;
    out[k++] = doc;
    from = at;
  }
  for (let i = from; i < a.length; i++) out[k++] = a[i] as Document;
  return out;
}

type Compare = (a: Document, b: Document) => number;

/** First index at or after `lo` whose element is not before `doc` in the order `compare`. */
function lowerBound(arr: readonly Document[], doc: Document, compare: Compare, lo = 0): number {
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const el = arr[mid];
    if (el && compare(el, doc) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface LiveOrders {
  byId: Document[];
  byLabel: Document[];
  /** False while the arrays are shared with the reset point (copy before the first write). */
  owned: boolean;
  /** Bumped before every in-place change of the arrays (see `OrgOrders.version`). */
  version: number;
}

export class DocumentStore {
  readonly #byId = new Map<number, Document>();
  readonly #orders = new Map<number, LiveOrders>();
  #maxId: number;

  constructor(base: StoreBase) {
    for (const doc of base.documents) this.#byId.set(doc.id, doc);
    for (const [orgId, o] of base.orders) {
      // The arrays are only read until the first write to the organization copies them.
      this.#orders.set(orgId, {
        byId: o.byId as Document[],
        byLabel: o.byLabel as Document[],
        owned: false,
        version: o.version,
      });
    }
    this.#maxId = base.maxId;
  }

  /** The document with this id, whatever its organization. */
  get(id: number): Document | undefined {
    return this.#byId.get(id);
  }

  /** The organization's cached orders (read-only; never copied). */
  ordersOf(organizationId: number): OrgOrders | undefined {
    return this.#orders.get(organizationId);
  }

  /** The id a new document gets: one above the highest id ever stored. */
  nextId(): number {
    return this.#maxId + 1;
  }

  count(): number {
    return this.#byId.size;
  }

  /** Every document, in load order then creation order. */
  all(): Document[] {
    return [...this.#byId.values()];
  }

  /** Stores `doc`, replacing the document with the same id, and patches the cached orders. */
  put(doc: Document): void {
    const old = this.#byId.get(doc.id);
    if (old && old.organization_id !== doc.organization_id) {
      this.#bulk([doc]); // a move between organizations rebuilds both organizations' orders
      return;
    }
    const { byId, byLabel } = this.#ownedOrders(doc.organization_id);
    const i = lowerBound(byId, doc, compareById);
    if (old && byId[i]?.id === doc.id) byId[i] = doc;
    else byId.splice(i, 0, doc);
    const j = old ? lowerBound(byLabel, old, compareByLabel) : -1;
    const found = old !== undefined && byLabel[j]?.id === old.id;
    if (found && labelKey(old) === labelKey(doc)) byLabel[j] = doc;
    else {
      if (found) byLabel.splice(j, 1);
      byLabel.splice(lowerBound(byLabel, doc, compareByLabel), 0, doc);
    }
    this.#byId.set(doc.id, doc);
    if (doc.id > this.#maxId) this.#maxId = doc.id;
  }

  /** Stores many documents; for a later duplicate id, the later document wins. */
  putMany(docs: readonly Document[]): void {
    if (docs.length > BULK_WRITE) this.#bulk(docs);
    else for (const doc of docs) this.put(doc);
  }

  /**
   * Filters the touched organizations' orders and merges the new documents in, O(n + k log k),
   * instead of k splices of O(n) each.
   */
  #bulk(docs: readonly Document[]): void {
    const unique = new Map<number, Document>();
    for (const doc of docs) unique.set(doc.id, doc);
    const replaced = new Set<number>();
    const added = new Map<number, Document[]>();
    for (const doc of unique.values()) {
      const old = this.#byId.get(doc.id);
      if (old) {
        replaced.add(doc.id);
        if (!added.has(old.organization_id)) added.set(old.organization_id, []);
      }
      const list = added.get(doc.organization_id);
      if (list) list.push(doc);
      else added.set(doc.organization_id, [doc]);
      this.#byId.set(doc.id, doc);
      if (doc.id > this.#maxId) this.#maxId = doc.id;
    }
    const keep = (d: Document): boolean => !replaced.has(d.id);
    const kept = (arr: readonly Document[] | undefined) =>
      !arr ? [] : replaced.size > 0 ? arr.filter(keep) : arr;
    for (const [orgId, fresh] of added) {
      const orders = this.#orders.get(orgId);
      const byId = mergeSorted(kept(orders?.byId), fresh.slice().sort(compareById), compareById);
      const byLabel = mergeSorted(kept(orders?.byLabel), sortByLabel(fresh), compareByLabel);
      this.#orders.set(orgId, { byId, byLabel, owned: true, version: (orders?.version ?? 0) + 1 });
    }
  }

  #ownedOrders(organizationId: number): LiveOrders {
    const orders = this.#orders.get(organizationId);
    if (!orders) {
      const fresh: LiveOrders = { byId: [], byLabel: [], owned: true, version: 0 };
      this.#orders.set(organizationId, fresh);
      return fresh;
    }
    if (!orders.owned) {
      orders.byId = orders.byId.slice();
      orders.byLabel = orders.byLabel.slice();
      orders.owned = true;
    }
    // Every caller changes the arrays next.
    orders.version++;
    return orders;
  }
}
