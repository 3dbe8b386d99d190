import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '../../src/client/admin-client.js';
import { type BehaviourId, fakeMatchers } from '../../src/index.js';
import { createTestServer, type TestServer } from '../support/test-server.js';

/**
 * The vitest/Jest matchers: a suite writes `expect(mock).toHaveNoViolations()` and a failure names
 * every violation (request, location, message), not a JSON diff; `toHaveExercised` names the
 * behaviours never met with how to exercise them. The same on the server, a session and the
 * admin client of a listening fake.
 */

expect.extend(fakeMatchers);

declare module 'vitest' {
  interface Matchers<T> {
    toHaveNoViolations(): Promise<T>;
    toHaveExercised(...ids: BehaviourId[]): Promise<T>;
  }
}

let t: TestServer;
let url: string;

beforeAll(async () => {
  t = await createTestServer();
  url = await t.mock.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await t.mock.close();
});

describe('fakeMatchers', () => {
  it('passes a clean journal and fails a dirty one listing each violation with its request', async () => {
    const session = await t.mock.session();
    await expect(session).toHaveNoViolations();
    await fetch(`${session.baseUrl}/api/v2/documents?pageNum=0`);
    const failure = await expect(session)
      .toHaveNoViolations()
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.message).toMatch(/#\d+ GET \/api\/v2\/documents -> 401/);
    expect(failure?.message).toContain('header.x-access-token: is required');
    // Through the admin client of the listening fake, the same check.
    await expect(expect(createAdminClient(session.baseUrl)).toHaveNoViolations()).rejects.toThrow(
      /header\.x-access-token/,
    );
    await expect(createAdminClient(url)).toHaveNoViolations();
  });

  it('toHaveExercised passes for met behaviours and names the others with how to meet them', async () => {
    const session = await t.mock.session();
    const token = await t.token();
    await t.http.get(`/sessions/${session.id}/api/v2/documents?pageNum=9999`).set('x-access-token', token);
    // The root's token is not the session's: an invalid token there.
    await expect(session).toHaveExercised('error.invalidToken');
    await expect(expect(session).toHaveExercised('error.invalidToken', 'tokenExpired')).rejects.toThrow(
      /never met this behaviour:\n {2}tokenExpired: .*\n {4}how: .*advanceClock/,
    );
    // From JavaScript, or past the type check, a misspelt id still fails, naming it.
    await expect(expect(session).toHaveExercised('noSuchBehaviour' as BehaviourId)).rejects.toThrow(
      /not behaviour ids.*noSuchBehaviour/,
    );
  });
});

describe('a test that resets after it broke the contract', () => {
  it('still fails: the verdict compares the exact counts with those of the previous check', async () => {
    const session = await t.mock.session();
    const admin = createAdminClient(session.baseUrl);
    // Clean so far: each check takes its starting point.
    await expect(session).toHaveNoViolations();
    await admin.expectNoViolations();
    await session.expectNoViolations();

    // The test breaks the contract, then resets: the journal is empty again.
    await fetch(`${session.baseUrl}/api/v2/documents?pageNum=0`);
    await session.reset();
    expect(await session.violations()).toEqual([]);
    await expect(expect(session).toHaveNoViolations()).rejects.toThrow(
      /the report counts 1 request that broke the contract since the last check.*\n {2}#\d+ GET \/api\/v2\/documents -> 401\n {4}header\.x-access-token: is required/,
    );
    await expect(admin.expectNoViolations()).rejects.toThrow(
      /the report counts 1 request that broke the contract/,
    );
    await expect(session.expectNoViolations()).rejects.toThrow(/the report counts 1 request/);

    // The next test, clean, passes: the counts did not grow since.
    await expect(session).toHaveNoViolations();
    await admin.expectNoViolations();
    await session.expectNoViolations();

    // A declaration a reset discards unmet fails the test that made it, once.
    await session.expectViolation({ location: 'query.pageNum' });
    await session.reset();
    await expect(expect(session).toHaveNoViolations()).rejects.toThrow(
      /the report counts 1 declared violation never met since the last check/,
    );
    await expect(admin.expectNoViolations()).rejects.toThrow(/1 declared violation never met/);
    await expect(session).toHaveNoViolations();
    session.delete();
  });
});
