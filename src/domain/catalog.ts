/**
 * The catalogue of one loaded dataset: templates with their field keys, clients, API keys and the
 * list rows of stored documents. Fixed per loaded dataset (a fixture load builds a new one); the
 * documents themselves are in the store (`store.ts`).
 */
import { encodeHtmlEntities } from './html-entities.js';
import type { ApiKey, Client, Dataset, Document, DocumentSummary, Template } from './types.js';

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
  /** Per organization, its clients ordered by id (the client list). */
  readonly #clientsByOrg = new Map<number, Client[]>();
  /**
   * List rows by stored document object. Documents are never changed in place (a write stores a
   * new object), so a row can never go stale; rows are frozen so every reader can share them.
   */
  readonly summaries = new WeakMap<Document, DocumentSummary>();

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
      const ofOrg = this.#clientsByOrg.get(client.organizationId);
      if (ofOrg) ofOrg.push(client);
      else this.#clientsByOrg.set(client.organizationId, [client]);
    }
    for (const list of this.#clientsByOrg.values()) list.sort((a, b) => a.id - b.id);
    for (const key of dataset.apiKeys) {
      this.keysById.set(key.keyId, key);
      this.keysBySecret.set(key.secret, key);
    }
  }

  /** The organization's clients, ordered by id (shared: do not mutate). */
  clientsOf(organizationId: number): readonly Client[] {
    return this.#clientsByOrg.get(organizationId) ?? [];
  }

  /** The client's name HTML-entity-encoded as the live service returns it; '' for an unknown client. */
  encodedClientName(clientId: number): string {
    return this.#encodedClientNames.get(clientId) ?? '';
  }
}
