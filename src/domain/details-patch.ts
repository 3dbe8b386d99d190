/**
 * Building a document's new `details` from a request body, without touching the stored ones.
 *
 * - replace (PATCH one document, batch PUT): template fields absent from the body become `null`;
 *   stored entries that are not template fields (`tags`, plain strings) stay unless the body sends
 *   them.
 * - merge (batch PATCH): keys sent are set, every other entry stays as it is.
 * - A key is known if it is a template field or already stored on the document; unknown keys are
 *   reported (or accepted, per the `unknownDetailKeys` setting).
 * - A new document starts with every template field `null`, so both modes agree on creation.
 *
 * Every object built here (the details and every object inside a sent entry) is a
 * null-prototype copy, so keys such as `__proto__` are plain data and the caller's body is never
 * shared with the store.
 */
import { boundText, type Violation } from '../errors.js';
import { nearestName } from '../nearest-name.js';
import { type Notice, notice } from '../notices.js';
import type { TemplateInfo } from './catalog.js';
import type { DetailEntry, Details } from './types.js';

export type DetailsMode = 'replace' | 'merge';

export interface DetailsInput {
  /** Stored details; undefined for a document being created. */
  current: Details | undefined;
  /** The sent details (the PATCH body, or a batch item's `details`). */
  body: unknown;
  template: TemplateInfo | undefined;
  mode: DetailsMode;
  unknownDetailKeys: 'reject' | 'accept';
  /** Entries in the shape reads return (null, string, array, object without name/description): stored as sent, or rejected. */
  readShapedDetails: 'reject' | 'accept';
  /** JSON-pointer-like location of the body for violations: `body`, `body/0/details`. */
  location: string;
}

export interface DetailsOutcome {
  details: Details;
  /** Unknown keys that were rejected (empty when accepted or none). */
  unknownKeys: string[];
  /** Every problem, unknown keys included; the details must not be stored unless this is empty. */
  problems: Violation[];
  /** Keys whose entries were sent in a read shape and accepted (for a notice). */
  readShapedKeys: string[];
  /** Template fields that held a value and became null because the body left them out (replace). */
  clearedKeys: string[];
}

/** The documentation's form of a sent entry: `{name, description, value: {type, text}}`, all strings. */
export function isDocumentedEntry(entry: unknown): boolean {
  if (!isPlainObject(entry)) return false;
  const { name, description, value } = entry;
  return (
    typeof name === 'string' &&
    typeof description === 'string' &&
    isPlainObject(value) &&
    typeof value.type === 'string' &&
    typeof value.text === 'string'
  );
}

/**
 * An entry that is meant as the documented form (it has `name` or `description`, which reads
 * never show) but is not whole: each missing or wrong piece, named. Such an entry is not a read
 * shape sent back; it breaks the documented form, whatever `readShapedDetails` says.
 */
function documentedEntryProblems(entry: unknown, at: string): Violation[] {
  if (!isPlainObject(entry) || isDocumentedEntry(entry)) return [];
  if (!Object.hasOwn(entry, 'name') && !Object.hasOwn(entry, 'description')) return [];
  const problems: Violation[] = [];
  for (const key of ['name', 'description'] as const) {
    if (typeof entry[key] !== 'string') {
      problems.push({
        location: `${at}/${key}`,
        message: Object.hasOwn(entry, key) ? 'must be a string' : 'is required',
      });
    }
  }
  const { value } = entry;
  if (value === undefined) {
    problems.push({ location: `${at}/value`, message: `is required: send ${DOCUMENTED_ENTRY}` });
  } else if (!isPlainObject(value) || typeof value.type !== 'string' || typeof value.text !== 'string') {
    problems.push({
      location: `${at}/value`,
      message: 'must be an object {"type": "...", "text": "..."} of two strings',
    });
  }
  return problems;
}

/** What a read-shaped entry is, for messages. */
function shapeOf(entry: unknown): string {
  if (entry === null) return 'null';
  if (typeof entry === 'string') return 'a plain string';
  if (Array.isArray(entry)) return 'an array';
  return 'an object without the documented name, description and value {type, text}';
}

export const DOCUMENTED_ENTRY =
  '{"name": "...", "description": "...", "value": {"type": "string", "text": "..."}}';

/** Nesting deeper than this inside one entry is rejected (keeps the recursive copy far from the stack limit). */
export const MAX_DETAIL_DEPTH = 32;

export function nullObject<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON-pointer escaping of one path segment (`~` → `~0`, `/` → `~1`). */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

type Copy = { ok: true; value: unknown } | { ok: false; message: string };

/** A null-prototype deep copy of a JSON value; refuses non-JSON values and deep nesting. */
export function copyJson(value: unknown, depth = 0): Copy {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return { ok: true, value };
  if (typeof value === 'number') {
    return Number.isFinite(value) ? { ok: true, value } : { ok: false, message: 'must be a finite number' };
  }
  if (typeof value !== 'object') return { ok: false, message: 'must be a JSON value' };
  if (depth >= MAX_DETAIL_DEPTH)
    return { ok: false, message: `nested deeper than ${MAX_DETAIL_DEPTH} levels` };
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const c = copyJson(item, depth + 1);
      if (!c.ok) return c;
      out.push(c.value);
    }
    return { ok: true, value: out };
  }
  const out = nullObject<unknown>();
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (item === undefined) continue;
    const c = copyJson(item, depth + 1);
    if (!c.ok) return c;
    out[key] = c.value;
  }
  return { ok: true, value: out };
}

export function buildDetails(input: DetailsInput): DetailsOutcome {
  const { current, body, template, mode, location } = input;
  const problems: Violation[] = [];
  const unknownKeys: string[] = [];
  const readShapedKeys: string[] = [];
  const clearedKeys: string[] = [];
  const out = nullObject<DetailEntry>();
  if (!isPlainObject(body)) {
    problems.push({ location, message: 'details must be an object keyed by detail field key' });
    return { details: out, unknownKeys, problems, readShapedKeys, clearedKeys };
  }
  const fieldSet = template?.fieldSet ?? new Set<string>();
  const sent = (key: string): boolean => Object.hasOwn(body, key) && body[key] !== undefined;
  const take = (key: string): void => {
    const halfDocumented = documentedEntryProblems(body[key], `${location}/${pointerSegment(key)}`);
    if (halfDocumented.length > 0) {
      problems.push(...halfDocumented);
      // Taken (as nothing): the loops below must not report it again. Nothing is stored.
      out[key] = null;
      return;
    }
    if (!isDocumentedEntry(body[key])) {
      if (input.readShapedDetails === 'reject') {
        problems.push({
          location: `${location}/${pointerSegment(key)}`,
          message: `is ${shapeOf(body[key])}, the shape reads return; send ${DOCUMENTED_ENTRY} (setting readShapedDetails=accept stores read shapes as sent)`,
        });
        return;
      }
      readShapedKeys.push(key);
    }
    const c = copyJson(body[key]);
    if (c.ok) out[key] = c.value as DetailEntry;
    else problems.push({ location: `${location}/${pointerSegment(key)}`, message: c.message });
  };

  if (current) {
    for (const key of Object.keys(current)) {
      if (sent(key)) take(key);
      else if (mode === 'replace' && fieldSet.has(key)) {
        if (current[key] !== null && current[key] !== undefined) clearedKeys.push(key);
        out[key] = null;
      } else out[key] = current[key] ?? null;
    }
  }
  if (!current || mode === 'replace') {
    for (const key of template?.fieldKeys ?? []) {
      if (Object.hasOwn(out, key)) continue;
      if (sent(key)) take(key);
      else out[key] = null;
    }
  }
  for (const key of Object.keys(body)) {
    if (Object.hasOwn(out, key) || !sent(key)) continue;
    const known = fieldSet.has(key);
    if (!known && input.unknownDetailKeys === 'reject') {
      unknownKeys.push(key);
      const meant = nearestName(key, [...fieldSet, ...Object.keys(current ?? {})]);
      problems.push({
        location: `${location}/${pointerSegment(key)}`,
        message:
          `unknown detail key "${key}": not a field of the template and not stored on the document` +
          (meant === undefined ? '' : `; did you mean "${meant}"?`),
      });
      continue;
    }
    take(key);
  }
  return { details: out, unknownKeys, problems, readShapedKeys, clearedKeys };
}

/** The notice for entries accepted in a read shape; undefined when there were none. */
export function readShapedNotice(keys: readonly string[], location: string): Notice | undefined {
  if (keys.length === 0) return undefined;
  const shown = keys.slice(0, 10).map((k) => JSON.stringify(k));
  const more = keys.length > 10 ? ` and ${keys.length - 10} more` : '';
  return notice(
    'readShapedDetails',
    location,
    `${keys.length} detail ${keys.length === 1 ? 'entry' : 'entries'} (${shown.join(', ')}${more}) sent in the shape ` +
      `reads return (null, a plain string, an array, or an object without name/description) and stored as sent; ` +
      `the documentation specifies ${DOCUMENTED_ENTRY} for every entry`,
  );
}

/** Most keys a message quotes; the rest are counted. */
const QUOTED_KEYS = 10;

/** `"a", "b"`: keys quoted for a message, the first ten (each cut to 100 characters), then how many more. */
export function quoteKeys(keys: readonly string[]): string {
  const quoted = keys.slice(0, QUOTED_KEYS).map((k) => JSON.stringify(boundText(k, 100)));
  const more = keys.length - QUOTED_KEYS;
  return more > 0 ? `${quoted.join(', ')} and ${more} more` : quoted.join(', ');
}

/** The "did you mean" hints of unknown-key problems, for the error's message: `; did you mean "a"?`. */
export function didYouMean(problems: readonly Violation[]): string {
  const meant = problems.flatMap((p) => p.message.match(/; did you mean ("[^"]*")\?$/)?.[1] ?? []);
  return meant.length === 0 ? '' : `; did you mean ${meant.join(', ')}?`;
}
