import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, pickSettings } from '../../src/config.js';
import { Fake } from '../../src/domain/fake.js';
import { loadFixtureSource } from '../../src/domain/fixtures/load-fixtures.js';
import { computeHash, TOKEN_BYTES } from '../../src/domain/tokens.js';
import type { MockServer } from '../../src/index.js';
import { MemoryBudget } from '../../src/memory-budget.js';
import { ACME_KEY, createTestServer, SMALL_SET, type TestServer } from '../support/test-server.js';

/**
 * What one request can leave behind is bounded, and tokens count in the budget:
 * - a single-document PATCH's error answer lists the first 100 problems and counts the rest, as
 *   a batch's does (one implementation: `capViolations`), and names at most ten keys;
 * - the journal and the report keep the first 100 violations and 100 notices of a request, then
 *   counts, each location and message cut to a bounded length;
 * - every token held counts in the `tokens` share of the memory budget; at the share, expired
 *   tokens make room, and otherwise the token call is refused with 429 in the vendor's shape,
 *   never a live token taken away (docs/budgets.md).
 */

let servers: MockServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function server(options: Parameters<typeof createTestServer>[0] = {}): Promise<TestServer> {
  const t = await createTestServer(options);
  servers.push(t.mock);
  return t;
}

const unknownKeys = (count: number, name = (i: number) => `no-such-key-${i}`) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [name(i), {}]));

interface ErrorAnswer {
  message: string;
  errors: Array<{ location: string; message: string }>;
}

describe('what one request leaves behind', () => {
  it('a PATCH with 20,000 unknown detail keys answers the first 100 problems and a count, as a batch does', async () => {
    const t = await server();
    const token = await t.token();
    const res = await t.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send(unknownKeys(20_000));
    expect(res.status).toBe(400);
    const body = res.body as ErrorAnswer;
    expect(body.errors).toHaveLength(101);
    expect(body.errors[0]).toEqual({
      location: 'body/no-such-key-0',
      message:
        'unknown detail key "no-such-key-0": not a field of the template and not stored on the document',
    });
    expect(body.errors[100]).toEqual({
      location: 'body',
      message: 'and 19900 more problems (the first 100 are listed)',
    });
    expect(body.message).toMatch(/^unknown detail keys "no-such-key-0", .*"no-such-key-9" and 19990 more: /);
    expect(res.text.length).toBeLessThan(20_000);

    // The batch path answers the same way (the same function).
    const batch = await t.http
      .patch('/api/v2/documents')
      .set('x-access-token', token)
      .send([{ id: 101101, templateUid: 'tpl-5001', title: 'T', details: unknownKeys(500) }]);
    expect(batch.status).toBe(400);
    expect((batch.body as ErrorAnswer).errors).toHaveLength(101);
    expect((batch.body as ErrorAnswer).errors[100]?.message).toBe(
      'and 400 more problems (the first 100 are listed)',
    );
  });

  it('a key of 100,000 characters is cut in the answer, the journal and the report', async () => {
    const t = await server();
    const token = await t.token();
    const long = 'k'.repeat(100_000);
    const res = await t.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send({ [long]: {} });
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(6_000);
    const [finding] = await t.mock.violations();
    const violation = finding?.violations[0];
    expect(violation?.location.length).toBeLessThan(1_100);
    expect(violation?.location.startsWith(`body/${'k'.repeat(995)}\u2026 (100005 characters)`)).toBe(true);
    expect(violation?.message.length).toBeLessThan(1_100);
  });

  it('the journal and the report keep the first 100 violations and 100 notices of a request, then counts', async () => {
    const t = await server();
    const token = await t.token();
    await t.http.patch('/api/v2/documents/101101').set('x-access-token', token).send(unknownKeys(5_000));
    const fields = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`extra${i}`, 1]));
    const created = await t.http
      .post('/api/v2/documents')
      .set('x-access-token', token)
      .send({ templateUid: 'tpl-5001', title: 'Many fields', ...fields });
    expect(created.status).toBe(200);

    const [violating] = await t.mock.violations();
    expect(violating?.violations).toHaveLength(101);
    expect(violating?.violations[100]?.message).toBe('and 4900 more problems (the first 100 are listed)');
    const [noticed] = await t.mock.notices();
    expect(noticed?.notices).toHaveLength(101);
    expect(noticed?.notices[100]).toEqual({
      code: 'batchFieldIgnored',
      location: 'request',
      message: 'and 4900 more batchFieldIgnored notices (the first 100 notices of the request are listed)',
    });
    const report = await t.mock.report();
    expect(report.violations[0]?.violations).toHaveLength(101);
    expect(report.notices[0]?.notices).toHaveLength(101);
    expect(report.summary.noticeCodes).toEqual({ batchFieldIgnored: 1 });
    const usage = t.mock.memory.report().kinds;
    expect(usage.findings?.used).toBeGreaterThan(0);
    expect(usage.findings?.used).toBeLessThan(60_000);
  });

  it('report findings past the findings share are dropped, notices first, and counted', async () => {
    // A budget of 2 MB: the findings' share is 200 kB, about ten requests of 100 long violations.
    const t = await server({ memoryBudget: 2_000_000 });
    const token = await t.token();
    const long = (i: number) => `${'x'.repeat(900)}-${i}`;
    await t.http.get('/api/v2/documents').set('x-access-token', token);
    for (let i = 0; i < 30; i++)
      await t.http
        .patch('/api/v2/documents/101101')
        .set('x-access-token', token)
        .send(unknownKeys(150, long));
    const usage = t.mock.memory.report().kinds.findings;
    expect(usage?.used).toBeLessThanOrEqual(usage?.limit ?? 0);
    const report = await t.mock.report();
    expect(report.summary.violatingRequests).toBe(30);
    expect(report.summary.requestsWithNotices).toBe(1);
    // The notice went first; then the oldest violations, counted.
    expect(report.summary.noticesNotListed).toBe(1);
    expect(report.summary.violationsNotListed).toBeGreaterThan(0);
    expect(report.violations.length + report.summary.violationsNotListed).toBe(30);
    expect(await t.mock.report('markdown')).toContain('❌ 30 requests broke the contract');
  });
});

describe('issued tokens in the memory budget', () => {
  it('30,000 token calls show in the budget, and giving the instance up gives them back', async () => {
    const { dataset } = await loadFixtureSource(SMALL_SET);
    const budget = new MemoryBudget({ memoryBudget: 1_000_000_000, sessionFixturesBytes: 256 * 1024 * 1024 });
    const fake = new Fake(dataset, pickSettings(DEFAULT_OPTIONS), undefined, budget);
    const content = 'c';
    const request = {
      keyId: ACME_KEY.keyId,
      hash: computeHash(ACME_KEY.secret, content),
      scope: 'docs_api',
      content,
    };
    for (let i = 0; i < 30_000; i++) fake.issueToken(request);
    expect(budget.used('tokens')).toBe(30_000 * 2 * TOKEN_BYTES);
    fake.dispose();
    expect(budget.used('tokens')).toBe(0);
  });

  it('at the tokens share: expired tokens make room, otherwise 429 memoryBudget in the vendor shape and live tokens stay', async () => {
    // 100 kB of budget: the tokens' share (10 %) holds 31 token calls.
    const t = await server({ memoryBudget: 100_000 });
    const first = await t.token();
    let refused: { status: number; body: Record<string, unknown> } | undefined;
    for (let i = 0; i < 100 && !refused; i++) {
      const content = 'api-content-hash';
      const res = await t.http
        .post('/api/v2/auth/client_token')
        .set('x-key', ACME_KEY.keyId)
        .set('x-hash', computeHash(ACME_KEY.secret, content))
        .send({ scope: 'docs_api', content });
      if (res.status !== 200) refused = { status: res.status, body: res.body as Record<string, unknown> };
    }
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatchObject({ success: false, code: 0, status: 429 });
    expect(String(refused?.body.message)).toMatch(
      /^memory budget reached: issued tokens would hold \d+ bytes, over their share of memoryBudget \(10000 bytes\); use each token until it expires \(expired tokens make room\), delete sessions, load fixtures, or raise memoryBudget$/,
    );
    const usage = t.mock.memory.report().kinds.tokens;
    expect(usage?.used).toBeLessThanOrEqual(usage?.limit ?? 0);
    expect(usage?.used).toBeGreaterThan(9_000);
    // The first token still works: nothing live was taken away.
    const list = await t.http.get('/api/v2/documents?pageNum=1').set('x-access-token', first);
    expect(list.status).toBe(200);
    // Once they expire, a token call makes room and is answered.
    t.mock.advanceClock(t.mock.settings().tokenTtlSeconds);
    expect(typeof (await t.token())).toBe('string');
    expect(t.mock.memory.report().kinds.tokens?.used).toBe(2 * TOKEN_BYTES);
  });
});
