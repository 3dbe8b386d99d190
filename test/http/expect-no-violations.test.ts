import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ContractViolationError,
  createAdminClient,
  createMockServer,
  type MockServer,
} from '../../src/index.js';
import { requestToken } from '../support/request-token.js';
import { ACME_KEY, createTestServer, SMALL_SET, type TestServer } from '../support/test-server.js';

/**
 * `expectNoViolations()`: the check a suite runs after each test. It passes over a clean journal
 * (notices do not count), and otherwise throws one error listing every request that broke the
 * contract with each location and message; the same from the programmatic API and the admin client.
 */

/** What a rejection is, as a suite's afterEach would see it. */
async function rejection(check: Promise<void>): Promise<ContractViolationError> {
  const error = await check.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ContractViolationError);
  return error as ContractViolationError;
}

describe('expectNoViolations in-process', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer();
  });
  afterAll(() => t.mock.close());

  it('passes over a journal with requests that only have notices', async () => {
    t.mock.reset();
    const token = await t.token();
    const res = await t.http.get('/api/v2/documents?clientID=41001').set('x-access-token', token);
    expect(res.status).toBe(200);
    expect(await t.mock.notices()).toHaveLength(1);
    await expect(t.mock.expectNoViolations()).resolves.toBeUndefined();
  });

  it('throws listing every violating request with its method, path, status, locations and messages', async () => {
    t.mock.reset();
    const token = await t.token();
    await t.http.get('/api/v2/documents?pageNum=0').set('x-access-token', token);
    await t.http.get('/api/v2/documents/101101'); // no token header at all
    await t.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token); // fine

    const error = await rejection(t.mock.expectNoViolations());
    expect(error.violations.map((v) => v.status)).toEqual([404, 401]);
    const [first, second] = error.violations;
    expect(error.message).toContain('the client broke the contract in 2 requests:');
    expect(error.message).toContain(`#${first?.requestId} GET /api/v2/documents -> 404`);
    expect(error.message).toContain('query.pageNum: needs to be an integer between 1 and 9999');
    expect(error.message).toContain(`#${second?.requestId} GET /api/v2/documents/101101 -> 401`);
    expect(error.message).toContain(`${second?.violations[0]?.location}: ${second?.violations[0]?.message}`);
    expect(error.message).not.toContain(token);
  });

  it('passes again after a reset, and checks only its own session', async () => {
    const token = await t.token();
    await t.http.get('/api/v2/documents?pageNum=0').set('x-access-token', token);
    const session = await t.mock.session();
    await expect(session.expectNoViolations()).resolves.toBeUndefined();
    await rejection(t.mock.expectNoViolations());
    t.mock.reset();
    await expect(t.mock.expectNoViolations()).resolves.toBeUndefined();

    await t.http.get(`${session.baseUrl}/api/v2/documents`);
    const error = await rejection(session.expectNoViolations());
    expect(error.message).toContain(`the client broke the contract in 1 request (session ${session.id}):`);
    await expect(t.mock.expectNoViolations()).resolves.toBeUndefined();
    session.delete();
  });

  it('fails after clearRequests() (the exact counts remember); a violation provoked on purpose is declared instead', async () => {
    t.mock.reset();
    await t.mock.expectNoViolations().catch(() => undefined);
    await t.http.get('/api/v2/documents');
    expect((await t.mock.violations()).map((v) => v.status)).toEqual([401]);
    t.mock.clearRequests();
    await expect(t.mock.expectNoViolations()).rejects.toThrow(
      /the report counts 1 request that broke the contract/,
    );
    t.mock.expectViolation({ location: 'header.x-access-token' });
    await t.http.get('/api/v2/documents');
    await expect(t.mock.expectNoViolations()).resolves.toBeUndefined();
  });
});

describe('expectNoViolations through the admin client', () => {
  let mock: MockServer;
  let url: string;
  beforeAll(async () => {
    mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', adminToken: 'let-me-in' });
    url = await mock.listen(0, '127.0.0.1');
  });
  afterAll(() => mock.close());

  it("checks a session's journal over HTTP, naming the session's URL", async () => {
    const admin = createAdminClient(url, { adminToken: 'let-me-in' });
    const session = await admin.createSession();
    try {
      const token = (
        (await (await requestToken(session.baseUrl, ACME_KEY)).json()) as { access_token: string }
      ).access_token;
      await fetch(`${session.baseUrl}/api/v2/documents?pageNum=1`, { headers: { 'x-access-token': token } });
      await expect(session.admin.expectNoViolations()).resolves.toBeUndefined();

      await fetch(`${session.baseUrl}/api/v2/documents?resultsPerPage=0`, {
        headers: { 'x-access-token': token },
      });
      const error = await rejection(session.admin.expectNoViolations());
      expect(error.message).toContain(`the client broke the contract in 1 request (${session.baseUrl}):`);
      expect(error.message).toContain('GET /api/v2/documents -> 404');
      expect(error.message).toContain('query.resultsPerPage:');
      expect(error.violations).toEqual(await session.admin.violations());
      expect(error.message).not.toContain(token);
      await expect(admin.expectNoViolations()).resolves.toBeUndefined(); // the root saw nothing

      await session.admin.reset();
      await expect(session.admin.expectNoViolations()).resolves.toBeUndefined();
    } finally {
      await admin.deleteSession(session.id);
    }
  });
});
