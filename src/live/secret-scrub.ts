/**
 * What the live tools write of a tenant's words (error messages, in the ledger, on standard
 * error) is scrubbed first: a tenant or a gateway that echoes the key ID, the secret, a token or
 * a hash back gets none of them written. The texts the run knows are secret are replaced
 * wherever they appear (any letter case); so is anything token-like, a run of 20 or more
 * letters, digits and `+_=~-` that holds both a letter and a digit (an unknown token, a key ID
 * of another form, a UUID, base64), which no finding needs word for word.
 */

export const SCRUBBED = '(redacted)';

const TOKEN_LIKE = /[A-Za-z0-9+_=~-]{20,}/g;
const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export class SecretScrubber {
  readonly #secrets = new Set<string>();
  readonly #tokenLike: boolean;
  #pattern: RegExp | undefined;

  /**
   * `tokenLike: false` replaces the known secrets only: for answers whose ids (a session's, a
   * journal entry's) are token-like and must stay readable (the MCP server's, src/mcp).
   */
  constructor({ tokenLike = true }: { tokenLike?: boolean } = {}) {
    this.#tokenLike = tokenLike;
  }

  /** Adds texts that must never be written (empty and one-character texts are ignored). */
  add(...secrets: Array<string | undefined>): this {
    for (const secret of secrets) {
      if (secret !== undefined && secret.length > 1 && !this.#secrets.has(secret)) {
        this.#secrets.add(secret);
        this.#pattern = undefined;
      }
    }
    return this;
  }

  /** `text` with every known secret and (unless told not to) every token-like run replaced by `(redacted)`. */
  text(text: string): string {
    if (this.#secrets.size > 0) {
      // Longest first, so a secret that holds another is replaced whole.
      this.#pattern ??= new RegExp(
        [...this.#secrets]
          .sort((a, b) => b.length - a.length)
          .map(escapeForPattern)
          .join('|'),
        'gi',
      );
      text = text.replace(this.#pattern, SCRUBBED);
    }
    if (!this.#tokenLike) return text;
    return text.replace(TOKEN_LIKE, (run) => (/[0-9]/.test(run) && /[A-Za-z]/.test(run) ? SCRUBBED : run));
  }

  /** Every string inside a JSON value scrubbed (keys too); other values kept. */
  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = Object.create(null);
      for (const [key, v] of Object.entries(value)) out[this.text(key)] = this.value(v);
      return out;
    }
    return value;
  }
}
