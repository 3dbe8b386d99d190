import { createHmac } from 'node:crypto';

/**
 * Deterministic redaction of a captured organization's texts: each text is replaced by a stand-in
 * of the same shape (the same length, each character replaced by one of its class: lower-case,
 * upper-case, digit, accented letter, CJK, kana; spaces, punctuation and HTML entities such as
 * `&#039;` kept as they are). The same text gets the same stand-in within one capture (a vendor
 * named in forty documents stays one vendor), chosen by an HMAC under a salt the capture makes and
 * forgets when it finishes, so a stand-in does not lead back to its text.
 */

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';
const ACCENTED = 'àáâäçèéêëìíîïñòóôöùúûü';
const ACCENTED_UPPER = ACCENTED.toUpperCase();

/** A character class: the characters a stand-in draws from, by code point range or list. */
function classOf(ch: string): string | [number, number] | undefined {
  if (/[a-z]/.test(ch)) return LOWER;
  if (/[A-Z]/.test(ch)) return UPPER;
  if (/[0-9]/.test(ch)) return DIGITS;
  const code = ch.codePointAt(0) ?? 0;
  if (code >= 0x3041 && code <= 0x3096) return [0x3041, 0x3096];
  if (code >= 0x30a1 && code <= 0x30fa) return [0x30a1, 0x30fa];
  if (code >= 0x4e00 && code <= 0x9fff) return [0x4e00, 0x9fff];
  if (/\p{Ll}/u.test(ch)) return ACCENTED;
  if (/\p{Lu}/u.test(ch)) return ACCENTED_UPPER;
  if (/\p{L}|\p{N}/u.test(ch)) return [0x4e00, 0x9fff];
  return undefined;
}

const ENTITY = /&(#\d+|#x[0-9a-f]+|[a-z]+);/giy;

export class Redactor {
  readonly #salt: string;
  readonly #seen = new Map<string, string>();

  constructor(salt: string) {
    this.#salt = salt;
  }

  /** The stand-in of `text`: same length, same character classes, entities and punctuation kept. */
  text(text: string): string {
    const known = this.#seen.get(text);
    if (known !== undefined) return known;
    const stream = this.#stream(text);
    let out = '';
    for (let i = 0; i < text.length; ) {
      ENTITY.lastIndex = i;
      const entity = ENTITY.exec(text);
      if (entity !== null) {
        out += entity[0];
        i += entity[0].length;
        continue;
      }
      const ch = String.fromCodePoint(text.codePointAt(i) ?? 0);
      out += this.#replace(ch, stream);
      i += ch.length;
    }
    if (out === text) out = this.#differ(text, out);
    this.#seen.set(text, out);
    return out;
  }

  /** Every string inside a JSON value replaced, keys and everything else kept. */
  strings(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.strings(v));
    return value;
  }

  #replace(ch: string, stream: () => number): string {
    const kind = classOf(ch);
    if (kind === undefined) return ch;
    if (typeof kind === 'string') return kind[stream() % kind.length] ?? ch;
    const [low, high] = kind;
    return String.fromCodePoint(low + (stream() % (high - low + 1)));
  }

  /** A stand-in that came out equal to its text (a one-letter text can): its first letter moved on. */
  #differ(text: string, out: string): string {
    for (let i = 0; i < out.length; i += 1) {
      const kind = classOf(out[i] ?? '');
      if (typeof kind === 'string') {
        const next = kind[(kind.indexOf(out[i] ?? '') + 1) % kind.length] ?? '';
        return out.slice(0, i) + next + out.slice(i + 1);
      }
    }
    return text;
  }

  /** Numbers drawn from HMAC-SHA256(salt, text), extended by counter blocks as needed. */
  #stream(text: string): () => number {
    let block = 0;
    let bytes = Buffer.alloc(0);
    let at = 0;
    return () => {
      if (at + 2 > bytes.length) {
        bytes = createHmac('sha256', this.#salt).update(`${block}\u0000${text}`).digest();
        block += 1;
        at = 0;
      }
      const n = bytes.readUInt16BE(at);
      at += 2;
      return n;
    };
  }
}
