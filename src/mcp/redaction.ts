import { SCRUBBED, SecretScrubber } from '../live/secret-scrub.js';

/**
 * What the MCP server hands an assistant never holds a token or a secret: an API key's secret
 * (the state, a session made with its own keys), an access or refresh token (the journal's
 * headers and token answers), an `x-hash`, the admin token. Each answer is read twice: first
 * every value under a secret's name (`secret`, `access_token`, `x-access-token`, `authorization`,
 * ...) and every such name followed by a value in a text (a kept body, a query string, a message)
 * is learned as a secret of that answer; then each of those, and the secrets known from the start
 * (the admin token), is replaced by `(redacted)` wherever it appears (`SecretScrubber`, as the live
 * tools scrub a tenant's words). Ids stay readable (a session's id is as long as a token): only
 * what is known to be secret goes.
 */

const SECRET_NAMES =
  /^(?:[\w-]*secret|access_token|refresh_token|token|x-access-token|x-api-token|x-hash|authorization|proxy-authorization|cookie|set-cookie|password|admin_?token)$/i;

/** A secret's name, then `:` or `=` (quoted or not), then its value. */
const NAMED_IN_TEXT =
  /(?:secret|access_token|refresh_token|x-access-token|x-api-token|x-hash|admin_?token)["']?\s*[:=]\s*["']?([^"'&\s,;}\]]{4,})/gi;
const BEARER = /\b(?:Bearer|Basic)\s+([^\s"',;]{4,})/gi;

export class Redaction {
  readonly #known: string[];

  /** `known`: secrets to take out of every answer (the admin token). */
  constructor(known: Array<string | undefined> = []) {
    this.#known = known.filter((s): s is string => s !== undefined && s.length > 1);
  }

  #scrubberFor(learned: Set<string>): SecretScrubber {
    return new SecretScrubber({ tokenLike: false }).add(...this.#known, ...learned);
  }

  /** A JSON value with every secret replaced. */
  value(value: unknown): unknown {
    const learned = new Set<string>();
    const masked = mask(value, learned);
    return this.#scrubberFor(learned).value(masked);
  }

  /** A text (a Markdown report, an error message) with every secret replaced. */
  text(text: string): string {
    const learned = new Set<string>();
    learnFromText(text, learned);
    return this.#scrubberFor(learned).text(text);
  }
}

function learnFromText(text: string, learned: Set<string>): void {
  for (const pattern of [NAMED_IN_TEXT, BEARER]) {
    for (const match of text.matchAll(pattern)) if (match[1] !== undefined) learned.add(match[1]);
  }
}

/** `value` with the values under secrets' names replaced, learning each (and those named in texts). */
function mask(value: unknown, learned: Set<string>): unknown {
  if (typeof value === 'string') {
    learnFromText(value, learned);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => mask(v, learned));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, inner] of Object.entries(value)) {
    if (SECRET_NAMES.test(key) && inner !== null && inner !== undefined && typeof inner !== 'object') {
      const text = String(inner);
      if (text.length > 1) learned.add(text);
      out[key] = SCRUBBED;
    } else if (SECRET_NAMES.test(key) && Array.isArray(inner)) {
      for (const item of inner) if (typeof item === 'string' && item.length > 1) learned.add(item);
      out[key] = inner.map(() => SCRUBBED);
    } else out[key] = mask(inner, learned);
  }
  return out;
}
