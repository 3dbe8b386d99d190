/**
 * The state of one fake: the catalogue (templates, clients, API keys; fixed per loaded dataset)
 * and the document store.
 *
 * Documents are immutable: a write replaces the stored object. The store keeps a Map by id and,
 * per organization, two cached orders: by id, and by lower-cased label then id. A `StoreBase`
 * (the reset point) holds the loaded documents with their orders already sorted; a store built
 * from it shares those arrays and copies an organization's arrays only on its first write
 * (copy-on-write), so a reset costs one Map rebuild and no sorting.
 */
import { ApiError } from '../errors.js';
import { encodeHtmlEntities } from './html-entities.js';
import type { ApiKey, Client, Dataset, Document, Template } from './types.js';

export interface TemplateInfo {
  template: Template;
  /** Field keys in template order. */
  fieldKeys: readonly string[];
  fieldSet: ReadonlySet<string>;
}

/** Lookups derived once from a dataset's organizations, clients, templates and keys. */
export class Catalog {
  readonly templates = new Map<number, TemplateInfo>();
  readonly clients = new Map<number, Client>();
  /** Per organization, its client with the lowest id (the default for created documents). */
  readonly firstClient = new Map<number, Client>();
  readonly keysById = new Map<string, ApiKey>();
  readonly keysBySecret = new Map<string, ApiKey>();
  readonly #encodedClientNames = new Map<number, string>();

  constructor(dataset: Dataset) {
    for (const template of dataset.templates) {
      const fieldKeys = template.fields.map((f) => f.key);
      this.templates.set(template.id, { template, fieldKeys, fieldSet: new Set(fieldKeys) });
    }
    for (const client of dataset.clients) {
      this.clients.set(client.id, client);
      this.#encodedClientNames.set(client.id, encodeHtmlEntities(client.name));
      const first = this.firstClient.get(client.organizationId);
      if (!first || client.id < first.id) this.firstClient.set(client.organizationId, client);
    }
    for (const key of dataset.apiKeys) {
      this.keysById.set(key.keyId, key);
      this.keysBySecret.set(key.secret, key);
    }
  }

  /** The client's name HTML-entity-encoded as the live service returns it; '' for an unknown client. */
  encodedClientName(clientId: number): string {
    return this.#encodedClientNames.get(clientId) ?? '';
  }
}

/** Lower-cased label, the primary key of the label order. */
export function labelKey(doc: Document): string {
  return doc.label.toLowerCase();
}

/** The label order: lower-cased label by UTF-16 code unit (plain `<`, no locale), then id. */
export function compareByLabel(a: Document, b: Document): number {
  const ka = labelKey(a);
  const kb = labelKey(b);
  if (ka < kb) return -1;
  if (ka > kb) return 1;
  return a.id - b.id;
}

export interface OrgOrders {
  readonly byId: readonly Document[];
  readonly byLabel: readonly Document[];
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
    if (!isSortedById(group)) group.sort((a, b) => a.id - b.id);
    const decorated = group.map((doc) => ({ key: labelKey(doc), doc }));
    decorated.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.doc.id - b.doc.id));
    orders.set(orgId, { byId: group, byLabel: decorated.map((d) => d.doc) });
  }
  return { documents, orders, maxId };
}

function isSortedById(docs: readonly Document[]): boolean {
  for (let i = 1; i < docs.length; i++) {
    const prev = docs[i - 1];
    const cur = docs[i];
    if (prev && cur && prev.id > cur.id) return false;
  }
  return true;
}

/** First index whose element is not before `doc` in the order `compare`. */
function lowerBound(arr: readonly Document[], doc: Document, compare: (a: Document, b: Document) => number) {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const el = arr[mid];
    if (el && compare(el, doc) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const compareById = (a: Document, b: Document): number => a.id - b.id;

interface LiveOrders {
  byId: Document[];
  byLabel: Document[];
  /** False while the arrays are shared with the reset point (copy before the first write). */
  owned: boolean;
}

export class DocumentStore {
  readonly #byId = new Map<number, Document>();
  readonly #orders = new Map<number, LiveOrders>();
  #maxId: number;

  constructor(base: StoreBase) {
    for (const doc of base.documents) this.#byId.set(doc.id, doc);
    for (const [orgId, o] of base.orders) {
      // The arrays are only read until the first write to the organization copies them.
      this.#orders.set(orgId, { byId: o.byId as Document[], byLabel: o.byLabel as Document[], owned: false });
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
    if (old && old.organization_id !== doc.organization_id) this.#remove(old);
    const orders = this.#ownedOrders(doc.organization_id);
    const sameOrg = old !== undefined && old.organization_id === doc.organization_id;

    const i = lowerBound(orders.byId, doc, compareById);
    if (sameOrg && orders.byId[i]?.id === doc.id) orders.byId[i] = doc;
    else orders.byId.splice(i, 0, doc);

    let placed = false;
    if (sameOrg && old) {
      const j = lowerBound(orders.byLabel, old, compareByLabel);
      if (orders.byLabel[j]?.id === old.id) {
        if (labelKey(old) === labelKey(doc)) {
          orders.byLabel[j] = doc;
          placed = true;
        } else {
          orders.byLabel.splice(j, 1);
        }
      }
    }
    if (!placed) orders.byLabel.splice(lowerBound(orders.byLabel, doc, compareByLabel), 0, doc);

    this.#byId.set(doc.id, doc);
    if (doc.id > this.#maxId) this.#maxId = doc.id;
  }

  #remove(doc: Document): void {
    const orders = this.#ownedOrders(doc.organization_id);
    const i = lowerBound(orders.byId, doc, compareById);
    if (orders.byId[i]?.id === doc.id) orders.byId.splice(i, 1);
    const j = lowerBound(orders.byLabel, doc, compareByLabel);
    if (orders.byLabel[j]?.id === doc.id) orders.byLabel.splice(j, 1);
  }

  #ownedOrders(organizationId: number): LiveOrders {
    const orders = this.#orders.get(organizationId);
    if (!orders) {
      const fresh: LiveOrders = { byId: [], byLabel: [], owned: true };
      this.#orders.set(organizationId, fresh);
      return fresh;
    }
    if (!orders.owned) {
      orders.byId = orders.byId.slice();
      orders.byLabel = orders.byLabel.slice();
      orders.owned = true;
    }
    return orders;
  }
}
