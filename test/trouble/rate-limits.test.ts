/**
 * Rate limits as a client meets them: 429 in the vendor's shape with a Retry-After it can honour,
 * the X-RateLimit headers on every answer under a limit, windows on the fake's clock, counted per
 * key, token or instance; a reset clears them; journaled and counted as a behaviour.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitList } from '../../src/harness/controls/rate-limits.js';
import { MemoryBudget } from '../../src/memory-budget.js';
import { ACME_KEY, createTestServer, OTHER_KEY, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.mock.close());
beforeEach(() => {
  server.mock.reset();
  server.mock.clearReport();
});

const list = (token: string) => server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);

describe('rate limits', () => {
  it('answer 429 with Retry-After past the limit, and the same request succeeds once the clock moves on', async () => {
    const token = await server.token();
    const created = await server.http
      .post('/__admin/rate-limits')
      .send({ per: 'token', limit: 2, windowSeconds: 30 });
    expect(created.status).toBe(201);
    const first = await list(token);
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    expect((await list(token)).headers['x-ratelimit-remaining']).toBe('0');
    const refused = await list(token);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: false, status: 429, code: 0 });
    expect(typeof refused.body.apiRequestUid).toBe('string');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(30);
    await server.http.post('/__admin/clock').send({ advanceSeconds: retryAfter }).expect(200);
    const again = await list(token);
    expect(again.status).toBe(200);
    expect(again.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('count each API key apart: the token call by its x-key, other calls by the key of their token', async () => {
    await server.http
      .post('/__admin/rate-limits')
      .send({ per: 'key', limit: 2, windowSeconds: 60 })
      .expect(201);
    const acme = await server.token(ACME_KEY); // 1 of acme's 2
    expect((await list(acme)).status).toBe(200); // 2 of 2
    expect((await list(acme)).status).toBe(429);
    const other = await server.token(OTHER_KEY);
    expect((await list(other)).status).toBe(200);
    const [limit] = (await server.http.get('/__admin/rate-limits')).body.rateLimits;
    expect(limit).toMatchObject({
      per: 'key',
      limit: 2,
      windowSeconds: 60,
      counted: 4,
      refused: 1,
      subjects: 2,
    });
  });

  it('match by method and path, leave other requests alone, and are gone after a reset', async () => {
    const token = await server.token();
    await server.http
      .post('/__admin/rate-limits')
      .send({ per: 'instance', limit: 1, windowSeconds: 60, method: 'get', path: '/api/v2/documents' })
      .expect(201);
    expect((await list(token)).status).toBe(200);
    const clients = await server.http.get('/api/v2/documents/clients').set('x-access-token', token);
    expect(clients.status).toBe(200);
    expect(clients.headers['x-ratelimit-limit']).toBeUndefined();
    expect((await list(token)).status).toBe(429);
    await server.http.post('/__admin/reset').expect(200);
    expect((await server.http.get('/__admin/rate-limits')).body.rateLimits).toEqual([]);
    expect((await list(token)).status).toBe(200);
  });

  it('are removed one by one or all at once; an unknown id is a 404', async () => {
    const a = (
      await server.http.post('/__admin/rate-limits').send({ per: 'instance', limit: 1, windowSeconds: 5 })
    ).body.id;
    await server.http.post('/__admin/rate-limits').send({ per: 'token', limit: 1, windowSeconds: 5 });
    await server.http.delete(`/__admin/rate-limits/${a}`).expect(200);
    await server.http.delete(`/__admin/rate-limits/${a}`).expect(404);
    expect((await server.http.get('/__admin/rate-limits')).body.rateLimits).toHaveLength(1);
    await server.http.delete('/__admin/rate-limits').expect(200);
    expect((await server.http.get('/__admin/rate-limits')).body.rateLimits).toEqual([]);
  });

  it('refuse a bad limit with a 400 naming the field', async () => {
    const res = await server.http
      .post('/__admin/rate-limits')
      .send({ per: 'ip', limit: 0, windowSeconds: 5 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain('body/per');
  });

  it('are journaled as error.rateLimited and counted in coverage', async () => {
    const token = await server.token();
    await server.mock.addRateLimit({ per: 'instance', limit: 1, windowSeconds: 60 });
    await list(token);
    await list(token);
    const entries = await server.mock.requests({ status: 429 });
    expect(entries).toHaveLength(1);
    expect(entries[0]?.behaviours).toContain('error.rateLimited');
    const report = await server.mock.report();
    const exercised = report.behaviours.find((b: { id: string }) => b.id === 'error.rateLimited');
    expect(exercised?.count).toBe(1);
  });

  it('apply to a session apart from the root', async () => {
    const session = (await server.http.post('/__admin/sessions').send({})).body;
    const prefix = new URL(session.baseUrl).pathname;
    await server.http
      .post(`${prefix}/__admin/rate-limits`)
      .send({ per: 'session', limit: 1, windowSeconds: 60 });
    const token = await server.token();
    expect((await list(token)).headers['x-ratelimit-limit']).toBeUndefined();
    expect((await server.http.get(`${prefix}/api/v2/documents/9`)).headers['x-ratelimit-remaining']).toBe(
      '0',
    );
    expect((await server.http.get(`${prefix}/api/v2/documents/9`)).status).toBe(429);
  });
});

describe('rate limit counters in the memory budget', () => {
  it('are counted, stay within their share (the least recent dropped first) and are given back when cleared', () => {
    const budget = new MemoryBudget({ memoryBudget: 200_000, sessionFixturesBytes: 1_000_000 });
    const limits = new RateLimitList(budget);
    limits.add({ per: 'token', limit: 1, windowSeconds: 60 });
    for (let i = 0; i < 500; i++)
      limits.take('GET', '/api/v2/documents', { key: undefined, token: `token-${i}`.padEnd(43, 'x') }, 1_000);
    const [view] = limits.list();
    expect(budget.used('counters')).toBeGreaterThan(0);
    expect(budget.used('counters')).toBeLessThanOrEqual(budget.limit('counters'));
    expect(budget.used('counters')).toBe(limits.bytes);
    expect(view?.subjects).toBeLessThan(500);
    expect(view?.counted).toBe(500);
    // The newest token is still counted: its second request in the window is refused.
    expect(
      limits.take('GET', '/api/v2/documents', { key: undefined, token: 'token-499'.padEnd(43, 'x') }, 2_000)
        ?.retryAfter,
    ).toBe(59);
    limits.clear();
    expect(budget.used('counters')).toBe(0);
  });
});
