/**
 * `Fake`: one whole isolated fake instance (catalogue, document store, tokens, clock, settings
 * and the reset point). Pure TypeScript; the HTTP layer adapts requests to these methods and
 * renders the `ApiError`s they throw.
 *
 * Documents are immutable and shared between the live store and the reset point; every write
 * stores a new object. Objects returned by the read methods (`getDocument().details`,
 * `snapshot().documents`) are the stored ones: serialise them, never mutate them.
 */
import type { Settings } from '../config.js';
import { ApiError, capViolations } from '../errors.js';
import { jsonBytes, type MemoryAccount } from '../memory-budget.js';
import { type Notice, notice } from '../notices.js';
import { type BatchMode, planBatch } from './batch-update.js';
import { Catalog } from './catalog.js';
import { Clock } from './clock.js';
import { buildDetails, didYouMean, isPlainObject, quoteKeys, readShapedNotice } from './details-patch.js';
import {
  isDocumentedType,
  type ListPage,
  type PageQuery,
  pageOf,
  pageWindow,
  pagingNotices,
  undocumentedTypeNotice,
} from './list-page.js';
import {
  type DocumentSummary,
  type ListQuery,
  queryDocuments,
  SearchIndex,
  toSummary,
} from './list-query.js';
import { buildBase, DocumentStore, type StoreBase } from './store.js';
import { computeHash, hashMatches, type TokenGrant, type TokenObserver, TokenStore } from './tokens.js';
import { copyDataset, type Dataset, type DetailEntry, type Details, type Document } from './types.js';

export type { ListPage, PageQuery } from './list-page.js';
export type { DocumentSummary, ListQuery } from './list-query.js';

/** One row of the client list: id and the HTML-entity-encoded name, as the live service sends it. */
export interface ClientRow {
  id: number;
  name: string;
}

export interface Principal {
  organizationId: number;
  keyId: string;
}

export interface TokenRequest {
  keyId: string;
  hash: string;
  scope: string;
  content: string;
}

export interface TokenResult {
  success: true;
  access_token: string;
  refresh_token: string;
  expiry_time: number;
}

export interface DocumentRead {
  /** `tpl-<template id>` */
  templateUid: string;
  id: number;
  details: Details;
}

const SCOPES: ReadonlySet<string> = new Set(['docs_api', 'docs-api']);

/** A loaded dataset with everything derived from it; the reset point. */
interface Loaded {
  dataset: Dataset;
  base: StoreBase;
  catalog: Catalog;
  search: SearchIndex;
}

function prepare(dataset: Dataset): Loaded {
  const copy = copyDataset(dataset);
  const catalog = new Catalog(copy);
  return {
    dataset: copy,
    base: baseOf(dataset.documents, copy.documents),
    catalog,
    search: new SearchIndex(catalog),
  };
}

/**
 * The reset points of frozen document lists (a set shared by several servers, such as the default
 * set): sorted once and shared, frozen, by every fake loaded from the list, since a store never
 * writes its base's arrays (it copies an organization's on its first write).
 */
const sharedBases = new WeakMap<readonly Document[], StoreBase>();

function baseOf(given: readonly Document[], copy: readonly Document[]): StoreBase {
  if (!Object.isFrozen(given)) return buildBase(copy);
  let base = sharedBases.get(given);
  if (base === undefined) {
    base = buildBase(given);
    for (const orders of base.orders.values()) {
      Object.freeze(orders.byId);
      Object.freeze(orders.byLabel);
      Object.freeze(orders);
    }
    sharedBases.set(given, Object.freeze(base));
  }
  return base;
}

/** A document id from the path: a positive safe integer in decimal digits, no leading zeros (as the spec's pattern). */
export function parseDocumentId(raw: string): number {
  const text = String(raw);
  const id = /^[1-9]\d*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id) || id < 1) throw new ApiError('invalidId');
  return id;
}

/**
 * One change to what a state file keeps, as the fake makes it (`Fake.onChange`): documents
 * stored, tokens issued, every token revoked, a reset, a load (the dataset is the new reset
 * point). Settings and the clock are plain values the harness compares instead.
 */
export type StateChange =
  | { kind: 'documents'; documents: readonly Document[] }
  | { kind: 'tokens'; tokens: ReadonlyArray<readonly [string, TokenGrant]> }
  | { kind: 'revokeTokens' }
  | { kind: 'reset' }
  | { kind: 'load'; dataset: Dataset };

/** Another user's change to a document (`Fake.editDocument`): details merged over the stored ones. */
export interface DocumentEdit {
  label?: string;
  description?: string;
  details?: Record<string, DetailEntry>;
}

/** See `Fake.persistentState`. */
export interface PersistentState {
  /** Stands for the reset point: the same object until the next load. */
  loaded: object;
  resetPoint: Dataset;
  changed: Document[];
  /**
   * The tokens held, oldest first: the live store's iterator (read it soon, serialising each
   * grant as it comes; tokens issued meanwhile come at its end).
   */
  tokens: Iterable<readonly [string, Readonly<TokenGrant>]>;
  clockOffsetSeconds: number;
  settings: Settings;
}

/** What `restoreState` takes: a persistent state read back, tokens as a list. */
export interface RestoredState extends Omit<PersistentState, 'loaded' | 'tokens'> {
  tokens: ReadonlyArray<readonly [string, TokenGrant]>;
}

export class Fake {
  /** Mutable at run time (admin API); read on every call. */
  settings: Settings;
  readonly clock: Clock;
  #loaded: Loaded;
  #store: DocumentStore;
  readonly #tokens: TokenStore;
  /** Counts the documents written since the reset point (`documents` of the server's budget). */
  readonly #budget: MemoryAccount | undefined;
  /** The size (JSON bytes) of each document written since the reset point, by id. */
  #written = new Map<number, number>();
  #writtenBytes = 0;
  /**
   * Told of every change a state file keeps, after it is made (the root instance's state file
   * sets it; nothing else does, so other instances pay nothing).
   */
  onChange: ((change: StateChange) => void) | undefined;

  constructor(dataset: Dataset, settings: Settings, clock: Clock = new Clock(), budget?: MemoryAccount) {
    this.settings = { ...settings };
    this.clock = clock;
    this.#budget = budget;
    this.#tokens = new TokenStore(budget);
    this.#loaded = prepare(dataset);
    this.#store = new DocumentStore(this.#loaded.base);
  }

  /**
   * A token for the key and hash of `req`, or the 401 that says why not; `noticed` is told of
   * the notices of the call (a key ID and secret swapped).
   */
  issueToken(req: TokenRequest, noticed?: (found: Notice) => void): TokenResult {
    if (typeof req.scope !== 'string' || !SCOPES.has(req.scope)) {
      throw new ApiError('invalidBody', 'scope must be docs_api or docs-api');
    }
    if (typeof req.content !== 'string') throw new ApiError('invalidBody', 'content must be a string');
    const { catalog } = this.#loaded;
    const keyId = String(req.keyId);
    const key = catalog.keysById.get(keyId);
    if (!key) {
      const prefix = keyId.length > 8 ? `${keyId.slice(0, 8)}...` : keyId;
      const isSecret = catalog.keysBySecret.has(keyId);
      const swapped = isSecret
        ? '; the value sent as x-key is a secret access key: are key ID and secret swapped?'
        : '';
      // Noted as well as answered: a client that swallows the 401 still leaves it in the report.
      if (isSecret) {
        noticed?.(
          notice(
            'keySecretSwapped',
            'header.x-key',
            'x-key holds a secret access key (not shown): key ID and secret are swapped; send the key ID in x-key and sign content with the secret',
          ),
        );
      }
      throw new ApiError('unknownKey', `Key verification failed: unknown key ID "${prefix}"${swapped}`);
    }
    const encoding = this.settings.hashEncoding;
    if (!hashMatches(computeHash(key.secret, req.content), String(req.hash), encoding)) {
      throw new ApiError(
        'hashMismatch',
        `Key verification failed: hash does not match (expected the ${encoding === 'base64' ? 'base64' : 'hex'} ` +
          'HMAC-SHA256 of content keyed with the secret access key)',
      );
    }
    const now = this.clock.nowSeconds();
    const issued = this.#tokens.issue(key.organizationId, key.keyId, now, this.settings.tokenTtlSeconds);
    if (this.onChange) {
      const grant = { organizationId: key.organizationId, keyId: key.keyId, expiry: issued.expiry };
      this.onChange({
        kind: 'tokens',
        tokens: [
          [issued.accessToken, { ...grant, kind: 'access', revoked: false }],
          [issued.refreshToken, { ...grant, kind: 'refresh', revoked: false }],
        ],
      });
    }
    return {
      success: true,
      access_token: issued.accessToken,
      refresh_token: issued.refreshToken,
      expiry_time: issued.expiry,
    };
  }

  /**
   * Tells `observer` of every token this fake holds now (as added) and of each one it starts or
   * stops holding from now on; undefined stops telling.
   */
  observeTokens(observer: TokenObserver | undefined): void {
    this.#tokens.observe(observer);
    if (observer) for (const token of this.#tokens.tokens()) observer.added(token);
  }

  /** The tokens held (access and refresh, expired ones until pruned). */
  heldTokens(): IterableIterator<string> {
    return this.#tokens.tokens();
  }

  authenticate(token: string | undefined): Principal {
    const grant = this.#tokens.check(token, this.clock.nowSeconds());
    return { organizationId: grant.organizationId, keyId: grant.keyId };
  }

  /**
   * One page of the organization's documents (see list-query.ts), with the behaviours the page
   * shows and the notices on the query (list-page.ts). The rows are frozen, made once per stored
   * document.
   */
  listDocuments(p: Principal, q: ListQuery): ListPage<DocumentSummary> {
    const { catalog, search } = this.#loaded;
    const window = pageWindow(q, this.settings);
    const orders = this.#store.ordersOf(p.organizationId);
    const rows = queryDocuments(orders, q, window, search).map((doc) => toSummary(doc, catalog));
    let notices = pagingNotices(q, this.settings);
    if (q.type !== undefined && !isDocumentedType(q.type)) {
      notices = [...(notices ?? []), undocumentedTypeNotice(q.type)];
    }
    return pageOf(rows, window, notices);
  }

  /** The organization's clients by id, one page (same paging rules, cap, marks and notices as the document list). */
  listClients(p: Principal, q: PageQuery): ListPage<ClientRow> {
    const { catalog } = this.#loaded;
    const window = pageWindow(q, this.settings);
    const rows = catalog
      .clientsOf(p.organizationId)
      .slice(window.start, window.start + window.perPage)
      .map((c) => ({ id: c.id, name: catalog.encodedClientName(c.id) }));
    return pageOf(rows, window, pagingNotices(q, this.settings));
  }

  /**
   * The stored details, frozen on their first read: a write replaces them, never edits them, and
   * frozen they say so to whoever renders them (the HTTP layer keeps the text of frozen objects).
   */
  getDocument(p: Principal, documentId: string): DocumentRead {
    const doc = this.#visible(p, documentId);
    return { templateUid: `tpl-${doc.templateId}`, id: doc.id, details: Object.freeze(doc.details) };
  }

  /**
   * Replaces the document's details (see details-patch.ts); atomic. Answers the notices on the body
   * and the template fields that had a value and were cleared because the body left them out.
   */
  patchDocument(
    p: Principal,
    documentId: string,
    body: Record<string, unknown>,
  ): { notices: Notice[]; clearedFields: string[] } {
    const doc = this.#visible(p, documentId);
    if (!isPlainObject(body))
      throw new ApiError('invalidBody', 'the body must be an object keyed by detail field key');
    const outcome = buildDetails({
      current: doc.details,
      body,
      template: this.#loaded.catalog.templates.get(doc.templateId),
      mode: 'replace',
      unknownDetailKeys: this.settings.unknownDetailKeys,
      readShapedDetails: this.settings.readShapedDetails,
      location: 'body',
    });
    if (outcome.unknownKeys.length > 0) {
      throw new ApiError(
        'unknownDetailKeys',
        `unknown detail keys ${quoteKeys(outcome.unknownKeys)}: neither fields of template tpl-${doc.templateId} ` +
          `nor stored on document ${doc.id}${didYouMean(outcome.problems)}`,
        capViolations(outcome.problems),
      );
    }
    const first = outcome.problems[0];
    if (first)
      throw new ApiError(
        'invalidBody',
        `${first.location}: ${first.message}`,
        capViolations(outcome.problems),
      );
    const written = { ...doc, details: outcome.details, last_modified: this.#nowIso() };
    this.#count([written], true);
    this.#store.put(written);
    this.onChange?.({ kind: 'documents', documents: [written] });
    const notice = readShapedNotice(outcome.readShapedKeys, 'body');
    return { notices: notice ? [notice] : [], clearedFields: outcome.clearedKeys };
  }

  /** Batch PUT (`replace`), PATCH (`merge`) or POST (`create`); see batch-update.ts. Atomic. */
  batchUpdate(
    p: Principal,
    body: unknown,
    mode: BatchMode,
  ): { created: number[]; updated: number[]; notices: Notice[] } {
    const plan = planBatch(
      {
        organizationId: p.organizationId,
        store: this.#store,
        catalog: this.#loaded.catalog,
        maxBatchItems: this.settings.maxBatchItems,
        createRoom: Math.max(
          0,
          this.settings.maxCreatedDocuments - (this.#store.count() - this.#loaded.base.documents.length),
        ),
        unknownDetailKeys: this.settings.unknownDetailKeys,
        readShapedDetails: this.settings.readShapedDetails,
        nowIso: this.#nowIso(),
      },
      body,
      mode,
    );
    this.#count(plan.writes, true);
    this.#store.putMany(plan.writes);
    if (plan.writes.length > 0) this.onChange?.({ kind: 'documents', documents: plan.writes });
    return { created: plan.created, updated: plan.updated, notices: plan.notices };
  }

  /** The API key a token was issued to, usable or not (undefined for a token not held). */
  keyOfToken(token: string): string | undefined {
    return this.#tokens.grantOf(token)?.keyId;
  }

  /** Ends one access token now, as if its expiry_time had come (the test tool's scenarios). */
  expireToken(token: string): boolean {
    const grant = this.#tokens.expire(token, this.clock.nowSeconds());
    if (grant) this.onChange?.({ kind: 'tokens', tokens: [[token, { ...grant }]] });
    return grant !== undefined;
  }

  /**
   * Changes a document as another user of its organization would (the test tool's scenarios): a
   * new label or description, details merged over the stored ones; a new last_modified. Answers
   * the document as written, or undefined when no document has that id.
   */
  editDocument(
    documentId: number,
    change: DocumentEdit | ((doc: Readonly<Document>) => DocumentEdit),
  ): Document | undefined {
    const doc = this.#store.get(documentId);
    if (!doc) return undefined;
    const edit = typeof change === 'function' ? change(doc) : change;
    const written: Document = {
      ...doc,
      ...(edit.label === undefined ? {} : { label: edit.label }),
      ...(edit.description === undefined ? {} : { description: edit.description }),
      details:
        edit.details === undefined
          ? doc.details
          : (Object.assign(Object.create(null), doc.details, edit.details) as Details),
      last_modified: this.#nowIso(),
    };
    this.#count([written], true);
    this.#store.put(written);
    this.onChange?.({ kind: 'documents', documents: [written] });
    return written;
  }

  /** Invalidates every token issued so far; returns how many access tokens were still usable. */
  revokeTokens(): number {
    const live = this.#tokens.revokeAll(this.clock.nowSeconds());
    this.onChange?.({ kind: 'revokeTokens' });
    return live;
  }

  /**
   * Back to the reset point: documents as loaded, real time. Tokens stay valid (their keys are
   * the same): a client under test caches its token, as every real client does, and a suite that
   * resets between tests must not see it fail; `revokeTokens` is the call that ends them.
   * Settings stay.
   */
  reset(): void {
    this.#forgetWritten();
    this.#store = new DocumentStore(this.#loaded.base);
    this.clock.reset();
    this.onChange?.({ kind: 'reset' });
  }

  /** Replaces the whole state with `dataset` and makes it the new reset point. */
  load(dataset: Dataset): void {
    const loaded = prepare(dataset);
    this.#forgetWritten();
    this.#loaded = loaded;
    this.#store = new DocumentStore(loaded.base);
    this.#tokens.clear();
    this.clock.reset();
    this.onChange?.({ kind: 'load', dataset: loaded.dataset });
  }

  /**
   * The texts a record of this fake's traffic must never show (a HAR): its keys' IDs and secrets
   * and the tokens it holds.
   */
  secretTexts(): string[] {
    const texts: string[] = [];
    for (const key of this.#loaded.catalog.keysById.values()) texts.push(key.keyId, key.secret);
    for (const [token] of this.#tokens.live()) texts.push(token);
    return texts;
  }

  /** The dataset a reset returns to (the last one loaded); shares its immutable documents. */
  resetPoint(): Dataset {
    return this.#datasetWith([...this.#loaded.dataset.documents]);
  }

  /** The current state; documents in load order, then creation order. */
  snapshot(): Dataset {
    return this.#datasetWith(this.#store.all());
  }

  /** The loaded dataset's catalogue (copied arrays, shared immutable items) with `documents`. */
  #datasetWith(documents: Document[]): Dataset {
    return { ...copyDataset(this.#loaded.dataset), documents };
  }

  /**
   * What a state file keeps (harness/persistence/state-file.ts): the reset point, the documents that differ
   * from it (documents are never edited in place, so identity tells), tokens, clock offset and
   * settings. `loaded` stands for the reset point: the same object until the next `load`.
   */
  persistentState(): PersistentState {
    const loaded = this.#loaded;
    const base = new Set(loaded.dataset.documents);
    return {
      loaded,
      resetPoint: this.resetPoint(),
      changed: this.#store.all().filter((doc) => !base.has(doc)),
      tokens: this.#tokens.live(),
      clockOffsetSeconds: this.clock.offsetSeconds(),
      settings: { ...this.settings },
    };
  }

  /** Stands for the reset point, as `persistentState().loaded` does, without making the rest. */
  get resetPointMarker(): object {
    return this.#loaded;
  }

  /** Back to a state `persistentState()` described: `changed` are validated documents of `resetPoint`'s catalogue. */
  restoreState(state: RestoredState): void {
    this.load(state.resetPoint);
    // Restored at start: counted, never refused (it was acknowledged before).
    this.#count(state.changed, false);
    this.#store.putMany(state.changed);
    this.#tokens.replace(state.tokens);
    this.clock.advance(state.clockOffsetSeconds);
    this.settings = { ...state.settings };
  }

  documentCount(): number {
    return this.#store.count();
  }

  /** Bytes (as JSON) of the documents written since the reset point. */
  writtenBytes(): number {
    return this.#writtenBytes;
  }

  /** Gives the written documents' bytes back to the budget (the instance is going away). */
  dispose(): void {
    this.#forgetWritten();
    this.#tokens.dispose();
  }

  /**
   * Counts documents about to be stored against the budget, each replacing the one with its id:
   * with `refuse`, throws `memoryBudget` (nothing counted, nothing stored) when they do not fit.
   */
  #count(docs: readonly Document[], refuse: boolean): void {
    const sizes = new Map<number, number>();
    let delta = 0;
    for (const doc of docs) {
      const size = jsonBytes(doc);
      const before = sizes.get(doc.id) ?? this.#written.get(doc.id) ?? 0;
      sizes.set(doc.id, size);
      delta += size - before;
    }
    if (this.#budget) {
      if (refuse && delta > 0) this.#budget.reserve('documents', delta);
      else this.#budget.add('documents', delta);
    }
    for (const [id, size] of sizes) this.#written.set(id, size);
    this.#writtenBytes += delta;
  }

  #forgetWritten(): void {
    this.#budget?.release('documents', this.#writtenBytes);
    this.#written = new Map();
    this.#writtenBytes = 0;
  }

  #visible(p: Principal, documentId: string): Document {
    const doc = this.#store.get(parseDocumentId(documentId));
    if (doc?.organization_id !== p.organizationId) {
      throw new ApiError('notFound', undefined, undefined, doc ? 'foreignDocument' : 'missingDocument');
    }
    return doc;
  }

  #nowIso(): string {
    return new Date(this.clock.nowMs()).toISOString();
  }
}
