/**
 * Response bodies assembled from JSON texts made once. Rows and details are immutable (a write
 * replaces the stored object, never edits it), so the text of each is made once per object and
 * kept: a pure memo of `JSON.stringify`, holding nothing a server could see. A body is then
 * concatenated from those texts: V8 links the pieces rather than copying them, the one flat copy
 * is made when the socket writes it, and the UTF-8 length is summed from the pieces instead of
 * rescanning the whole body.
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

function toJsonText(value: object): JsonText {
  const text = JSON.stringify(value);
  return { text, bytes: Buffer.byteLength(text) };
}

const texts = new WeakMap<object, JsonText>();

/** The JSON text of an object that is never mutated, kept as long as the object lives. */
export function jsonTextOf(value: object): JsonText {
  let json = texts.get(value);
  if (json === undefined) {
    json = toJsonText(value);
    texts.set(value, json);
  }
  return json;
}

/**
 * The JSON texts of the objects serialised most recently, least recently used dropped first,
 * within `maxEntries` texts and `maxBytes` of text: for objects too many and too large to keep a
 * text beside each, such as the details of every document read, so memory stays bounded however
 * many documents are read. Owned by an instance, so it goes with it.
 */
export class RecentJsonTexts {
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

  /** Appends JSON syntax written in ASCII (braces, commas, quoted keys): one byte a character. */
  ascii(text: string): this {
    this.text += text;
    this.bytes += text.length;
    this.pieces.push(text);
    return this;
  }

  /** Appends a JSON value (a string, number, boolean or null) as JSON.stringify writes it. */
  value(value: string | number | boolean | null): this {
    const text = JSON.stringify(value);
    this.text += text;
    this.bytes += Buffer.byteLength(text);
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
}
