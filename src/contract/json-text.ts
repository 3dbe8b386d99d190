/**
 * Rendering a response body as JSON, reusing the encoded texts of frozen objects. A frozen object
 * is one whose text never changes (list rows, and stored details once read: a write replaces them,
 * never edits them, so freeze only what is immutable all the way down), so its JSON is made and
 * encoded to UTF-8 once and kept by identity in a bounded memo owned by the instance.
 *
 * An answer is sent as bytes (`renderJsonBytes`): the memo's encoded texts and a little syntax
 * copied into one buffer, which the socket writes as it is. Sending a text instead costs a copy to
 * flatten the concatenated pieces and a UTF-8 encoding of the whole body on every request, the
 * largest part of a list answer's cost. Answers too large for one buffer are rendered as texts in
 * pieces (`renderJsonPieces`). Either way the output equals `JSON.stringify(body)`: the memo
 * changes what it costs, never what it is.
 */

import { LRUCache } from 'lru-cache';

/** A JSON text and its length in UTF-8 bytes. */
export interface JsonText {
  text: string;
  bytes: number;
}

/** A JSON text encoded in UTF-8, as the memo keeps it. */
export interface JsonBytes {
  readonly buffer: Buffer;
}

/** A rendered answer: its UTF-8 bytes, and whether the body can be rendered again later. */
export interface RenderedJson {
  buffer: Buffer;
  /**
   * The body holds nothing that can change: every value the renderer did not walk itself is a
   * primitive or a frozen object (frozen means immutable all the way down, see above). Such a
   * body renders to the same text at any later time, so a reader that wants the text later (the
   * journal) may keep the body instead of the text.
   */
  replayable: boolean;
}

/** Where a renderer finds the encoded texts of frozen objects and member names. */
export interface JsonTextMemo {
  of(value: object): JsonBytes;
  /** The JSON of a member name (a body's few names recur in every answer). */
  key(name: string): JsonBytes;
}

function toJsonText(value: unknown): JsonText {
  // Like JSON.stringify in an array: what has no JSON form is null.
  const text = JSON.stringify(value) ?? 'null';
  return { text, bytes: Buffer.byteLength(text) };
}

const toJsonBytes = (value: unknown): JsonBytes => ({ buffer: Buffer.from(JSON.stringify(value) ?? 'null') });

/** How many member names a memo keeps the texts of, and the longest name it keeps. */
const NAMES_KEPT = 256;
const NAME_LENGTH_KEPT = 64;

/**
 * The encoded JSON texts of the frozen objects rendered most recently, least recently used dropped
 * first, within `maxEntries` texts and `maxBytes` of bytes, so memory stays bounded however many
 * documents are listed or read. Owned by an instance, so it goes with it.
 */
export class RecentJsonTexts implements JsonTextMemo {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  /**
   * Made on first use: the cache allocates its tables for `maxEntries` up front, which an
   * instance that never answers a read (a session made for one test) should not pay for.
   */
  #texts: LRUCache<object, JsonBytes> | undefined;
  /** Member names seen first, up to `NAMES_KEPT` of them (the vendor's bodies use a few dozen). */
  readonly #names = new Map<string, JsonBytes>();

  constructor(maxEntries: number, maxBytes: number) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  of(value: object): JsonBytes {
    this.#texts ??= new LRUCache<object, JsonBytes>({
      max: this.#maxEntries,
      maxSize: this.#maxBytes,
      // A text larger than the whole budget is made and sent, just not kept.
      sizeCalculation: (json) => Math.max(1, json.buffer.length),
    });
    let json = this.#texts.get(value);
    if (json === undefined) {
      json = toJsonBytes(value);
      if (json.buffer.length <= this.#maxBytes) this.#texts.set(value, json);
    }
    return json;
  }

  key(name: string): JsonBytes {
    let json = this.#names.get(name);
    if (json === undefined) {
      json = toJsonBytes(name);
      if (this.#names.size < NAMES_KEPT && name.length <= NAME_LENGTH_KEPT) this.#names.set(name, json);
    }
    return json;
  }

  get size(): number {
    return this.#texts?.size ?? 0;
  }
}

/** What the walk writes to: a text (`JsonTextBuilder`) or bytes (`JsonBytesBuilder`). */
interface JsonOut {
  /** UTF-8 bytes written so far (since the last `take`). */
  readonly bytes: number;
  /** No value written so far can change after rendering (see `RenderedJson.replayable`). */
  replayable: boolean;
  /** JSON syntax written in ASCII (braces, commas). */
  ascii(text: string): void;
  /** A value's JSON, made now. */
  json(json: JsonText): void;
  /** An encoded text kept by the memo. */
  encoded(json: JsonBytes): void;
}

/** Concatenates JSON texts, counting their UTF-8 bytes as it goes. */
export class JsonTextBuilder implements JsonOut {
  text = '';
  bytes = 0;
  replayable = true;

  ascii(text: string): void {
    this.text += text;
    this.bytes += text.length;
  }

  json(json: JsonText): void {
    this.text += json.text;
    this.bytes += json.bytes;
  }

  encoded(json: JsonBytes): void {
    this.text += json.buffer.toString('utf8');
    this.bytes += json.buffer.length;
  }

  /** The text so far, the builder emptied. */
  take(): string {
    const { text } = this;
    this.text = '';
    this.bytes = 0;
    return text;
  }
}

/** The syntax the walk writes, encoded once. */
const SYNTAX = new Map(['{', '}', '[', ']', ',', ':', 'null'].map((s) => [s, Buffer.from(s, 'latin1')]));

/** Collects encoded pieces, copied into one buffer at the end. */
class JsonBytesBuilder implements JsonOut {
  readonly parts: Buffer[] = [];
  bytes = 0;
  replayable = true;

  ascii(text: string): void {
    const buffer = SYNTAX.get(text) ?? Buffer.from(text, 'latin1');
    this.parts.push(buffer);
    this.bytes += buffer.length;
  }

  json(json: JsonText): void {
    this.parts.push(Buffer.from(json.text));
    this.bytes += json.bytes;
  }

  encoded(json: JsonBytes): void {
    this.parts.push(json.buffer);
    this.bytes += json.buffer.length;
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
function writeWhole(out: JsonOut, value: unknown, memo: JsonTextMemo | undefined): void {
  if (typeof value !== 'object' || value === null) {
    out.json(toJsonText(value));
  } else if (!Object.isFrozen(value)) {
    out.replayable = false;
    out.json(toJsonText(value));
  } else if (memo === undefined) {
    out.json(toJsonText(value));
  } else {
    out.encoded(memo.of(value));
  }
}

/** A member's name as JSON, from the memo's table of names when there is one. */
function writeKey(out: JsonOut, name: string, memo: JsonTextMemo | undefined): void {
  if (memo === undefined) out.json(toJsonText(name));
  else out.encoded(memo.key(name));
}

/**
 * Writes a container member by member, pausing (a `yield`) after each member once the output holds
 * `pauseAt` bytes or more; a caller that wants it whole never pauses it (`pauseAt` Infinity).
 */
function* writeContainer(
  out: JsonOut,
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
    writeKey(out, key, memo);
    out.ascii(':');
    if (isContainer(item, depth + 1, memo)) yield* writeContainer(out, item, memo, depth + 1, pauseAt);
    else writeWhole(out, item, memo);
    if (out.bytes >= pauseAt) yield;
  }
  out.ascii('}');
}

/** Writes the whole body to `out` (nothing where `JSON.stringify` gives undefined). */
function writeBody(out: JsonOut, body: unknown, memo: JsonTextMemo | undefined): void {
  if (omitted(body)) return;
  if (isContainer(body, 0, memo))
    for (const _ of writeContainer(out, body, memo, 0, Number.POSITIVE_INFINITY));
  else writeWhole(out, body, memo);
}

/**
 * The JSON text of a response body, equal to `JSON.stringify(body)` (empty where that is undefined), with
 * the texts of frozen objects taken from `memo`.
 */
export function renderJson(body: unknown, memo?: JsonTextMemo): JsonText & { replayable: boolean } {
  const out = new JsonTextBuilder();
  writeBody(out, body, memo);
  return { bytes: out.bytes, replayable: out.replayable, text: out.take() };
}

/** The same JSON as UTF-8 bytes, in one buffer: what the sender writes to the socket. */
export function renderJsonBytes(body: unknown, memo?: JsonTextMemo): RenderedJson {
  const out = new JsonBytesBuilder();
  writeBody(out, body, memo);
  return { buffer: Buffer.concat(out.parts, out.bytes), replayable: out.replayable };
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
