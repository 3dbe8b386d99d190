import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/domain/clock.js';
import { computeHash, hashMatches, MAX_TOKENS, TokenStore } from '../../src/domain/tokens.js';
import { apiError, makeFake } from '../fixtures/domain/dataset.js';

const VECTOR = 'adb7d285c09c582d25e57ab006b0a5607e317fdd90d56d782ae602f521ec6e5f';

describe('computeHash / hashMatches', () => {
  it('matches the published test vector', () => {
    expect(computeHash('secret', 'api-content-hash')).toBe(VECTOR);
  });

  const base64 = Buffer.from(VECTOR, 'hex').toString('base64');
  it.each([
    ['hex', VECTOR, true],
    ['hex', VECTOR.toUpperCase(), true],
    ['hex', `${VECTOR.slice(0, 63)}0`, false],
    ['hex', VECTOR.slice(0, 10), false],
    ['hex', base64, false],
    ['hex', '', false],
    ['base64', base64, true],
    ['base64', VECTOR, false],
    ['base64', base64.toLowerCase(), false],
    ['any', 'anything at all', true],
    ['any', '', true],
  ] as const)('%s mode: %s → %s', (encoding, given, expected) => {
    expect(hashMatches(VECTOR, given, encoding)).toBe(expected);
  });
});

describe('Clock', () => {
  it('advances, sets and resets over a real time source', () => {
    let real = 1_000_000;
    const clock = new Clock(() => real);
    expect(clock.nowSeconds()).toBe(1000);
    clock.advance(60);
    expect(clock.nowSeconds()).toBe(1060);
    expect(clock.offsetSeconds()).toBe(60);
    real += 5000;
    expect(clock.nowSeconds()).toBe(1065);
    clock.set(2_000_000_000);
    expect(clock.nowSeconds()).toBe(2_000_000_000);
    real += 1000;
    expect(clock.nowSeconds()).toBe(2_000_000_001);
    clock.reset();
    expect(clock.offsetSeconds()).toBe(0);
    expect(clock.nowMs()).toBe(real);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, 1e20, -1e20])('rejects %s without changing', (value) => {
    const clock = new Clock(() => 1_000_000);
    expect(apiError(() => clock.advance(value)).kind).toBe('invalidBody');
    expect(apiError(() => clock.set(value)).kind).toBe('invalidBody');
    expect(clock.offsetSeconds()).toBe(0);
  });
});

describe('issueToken', () => {
  const req = (over: Partial<{ keyId: string; hash: string; scope: string; content: string }> = {}) => {
    const content = over.content ?? 'some content';
    return {
      keyId: 'key-one',
      scope: 'docs_api',
      content,
      hash: computeHash('secret-one', content),
      ...over,
    };
  };

  it('issues an opaque token pair with a numeric expiry from the clock', () => {
    const { fake, clock } = makeFake({ tokenTtlSeconds: 3300 });
    const result = fake.issueToken(req());
    expect(result.success).toBe(true);
    expect(result.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(result.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(result.refresh_token).not.toBe(result.access_token);
    expect(result.expiry_time).toBe(clock.nowSeconds() + 3300);
    expect(fake.authenticate(result.access_token)).toEqual({ organizationId: 1, keyId: 'key-one' });
  });

  it.each(['docs_api', 'docs-api'])('accepts scope %s', (scope) => {
    const { fake } = makeFake();
    expect(fake.issueToken(req({ scope })).success).toBe(true);
  });

  it.each(['docs', 'DOCS_API', '', 'docs_api '])('rejects scope %j with 400', (scope) => {
    const { fake } = makeFake();
    const err = apiError(() => fake.issueToken(req({ scope })));
    expect(err.kind).toBe('invalidBody');
    expect(err.status).toBe(400);
    expect(err.message).toBe('scope must be docs_api or docs-api');
  });

  it('tells an unknown key from a hash mismatch from swapped key and secret', () => {
    const { fake } = makeFake();
    const unknown = apiError(() => fake.issueToken(req({ keyId: '0123456789abcdef0123' })));
    expect(unknown.kind).toBe('unknownKey');
    expect(unknown.status).toBe(401);
    expect(unknown.message).toContain('"01234567..."');
    expect(unknown.message).not.toContain('swapped');

    const mismatch = apiError(() => fake.issueToken(req({ hash: computeHash('wrong', 'some content') })));
    expect(mismatch.kind).toBe('hashMismatch');
    expect(mismatch.code).toBe(1000);

    const swapped = apiError(() => fake.issueToken(req({ keyId: 'secret-one' })));
    expect(swapped.kind).toBe('unknownKey');
    expect(swapped.message).toContain('swapped');
    expect(swapped.message).not.toContain('secret-one');
  });

  it('accepts upper-case hex, and replays of the same content and hash', () => {
    const { fake } = makeFake();
    const r = req();
    const first = fake.issueToken({ ...r, hash: r.hash.toUpperCase() });
    const second = fake.issueToken(r);
    expect(first.access_token).not.toBe(second.access_token);
    expect(fake.authenticate(first.access_token).organizationId).toBe(1);
    expect(fake.authenticate(second.access_token).organizationId).toBe(1);
  });

  it('follows the hashEncoding setting at run time', () => {
    const { fake } = makeFake({ hashEncoding: 'base64' });
    const r = req();
    const b64 = Buffer.from(r.hash, 'hex').toString('base64');
    expect(fake.issueToken({ ...r, hash: b64 }).success).toBe(true);
    expect(apiError(() => fake.issueToken(r)).kind).toBe('hashMismatch');
    fake.settings.hashEncoding = 'any';
    expect(fake.issueToken({ ...r, hash: 'nonsense' }).success).toBe(true);
    // The key must still exist in `any` mode.
    expect(apiError(() => fake.issueToken({ ...r, keyId: 'nope' })).kind).toBe('unknownKey');
  });

  it('binds tokens to the key organization', () => {
    const { fake } = makeFake();
    const t2 = fake.issueToken({
      ...req(),
      keyId: 'key-two',
      hash: computeHash('secret-two', 'some content'),
    });
    expect(fake.authenticate(t2.access_token)).toEqual({ organizationId: 2, keyId: 'key-two' });
  });
});

describe('authenticate', () => {
  const issue = (fake: ReturnType<typeof makeFake>['fake']) =>
    fake.issueToken({
      keyId: 'key-one',
      scope: 'docs-api',
      content: 'c',
      hash: computeHash('secret-one', 'c'),
    });

  it.each([
    [undefined, 'no access token'],
    ['', 'no access token'],
    ['not-a-token', 'unknown token'],
  ])('rejects %j: %s', (token, why) => {
    const { fake } = makeFake();
    const err = apiError(() => fake.authenticate(token));
    expect(err.kind).toBe('invalidToken');
    expect(err.code).toBe(1006);
    expect(err.message).toMatch(new RegExp(`^Invalid token: .*${why}`));
  });

  it('rejects the refresh token as an access token', () => {
    const { fake } = makeFake();
    const t = issue(fake);
    expect(apiError(() => fake.authenticate(t.refresh_token)).message).toContain('refresh token');
  });

  it('expires exactly at expiry_time on the fake clock', () => {
    const { fake, clock } = makeFake({ tokenTtlSeconds: 100 });
    const t = issue(fake);
    clock.advance(99);
    expect(fake.authenticate(t.access_token).organizationId).toBe(1);
    clock.advance(1);
    expect(clock.nowSeconds()).toBe(t.expiry_time);
    expect(apiError(() => fake.authenticate(t.access_token)).message).toBe('Invalid token: token expired');
  });

  it('revokes every token issued so far, counting the usable ones', () => {
    const { fake, clock } = makeFake({ tokenTtlSeconds: 100 });
    const old = issue(fake);
    clock.advance(200);
    const a = issue(fake);
    const b = issue(fake);
    expect(fake.revokeTokens()).toBe(2);
    for (const t of [a, b]) {
      expect(apiError(() => fake.authenticate(t.access_token)).message).toBe('Invalid token: token revoked');
    }
    expect(apiError(() => fake.authenticate(old.access_token)).kind).toBe('invalidToken');
    const fresh = issue(fake);
    expect(fake.authenticate(fresh.access_token).organizationId).toBe(1);
    expect(fake.revokeTokens()).toBe(1);
  });

  it('reset keeps tokens (clients cache them) and resets the clock; load clears both', () => {
    const { fake, clock } = makeFake();
    const t = issue(fake);
    clock.advance(10);
    fake.reset();
    expect(clock.offsetSeconds()).toBe(0);
    expect(fake.authenticate(t.access_token).organizationId).toBe(1);
    fake.load(fake.resetPoint());
    expect(apiError(() => fake.authenticate(t.access_token)).message).toBe('Invalid token: unknown token');
  });
});

describe('TokenStore bounds', () => {
  it('prunes expired tokens from the oldest end when issuing', () => {
    const store = new TokenStore();
    for (let i = 0; i < 10; i++) store.issue(1, 'k', 1000, 10);
    expect(store.size).toBe(20);
    store.issue(1, 'k', 1010, 10);
    expect(store.size).toBe(2);
  });

  it('never holds more than MAX_TOKENS', () => {
    const store = new TokenStore();
    const first = store.issue(1, 'k', 0, 1_000_000);
    for (let i = 0; i < MAX_TOKENS / 2 + 10; i++) store.issue(1, 'k', 0, 1_000_000);
    expect(store.size).toBeLessThanOrEqual(MAX_TOKENS);
    expect(() => store.check(first.accessToken, 0)).toThrow(/unknown token/);
  });
});
