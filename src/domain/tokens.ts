/**
 * Hashing of token requests and the store of issued tokens.
 *
 * `x-hash` is HMAC-SHA256 keyed with the secret access key over the exact `content` string; the
 * live service's clients send it as lower-case hex. Comparisons are constant-time.
 *
 * Tokens are opaque random strings bound to the key's organization. A refresh token is issued
 * with every access token but is never accepted as an access token (the service documents no
 * refresh call). The store prunes expired tokens from its oldest end on every issue and holds at
 * most `MAX_TOKENS` entries (oldest dropped first), so it cannot grow without bound. Every token
 * held counts `TOKEN_BYTES` against the `tokens` share of the server's memory budget: when an
 * issue would pass it, every expired token of the store is dropped first, and if that frees too
 * little the call is refused (429 `memoryBudget`), never a live token taken away.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { MemoryAccount } from '../memory-budget.js';

/** Lower-case hex HMAC-SHA256 of `content` keyed with `secret`. */
export function computeHash(secret: string, content: string): string {
  return createHmac('sha256', secret).update(content, 'utf8').digest('hex');
}

/**
 * Whether `given` is the digest `expectedHex` in the configured encoding: `hex` (either case),
 * `base64` (the same digest, standard base64 with padding), or `any` (no check).
 */
export function hashMatches(expectedHex: string, given: string, encoding: 'hex' | 'base64' | 'any'): boolean {
  if (encoding === 'any') return true;
  if (typeof given !== 'string') return false;
  const expected =
    encoding === 'hex' ? expectedHex.toLowerCase() : Buffer.from(expectedHex, 'hex').toString('base64');
  const candidate = encoding === 'hex' ? given.toLowerCase() : given;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(candidate, 'utf8');
  if (a.length !== b.length) {
    // Still spend a comparison so a wrong length costs about as much as a wrong digest.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

/** What a token stands for. */
export interface TokenGrant {
  organizationId: number;
  keyId: string;
  /** Unix seconds; the token is expired when the clock reads this value or later. */
  expiry: number;
  kind: 'access' | 'refresh';
  revoked: boolean;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  expiry: number;
}

/** Most tokens (access and refresh together) kept at once. */
export const MAX_TOKENS = 100_000;

/**
 * What one token held costs the budget, in bytes of it as JSON: the token, its grant (organization,
 * key ID, expiry, kind, revoked) and its place in the store's map and a session's routing table.
 */
export const TOKEN_BYTES = 160;

/** What every token this process issues starts with: a fleet replica's `f<ordinal>-`, else nothing. */
let tokenMark = '';

/**
 * Makes every token issued from now on start with `mark` (a fleet replica names itself so, and
 * any replica then knows which one a token at the root URL belongs to). One process is one replica.
 */
export function markIssuedTokens(mark: string): void {
  tokenMark = mark;
}

function newToken(): string {
  return tokenMark + randomBytes(32).toString('base64url');
}

/**
 * Told of every token the store starts or stops holding (issued, pruned, cleared, replaced), so
 * something outside the domain can keep an index of them in step (a session's routing table).
 */
export interface TokenObserver {
  added(token: string): void;
  removed(token: string): void;
}

export class TokenStore {
  /** Insertion-ordered, so the oldest tokens come first. */
  readonly #grants = new Map<string, TokenGrant>();
  #observer: TokenObserver | undefined;
  readonly #budget: MemoryAccount | undefined;
  /** Bytes counted in the budget for the tokens held. */
  #counted = 0;
  /** No token held expires before this (a lower bound: a full sweep before it finds nothing). */
  #earliestExpiry = Number.POSITIVE_INFINITY;

  constructor(budget?: MemoryAccount) {
    this.#budget = budget;
  }

  /** Starts telling `observer` of tokens added and removed from now on (undefined: nobody). */
  observe(observer: TokenObserver | undefined): void {
    this.#observer = observer;
  }

  issue(organizationId: number, keyId: string, nowSeconds: number, ttlSeconds: number): IssuedTokens {
    this.#prune(nowSeconds);
    this.#makeRoom(2 * TOKEN_BYTES, nowSeconds);
    const expiry = nowSeconds + ttlSeconds;
    const accessToken = newToken();
    const refreshToken = newToken();
    this.#grants.set(accessToken, { organizationId, keyId, expiry, kind: 'access', revoked: false });
    this.#grants.set(refreshToken, { organizationId, keyId, expiry, kind: 'refresh', revoked: false });
    this.#count(2 * TOKEN_BYTES);
    if (expiry < this.#earliestExpiry) this.#earliestExpiry = expiry;
    this.#observer?.added(accessToken);
    this.#observer?.added(refreshToken);
    return { accessToken, refreshToken, expiry };
  }

  /** The grant of a usable access token; throws `invalidToken` naming why it is not usable. */
  check(token: string | undefined, nowSeconds: number): TokenGrant {
    if (typeof token !== 'string' || token.length === 0) {
      throw new ApiError('invalidToken', 'Invalid token: no access token sent');
    }
    const grant = this.#grants.get(token);
    if (!grant) throw new ApiError('invalidToken', 'Invalid token: unknown token');
    if (grant.kind === 'refresh') {
      throw new ApiError(
        'invalidToken',
        'Invalid token: a refresh token cannot be used as an access token',
        undefined,
        'refreshTokenUsed',
      );
    }
    if (grant.revoked)
      throw new ApiError('invalidToken', 'Invalid token: token revoked', undefined, 'tokenRevoked');
    if (nowSeconds >= grant.expiry)
      throw new ApiError('invalidToken', 'Invalid token: token expired', undefined, 'tokenExpired');
    return grant;
  }

  /** The grant of a token held, usable or not (undefined when unknown). */
  grantOf(token: string): Readonly<TokenGrant> | undefined {
    return this.#grants.get(token);
  }

  /** Ends an access token now (its next use answers expired); answers its grant, or undefined when unknown. */
  expire(token: string, nowSeconds: number): Readonly<TokenGrant> | undefined {
    const grant = this.#grants.get(token);
    if (grant?.kind !== 'access') return undefined;
    grant.expiry = Math.min(grant.expiry, nowSeconds);
    return grant;
  }

  /** Revokes every token issued so far; returns how many access tokens were still usable. */
  revokeAll(nowSeconds: number): number {
    let live = 0;
    for (const grant of this.#grants.values()) {
      if (grant.kind === 'access' && !grant.revoked && nowSeconds < grant.expiry) live++;
      grant.revoked = true;
    }
    return live;
  }

  clear(): void {
    const observer = this.#observer;
    if (observer) for (const token of this.#grants.keys()) observer.removed(token);
    this.#grants.clear();
    this.#count(-this.#counted);
    this.#earliestExpiry = Number.POSITIVE_INFINITY;
  }

  /** Gives the tokens' bytes back to the budget (the instance is going away). */
  dispose(): void {
    this.#count(-this.#counted);
  }

  /** Bytes the tokens held count in the budget. */
  get bytes(): number {
    return this.#counted;
  }

  /** The tokens held (access and refresh), oldest first. */
  tokens(): IterableIterator<string> {
    return this.#grants.keys();
  }

  /** Every token held with its live grant, oldest first (serialise each as it comes; never mutate). */
  live(): IterableIterator<[string, Readonly<TokenGrant>]> {
    return this.#grants.entries();
  }

  /** Replaces the tokens held with `entries` (read back from a state file). */
  replace(entries: ReadonlyArray<readonly [string, TokenGrant]>): void {
    this.clear();
    for (const [token, grant] of entries.slice(-MAX_TOKENS)) {
      this.#grants.set(token, { ...grant });
      this.#observer?.added(token);
      if (grant.expiry < this.#earliestExpiry) this.#earliestExpiry = grant.expiry;
    }
    // Read back at start: counted, never refused (they were issued before).
    this.#count(this.#grants.size * TOKEN_BYTES);
  }

  /** Tokens held (access and refresh, including expired ones not pruned yet). */
  get size(): number {
    return this.#grants.size;
  }

  /**
   * Drops expired tokens from the oldest end and the oldest tokens beyond the cap. Amortised
   * O(1) per issue: every token is deleted at most once.
   */
  #prune(nowSeconds: number): void {
    for (const [token, grant] of this.#grants) {
      if (nowSeconds < grant.expiry && this.#grants.size < MAX_TOKENS - 1) break;
      this.#delete(token);
    }
  }

  /**
   * Throws `memoryBudget` unless `bytes` more fit the budget, after dropping every expired token
   * held when they do not (at most one sweep until a token held can have expired).
   */
  #makeRoom(bytes: number, nowSeconds: number): void {
    const budget = this.#budget;
    if (!budget || budget.fits('tokens', bytes)) return;
    if (nowSeconds >= this.#earliestExpiry) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const [token, grant] of this.#grants) {
        if (nowSeconds >= grant.expiry) this.#delete(token);
        else if (grant.expiry < earliest) earliest = grant.expiry;
      }
      this.#earliestExpiry = earliest;
      if (budget.fits('tokens', bytes)) return;
    }
    throw budget.refusal('tokens', bytes);
  }

  #delete(token: string): void {
    this.#grants.delete(token);
    this.#observer?.removed(token);
    this.#count(-TOKEN_BYTES);
  }

  #count(bytes: number): void {
    this.#counted += bytes;
    this.#budget?.add('tokens', bytes);
  }
}
