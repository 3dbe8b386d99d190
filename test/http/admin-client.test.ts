import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdminClient,
  AdminError,
  createAdminClient,
  createMockServer,
  type MockServer,
} from '../../src/index.js';
import { accessToken } from '../support/request-token.js';
import { ACME_KEY, readSmallSet, SMALL_SET } from '../support/test-server.js';

/** The typed admin client against a listening fake, as a suite uses it with a container. */

let mock: MockServer;
let admin: AdminClient;
let url: string;

beforeAll(async () => {
  mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', adminToken: 'let-me-in' });
  url = await mock.listen(0, '127.0.0.1');
  admin = createAdminClient(url, { adminToken: 'let-me-in' });
});
afterAll(async () => {
  await mock.close();
});

const tokenAt = (base: string) => accessToken(base, ACME_KEY);

describe('createAdminClient', () => {
  it('drives a session: journal, findings, faults, clock, settings, tokens, reset', async () => {
    const session = await admin.createSession({ expires: false });
    const s = session.admin;
    expect((await s.health()).session).toBe(session.id);
    const token = await tokenAt(session.baseUrl);
    await fetch(`${session.baseUrl}/api/v2/documents?clientID=41001`, {
      headers: { 'x-access-token': token },
    });
    await fetch(`${session.baseUrl}/api/v2/documents?pageNum=0`, { headers: { 'x-access-token': token } });
    const page = await s.requests({ order: 'desc', limit: 1 });
    expect(page.count).toBe(3);
    expect(page.requests[0]?.query).toEqual({ pageNum: '0' });
    expect((await s.request(page.requests[0]?.id ?? 0)).status).toBe(404);
    expect((await s.violations()).map((v) => v.violations[0]?.location)).toEqual(['query.pageNum']);
    expect((await s.notices()).flatMap((n) => n.notices.map((x) => x.location))).toContain('query.clientID');

    const fault = await s.addFault({ path: '/api/v2/documents', status: 503, times: 1 });
    expect((await s.faults()).map((f) => f.id)).toEqual([fault]);
    expect(
      (await fetch(`${session.baseUrl}/api/v2/documents`, { headers: { 'x-access-token': token } })).status,
    ).toBe(503);
    await s.clearFaults();

    expect(await s.revokeTokens()).toBe(1);
    expect((await s.advanceClock(3600)).offsetSeconds).toBeGreaterThanOrEqual(3599);
    expect((await s.settings({ maxResultsPerPage: 2 })).maxResultsPerPage).toBe(2);
    await s.reset();
    expect((await s.clock()).offsetSeconds).toBe(0);
    expect((await s.requests()).count).toBe(0);
    expect((await admin.sessions()).map((x) => x.id)).toContain(session.id);
    await admin.deleteSession(session.id);
    expect((await admin.sessions()).map((x) => x.id)).not.toContain(session.id);
  });

  it('loads fixtures and reads the state', async () => {
    const session = await admin.createSession();
    const set = readSmallSet();
    set.documents = set.documents?.slice(0, 2);
    await session.admin.load(set);
    expect((await session.admin.state()).documents).toHaveLength(2);
    await admin.deleteSession(session.id);
  });

  it('throws AdminError with the vendor body on a refusal, and without the admin token', async () => {
    const error = await admin.request(999_999).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdminError);
    expect((error as AdminError).status).toBe(404);
    expect((error as AdminError).body).toMatchObject({ success: false, status: 404 });
    const locked = await createAdminClient(url)
      .state()
      .catch((e: unknown) => e);
    expect((locked as AdminError).status).toBe(401);
    const bad = await admin.addFault({ status: 100 }).catch((e: unknown) => e);
    expect((bad as AdminError).body?.errors?.[0]?.location).toBe('body/status');
  });
});
