/**
 * Batch PUT (replace), PATCH (merge) and POST (create) of documents: plans the whole batch without
 * touching the store, so one bad item rejects the batch and nothing is applied.
 *
 * - The body is one item or an array of items. Item: `{templateUid, id?, title, clientId?,
 *   description?, customId?, details?}`; `clientID` is read when `clientId` is absent, and any
 *   other field is ignored; both with a notice (the documentation leaves further fields "not
 *   shown", so the live service's answer to them is unknown).
 * - `id` is an integer or a string of digits. Blank (`""`, `null`, absent) creates a document with
 *   id = highest id + 1; its client defaults to the organization's client with the lowest id.
 *   `create` (POST) only creates: a non-blank id is rejected.
 * - An existing id must be a document of the caller's organization (otherwise `not found.`, the
 *   same for missing and foreign ones) whose template is `templateUid`.
 * - The same id twice in one batch is applied in order: a later item sees the result of the
 *   earlier ones, and the document is written once with the final result.
 * - replace: label = title, description/customId = sent or "", details rebuilt with the single
 *   PATCH's semantics (an item without `details` sends none: template fields become null, as
 *   the spec states). merge: only what is sent changes.
 */
import { ApiError, capViolations, type Violation } from '../errors.js';
import { type Notice, notice } from '../notices.js';
import type { Catalog } from './catalog.js';
import {
  buildDetails,
  type DetailsMode,
  isPlainObject,
  nullObject,
  pointerSegment,
  readShapedNotice,
} from './details-patch.js';
import { parseTemplateUid } from './list-query.js';
import type { DocumentStore } from './store.js';
import type { Document } from './types.js';

export interface BatchEnv {
  organizationId: number;
  store: DocumentStore;
  catalog: Catalog;
  maxBatchItems: number;
  /** How many more documents may be created (the instance's ceiling less what it created). */
  createRoom: number;
  unknownDetailKeys: 'reject' | 'accept';
  readShapedDetails: 'reject' | 'accept';
  /** `last_modified` of every written document. */
  nowIso: string;
}

export interface BatchPlan {
  /** The documents to store, one per id, in the order first touched. */
  writes: Document[];
  created: number[];
  updated: number[];
  /** What the batch relied on beyond the documentation (ignored fields, spellings, read shapes). */
  notices: Notice[];
}

/** The fields of a batch item; anything else is ignored with a notice. */
const ITEM_FIELDS: ReadonlySet<string> = new Set([
  'templateUid',
  'id',
  'title',
  'clientId',
  'clientID',
  'description',
  'customId',
  'details',
]);

/** Which batch call: the two updates, or POST's create (a non-blank id is refused). */
export type BatchMode = DetailsMode | 'create';

interface Problem extends Violation {
  index: number;
  notFound: boolean;
}

const isBlankId = (id: unknown): boolean => id === undefined || id === null || id === '';

/** An id sent as an integer or a string of digits; undefined when it is neither. */
function idOf(raw: unknown): number | undefined {
  const n =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw)
        ? Number(raw)
        : Number.NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

function optionalString(item: Record<string, unknown>, field: string): string | undefined | null {
  const value = item[field];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

export function planBatch(env: BatchEnv, body: unknown, batchMode: BatchMode): BatchPlan {
  const mode: DetailsMode = batchMode === 'merge' ? 'merge' : 'replace';
  const single = isPlainObject(body);
  if (!single && !Array.isArray(body)) {
    throw new ApiError('invalidBody', 'the batch body must be an object or an array of objects');
  }
  const items: unknown[] = single ? [body] : (body as unknown[]);
  if (items.length > env.maxBatchItems) {
    throw new ApiError(
      'invalidBatch',
      `the batch has ${items.length} items; at most ${env.maxBatchItems} are allowed (maxBatchItems)`,
    );
  }
  const { organizationId: org, store, catalog } = env;
  const pending = new Map<number, Document>();
  const createdSet = new Set<number>();
  const updatedSet = new Set<number>();
  const problems: Problem[] = [];
  const notices: Notice[] = [];
  let nextId = store.nextId();
  /** Items planned as creates so far (counted before they pass every check). */
  let creating = 0;

  items.forEach((item, index) => {
    const base = single ? 'body' : `body/${index}`;
    const local: Problem[] = [];
    const problem = (field: string | undefined, message: string, notFound = false): void => {
      local.push({ index, location: field ? `${base}/${field}` : base, message, notFound });
    };
    if (!isPlainObject(item)) {
      problems.push({ index, location: base, message: 'must be an object', notFound: false });
      return;
    }

    for (const field of Object.keys(item)) {
      if (ITEM_FIELDS.has(field)) continue;
      notices.push(
        notice(
          'batchFieldIgnored',
          `${base}/${pointerSegment(field)}`,
          `"${field}" is not a batch field the fake knows (templateUid, id, title, clientId, description, customId, details); ignored`,
        ),
      );
    }
    const templateId = parseTemplateUid(item.templateUid);
    if (templateId === undefined)
      problem('templateUid', 'templateUid must be TPL-<number>, tpl-<number> or a number');
    const title = item.title;
    if (typeof title !== 'string') problem('title', 'title must be a string');
    const description = optionalString(item, 'description');
    if (description === null) problem('description', 'description must be a string');
    const customId = optionalString(item, 'customId');
    if (customId === null) problem('customId', 'customId must be a string');

    const clientField = Object.hasOwn(item, 'clientId') ? 'clientId' : 'clientID';
    if (Object.hasOwn(item, 'clientID')) {
      notices.push(
        clientField === 'clientID'
          ? notice('spellingVariant', `${base}/clientID`, 'read as clientId; send clientId')
          : notice(
              'spellingVariantIgnored',
              `${base}/clientID`,
              'ignored: clientId was sent too, and wins; send only clientId',
            ),
      );
    }
    const rawClient = item[clientField];
    let clientId: number | undefined;
    if (rawClient !== undefined && rawClient !== null) {
      const client = typeof rawClient === 'number' ? catalog.clients.get(rawClient) : undefined;
      if (client?.organizationId === org) clientId = client.id;
      else problem(clientField, `client ${JSON.stringify(rawClient)} is not a client of this organization`);
    }
    const detailsSent = Object.hasOwn(item, 'details') && item.details !== undefined;

    let existing: Document | undefined;
    const rawId = item.id;
    const id = idOf(rawId);
    if (rawId === undefined && batchMode !== 'create') {
      notices.push(
        notice(
          'batchItemWithoutId',
          base,
          'no id: created as a new document; the documentation marks id required: send "id": "" to create',
        ),
      );
    }
    if (!isBlankId(rawId) && batchMode === 'create') {
      problem('id', 'POST adds documents: leave id out (or blank); update a document with PUT or PATCH');
    } else if (!isBlankId(rawId)) {
      if (id === undefined) {
        problem('id', 'id must be a positive integer (or a string of digits), or blank to create a document');
      } else {
        const doc = pending.get(id) ?? store.get(id);
        if (doc?.organization_id !== org) problem('id', `document ${id}: not found.`, true);
        else if (templateId !== undefined && doc.templateId !== templateId) {
          problem('templateUid', `document ${id} uses template tpl-${doc.templateId}, not tpl-${templateId}`);
        } else existing = doc;
      }
    } else {
      if (templateId !== undefined && !catalog.templates.has(templateId)) {
        problem('templateUid', `unknown template tpl-${templateId}`);
      }
      if (creating >= env.createRoom) {
        problem(
          undefined,
          `no room for another document: an instance creates at most maxCreatedDocuments beyond its fixtures (reset, or raise the setting)`,
        );
      }
      creating++;
      if (nextId > Number.MAX_SAFE_INTEGER) {
        problem(undefined, 'no id is left for a new document: the highest id is the largest safe integer');
      }
      const clientSent = rawClient !== undefined && rawClient !== null;
      if (!clientSent && !catalog.firstClient.has(org)) {
        problem('clientId', 'the organization has no client; send clientId');
      }
    }
    if (local.length > 0 || templateId === undefined || typeof title !== 'string') {
      problems.push(...local);
      return;
    }

    const template = catalog.templates.get(templateId);
    // Only a merge without `details` leaves the stored details as they are.
    const outcome =
      detailsSent || !existing || mode === 'replace'
        ? buildDetails({
            current: existing?.details,
            body: detailsSent ? item.details : nullObject(),
            template,
            mode,
            unknownDetailKeys: env.unknownDetailKeys,
            readShapedDetails: env.readShapedDetails,
            location: `${base}/details`,
          })
        : undefined;
    if (outcome && outcome.problems.length > 0) {
      for (const p of outcome.problems) problems.push({ ...p, index, notFound: false });
      return;
    }
    const readShaped = readShapedNotice(outcome?.readShapedKeys ?? [], `${base}/details`);
    if (readShaped) notices.push(readShaped);
    const prior = mode === 'merge' ? existing : undefined;
    const doc: Document = {
      id: existing?.id ?? nextId++,
      organization_id: org,
      client_id: clientId ?? existing?.client_id ?? catalog.firstClient.get(org)?.id ?? 0,
      templateId,
      label: title,
      description: description ?? prior?.description ?? '',
      customId: customId ?? prior?.customId ?? '',
      details: outcome?.details ?? existing?.details ?? nullObject(),
      last_modified: env.nowIso,
    };
    if (existing?.accessible !== undefined) doc.accessible = existing.accessible;
    pending.set(doc.id, doc);
    if (!existing) createdSet.add(doc.id);
    else if (!createdSet.has(doc.id)) updatedSet.add(doc.id);
  });

  if (problems.length > 0) throw batchError(problems, items.length);
  return { writes: [...pending.values()], created: [...createdSet], updated: [...updatedSet], notices };
}

/**
 * The error refusing a batch. When some items were fine, it says so as the behaviour
 * `batchRefusedWhole`: one bad item refused the good ones too.
 */
function batchError(problems: Problem[], itemCount: number): ApiError {
  const errors: Violation[] = capViolations(problems.map(({ location, message }) => ({ location, message })));
  const refusedWhole =
    new Set(problems.map((p) => p.index)).size < itemCount ? 'batchRefusedWhole' : undefined;
  if (problems.every((p) => p.notFound)) return new ApiError('notFound', 'not found.', errors, refusedWhole);
  const first = problems[0];
  const more =
    problems.length > 1
      ? ` (and ${problems.length - 1} more problem${problems.length === 2 ? '' : 's'})`
      : '';
  return new ApiError(
    'invalidBatch',
    `item ${first?.index ?? 0}: ${first?.message ?? 'invalid'}${more}`,
    errors,
    refusedWhole,
  );
}
