import { createHash } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';
import { serialisable } from '../controls/serialisable.js';

/**
 * A request or response body as the journal keeps it: its text while that is at most the
 * journal's body limit, else a summary (size, SHA-256 and the first bytes). Text, not the parsed
 * value: a parsed body can take twenty times its size in memory (`[{},{},...]`), a text takes its
 * size, so the journal's byte budget is what it really holds. Parsed again when the journal is read.
 */
export type KeptBody =
  | { kind: 'text'; media: BodyMedia; text: string; bytes: number }
  | { kind: 'summary'; media: BodyMedia; bytes: number; sha256: string; head: string };

/** How a kept text reads back: JSON, a form, or plain text. */
export type BodyMedia = 'json' | 'form' | 'text';

/** How much of a summarised body is kept, in bytes. */
export const SUMMARY_HEAD_BYTES = 256;

/**
 * A JSON text kept as the value it was rendered from (a body holding nothing that can change, see
 * `JsonText.replayable`: a list page's frozen rows, a read's frozen details): a few pointers
 * instead of a copy of the body. Rendered again, to the same text, when it is read.
 */
class KeptRendered {
  readonly kind = 'text';
  readonly media: BodyMedia;
  readonly bytes: number;
  readonly #value: unknown;

  constructor(value: unknown, media: BodyMedia, bytes: number) {
    this.#value = value;
    this.media = media;
    this.bytes = bytes;
  }

  get text(): string {
    return JSON.stringify(this.#value) ?? '';
  }
}

/** What the sender knows of a text already: its UTF-8 bytes, and a value that renders to it. */
export interface SentText {
  bytes?: number;
  /** A value whose `JSON.stringify` is the text, now and whenever it is read. */
  rendered?: unknown;
}

/**
 * The body as sent (a Buffer or its text), kept whole up to `limit` bytes, else summarised. A
 * text rendered from a value that cannot change is kept as that value, and its known byte length
 * is not counted again.
 */
export function keepBody(
  sent: Buffer | string,
  media: BodyMedia,
  limit: number,
  known: SentText = {},
): KeptBody {
  const bytes = typeof sent === 'string' ? (known.bytes ?? Buffer.byteLength(sent)) : sent.length;
  if (bytes <= limit) {
    if (known.rendered !== undefined) return new KeptRendered(known.rendered, media, bytes);
    return { kind: 'text', media, text: typeof sent === 'string' ? sent : sent.toString('utf8'), bytes };
  }
  return summarise(sent, media, bytes);
}

function summarise(sent: Buffer | string, media: BodyMedia, bytes: number): KeptBody {
  const buffer = typeof sent === 'string' ? Buffer.from(sent) : sent;
  return {
    kind: 'summary',
    media,
    bytes,
    sha256: createHash('sha256').update(buffer).digest('hex'),
    // A cut in the middle of a UTF-8 sequence decodes to U+FFFD: a preview, not data.
    head: buffer.subarray(0, SUMMARY_HEAD_BYTES).toString('utf8'),
  };
}

/** The same body reduced to a summary (for entries kept only as findings). */
export function slimBody(body: KeptBody): KeptBody {
  return body.kind === 'summary' ? body : summarise(body.text, body.media, body.bytes);
}

/** What a kept body costs the journal's budget, in bytes (about what it holds). */
export function keptBytes(body: KeptBody | undefined): number {
  if (body === undefined) return 0;
  // What its text would take (its UTF-8 bytes: at least its length), though it holds a value.
  if (body instanceof KeptRendered) return body.bytes;
  return body.kind === 'text' ? body.text.length : body.head.length + 96;
}

/** The summary as listed: what was sent, without the body. */
export interface BodySummary {
  truncated: true;
  bytes: number;
  sha256: string;
  head: string;
}

/** The body as the journal shows it: parsed JSON, a parsed form, text, or the summary. */
export function readBody(body: KeptBody | undefined): unknown {
  if (body === undefined) return undefined;
  if (body.kind === 'summary') {
    const summary: BodySummary = { truncated: true, bytes: body.bytes, sha256: body.sha256, head: body.head };
    return summary;
  }
  if (body.media === 'form') return { ...parseQuery(body.text) };
  if (body.media === 'json') {
    try {
      return listable(JSON.parse(body.text));
    } catch {
      return body.text;
    }
  }
  return body.text;
}

/**
 * A parsed value as it can be listed. A body nested thousands of levels deep parses fine but
 * overflows the JSON serialiser: such a value is replaced by a note, so the listing still works.
 */
function listable(value: unknown): unknown {
  return serialisable(value) ? value : '[not listed: nested too deeply to serialise]';
}

/** For listings: a body over `previewBytes` becomes a preview of its start, with its size. */
export function previewBody(
  body: KeptBody | undefined,
  previewBytes: number,
): { value: unknown; truncated: boolean; bytes: number | undefined } {
  if (body === undefined) return { value: undefined, truncated: false, bytes: undefined };
  if (body.kind === 'summary') return { value: body.head, truncated: true, bytes: body.bytes };
  if (body.bytes <= previewBytes) return { value: readBody(body), truncated: false, bytes: body.bytes };
  return { value: body.text.slice(0, SUMMARY_HEAD_BYTES), truncated: true, bytes: body.bytes };
}
