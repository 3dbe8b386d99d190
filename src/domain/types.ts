/**
 * The fake's data model. Documents use the live service's wire names so that a user can paste
 * what the service returned into a fixture file.
 *
 * Every object that holds user-chosen keys (`details`, request bodies) is a null-prototype object,
 * so a key such as `__proto__` is plain data and never reaches `Object.prototype`.
 */

/** The 19 template types the documentation lists for the `type` filter. */
export const TEMPLATE_TYPES = [
  'asset',
  'active_directory',
  'application',
  'backup',
  'email',
  'file_sharing',
  'contact',
  'location',
  'internet',
  'lan',
  'printing',
  'remote_access',
  'vendor',
  'virtualization',
  'voice',
  'wireless',
  'licencing',
  'custom',
  'ssl',
] as const;

export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export interface Organization {
  id: number;
  name: string;
}

export interface Client {
  id: number;
  organizationId: number;
  name: string;
}

export interface TemplateField {
  /** Lower-case words joined by underscores; other characters such as `/` may occur. */
  key: string;
  name: string;
  description: string;
}

export interface Template {
  id: number;
  name: string;
  type: TemplateType;
  fields: TemplateField[];
}

/** The `value` of an object detail entry. Reference fields carry more keys (`id`), kept as sent. */
export interface DetailValue {
  type: string;
  text: string;
  [extra: string]: unknown;
}

/** A detail entry in its object form, as the PATCH body sends it. */
export interface DetailObject {
  name: string;
  description: string;
  value: DetailValue;
  [extra: string]: unknown;
}

/**
 * One entry of `details`: the object form, a plain string, null, or (for `tags`) an array.
 * Stored exactly as loaded or written.
 */
export type DetailEntry = DetailObject | string | null | unknown[] | Record<string, unknown>;

/** Keyed by field key; always a null-prototype object. */
export type Details = Record<string, DetailEntry>;

export interface Document {
  id: number;
  organization_id: number;
  client_id: number;
  templateId: number;
  label: string;
  description: string;
  customId: string;
  details: Details;
  /** ISO 8601; set on load when absent and on every write. */
  last_modified: string;
  /**
   * Whether the caller may open the document, as live list rows report it; absent means true.
   * Kept as loaded (only present when the fixture says so) and kept by every write.
   */
  accessible?: boolean;
}

/** A list row: the contract's fields plus the live service's extras (`clientName`, `accessible`, `last_modified`). */
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

export interface ApiKey {
  /** 64 hex characters in the live service. */
  keyId: string;
  secret: string;
  organizationId: number;
}

/** A fixture set as a user writes it: every key optional (see spec/fixtures.schema.json). */
export interface FixtureSet {
  organizations?: Organization[];
  clients?: Client[];
  /**
   * `type` is checked against the template types when the set is loaded, so a set imported from
   * JSON (where it is any `string`) type-checks as it is.
   */
  templates?: Array<
    Omit<Template, 'fields' | 'type'> & {
      type: TemplateType | (string & {});
      fields: Array<Omit<TemplateField, 'description'> & { description?: string }>;
    }
  >;
  /**
   * Documents with the wire names of `Document`, checked against the schema when the set is
   * loaded; typed loosely so a set imported from JSON (optional keys, mixed detail shapes)
   * type-checks as it is.
   */
  documents?: Array<Record<string, unknown>>;
  apiKeys?: ApiKey[];
}

/** What each kind of a dataset holds. */
interface DatasetItems {
  organizations: Organization;
  clients: Client;
  templates: Template;
  documents: Document;
  apiKeys: ApiKey;
}

/** A kind of data a dataset holds: a key of the state, a fixture set, and a folder's `<kind>.json`. */
export type DatasetKind = keyof DatasetItems;

/**
 * Every dataset kind, in the order the state lists them. The one list: the state's JSON, a copy of
 * a dataset and a fixture folder's file names are derived from it (the compiler rejects a list
 * that misses a kind), and `test/admin-parity.test.ts` ties it to the spec's `State` and
 * `spec/fixtures.schema.json`.
 */
export const DATASET_KINDS = [
  'organizations',
  'clients',
  'templates',
  'documents',
  'apiKeys',
] as const satisfies readonly DatasetKind[];
// A kind left out of the list above, or a fixture set whose keys are not the kinds, fails to compile here.
type Same<A, B> = [Exclude<A, B> | Exclude<B, A>] extends [never] ? true : false;
const everyKindListed: Same<DatasetKind, (typeof DATASET_KINDS)[number]> = true;
const fixtureSetOfKinds: Same<DatasetKind, keyof FixtureSet> = true;
void everyKindListed;
void fixtureSetOfKinds;

/** A complete, validated fixture set with every derived piece filled in. */
export type Dataset = { [K in DatasetKind]: DatasetItems[K][] };

/** A copy of `dataset` whose arrays are its own (the items are shared: they are never edited). */
export function copyDataset(dataset: Dataset): Dataset {
  const copy = {} as Record<DatasetKind, unknown[]>;
  for (const kind of DATASET_KINDS) copy[kind] = [...dataset[kind]];
  return copy as Dataset;
}
