/**
 * Rendering a response body as JSON, reusing the texts of frozen objects. A frozen object is one
 * whose text never changes (list rows, and stored details once read: a write replaces them, never
 * edits them, so freeze only what is immutable all the way down), so its text is made once and
 * kept by identity in a bounded memo owned by the instance. A body is concatenated from those
 * texts: V8 links the pieces rather than copying them, the one flat copy is made when the socket
 * writes it, and the UTF-8 length is summed from the pieces instead of rescanning the whole body.
 * The text always equals `JSON.stringify(body)`: the memo changes what it costs, never what it is.
 */

import { LRUCache } from 'lru-cache';

/** A JSON text and its length in UTF-8 bytes. */
export interface JsonText {
  text: string;
  bytes: number;
  /**
   * The pieces `text` was concatenated from, when it was built (`JsonTextBuilder`): texts made
   * once (rows, details) and short syntax, so keeping them costs a few pointers where keeping
   * the sent text costs a copy of the whole body.
   */
  readonly pieces?: readonly string[];
}

/** Where a renderer finds the texts of frozen objects. */
export interface JsonTextMemo {
  of(value: object): JsonText;
}

function toJsonText(value: unknown): JsonText {
  // Like JSON.stringify in an array: what has no JSON form is null.
  const text = JSON.stringify(value) ?? 'null';
  return { text, bytes: Buffer.byteLength(text) };
}

/**
 * The JSON texts of the frozen objects rendered most recently, least recently used dropped first,
 * within `maxEntries` texts and `maxBytes` of text, so memory stays bounded however many documents
 * are listed or read. Owned by an instance, so it goes with it.
 */
export class RecentJsonTexts implements JsonTextMemo {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  /**
   * Made on first use: the cache allocates its tables for `maxEntries` up front, which an
   * instance that never answers a read (a session made for one test) should not pay for.
   */
  #texts: LRUCache<object, JsonText> | undefined;

  constructor(maxEntries: number, maxBytes: number) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  of(value: object): JsonText {
    this.#texts ??= new LRUCache<object, JsonText>({
      max: this.#maxEntries,
      maxSize: this.#maxBytes,
      // A text larger than the whole budget is made and sent, just not kept.
      sizeCalculation: (json) => Math.max(1, json.bytes),
    });
    let json = this.#texts.get(value);
    if (json === undefined) {
      json = toJsonText(value);
      if (json.bytes <= this.#maxBytes) this.#texts.set(value, json);
    }
    return json;
  }

  get size(): number {
    return this.#texts?.size ?? 0;
  }
}

/** Concatenates JSON pieces, counting their UTF-8 bytes as it goes. */
export class JsonTextBuilder implements JsonText {
  text = '';
  bytes = 0;
  readonly pieces: string[] = [];

  /** Appends JSON syntax written in ASCII (braces, commas): one byte a character. */
  ascii(text: string): this {
    this.text += text;
    this.bytes += text.length;
    this.pieces.push(text);
    return this;
  }

  /** Appends a text made before (its bytes already counted). */
  append(json: JsonText): this {
    this.text += json.text;
    this.bytes += json.bytes;
    this.pieces.push(json.text);
    return this;
  }

  /** The text so far, the builder emptied. */
  take(): string {
    const { text } = this;
    this.text = '';
    this.bytes = 0;
    this.pieces.length = 0;
    return text;
  }
}

/**
 * How deep the renderer walks a body looking for frozen objects: the body, its values, and the
 * items of arrays among them (a list's rows, a read's details, a state's documents). Anything
 * deeper is one `JSON.stringify`, which is faster than any walk written in JavaScript.
 */
const WALK_DEPTH = 2;

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const omitted = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** An array or plain object the renderer writes member by member (one with `toJSON` it does not). */
function walkable(value: object): boolean {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isContainer(value: unknown, depth: number, memo: JsonTextMemo | undefined): value is object {
  return (
    depth < WALK_DEPTH &&
    typeof value === 'object' &&
    value !== null &&
    !(memo !== undefined && Object.isFrozen(value)) &&
    walkable(value)
  );
}

/** A value written whole: a frozen object's kept text, or its JSON. */
function writeWhole(out: JsonTextBuilder, value: unknown, memo: JsonTextMemo | undefined): void {
  if (memo !== undefined && typeof value === 'object' && value !== null && Object.isFrozen(value)) {
    out.append(memo.of(value));
  } else {
    out.append(toJsonText(value));
  }
}

/**
 * Writes a container member by member, pausing (a `yield`) after each member once the text holds
 * `pauseAt` bytes or more; a caller that wants one text never pauses it (`pauseAt` Infinity).
 */
function* writeContainer(
  out: JsonTextBuilder,
  value: object,
  memo: JsonTextMemo | undefined,
  depth: number,
  pauseAt: number,
): Generator<void> {
  if (Array.isArray(value)) {
    out.ascii('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.ascii(',');
      const item: unknown = value[i];
      if (omitted(item)) {
        out.ascii('null');
        continue;
      }
      if (isContainer(item, depth + 1, memo)) yield* writeContainer(out, item, memo, depth + 1, pauseAt);
      else writeWhole(out, item, memo);
      if (out.bytes >= pauseAt) yield;
    }
    out.ascii(']');
    return;
  }
  out.ascii('{');
  let first = true;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (omitted(item)) continue;
    if (!first) out.ascii(',');
    first = false;
    out.append(toJsonText(key)).ascii(':');
    if (isContainer(item, depth + 1, memo)) yield* writeContainer(out, item, memo, depth + 1, pauseAt);
    else writeWhole(out, item, memo);
    if (out.bytes >= pauseAt) yield;
  }
  out.ascii('}');
}

/**
 * The JSON text of a response body, equal to `JSON.stringify(body)` (empty where that is undefined), with
 * the texts of frozen objects taken from `memo`.
 */
export function renderJson(body: unknown, memo?: JsonTextMemo): JsonText {
  const out = new JsonTextBuilder();
  if (omitted(body)) return out;
  if (isContainer(body, 0, memo))
    for (const _ of writeContainer(out, body, memo, 0, Number.POSITIVE_INFINITY));
  else writeWhole(out, body, memo);
  return out;
}

/**
 * The same text in pieces of about `pieceBytes` each, made one at a time as they are asked for:
 * for answers too large to be one string (the state of a million documents).
 */
export function* renderJsonPieces(
  body: unknown,
  memo?: JsonTextMemo,
  pieceBytes = 64 * 1024,
): Generator<string> {
  const out = new JsonTextBuilder();
  if (omitted(body)) return;
  if (isContainer(body, 0, memo)) {
    for (const _ of writeContainer(out, body, memo, 0, pieceBytes)) yield out.take();
  } else {
    writeWhole(out, body, memo);
  }
  if (out.bytes > 0) yield out.take();
}
