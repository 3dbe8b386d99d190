import { randomBytes } from 'node:crypto';
import { test as base } from '@playwright/test';
import { type AdminClient, AdminError, createAdminClient } from '../client/admin-client.js';
import type { ApiKey, FixtureSet } from '../domain/types.js';
import { failedGates } from '../harness/verdicts/report-gates.js';
import { SESSION_MEMBER } from '../http/session-baggage.js';
import type { MockServerOptions } from '../index.js';

/**
 * `passportal-docs-fake/playwright`: Playwright Test's `test` with a session of the fake per test
 * (docs/frontend.md). The fake is the one at `PASSPORTAL_FAKE_URL` (or the `passportalFakeUrl`
 * option), else one started in each worker's process. Each test's session is created in a run
 * labelled with the run id (`PASSPORTAL_FAKE_RUN`, else `GITHUB_RUN_ID`, else one made per run)
 * and the test's project, so `report --run` reports the whole run. After the test, the session's
 * HAR and Markdown report are attached to the test's result, the session is deleted, and the test
 * fails when the session's exact counts show a violation or a declared violation that never came
 * (the rules of the run reports' gate). `@playwright/test` is an optional peer dependency.
 */

export interface PassportalSession {
  id: string;
  /** The session's base URL, for a client that can be given one. */
  baseUrl: string;
  /** The fake's root URL: a backend that propagates `baggage` keeps calling it. */
  fakeUrl: string;
  /** The session's own API keys, with their secrets, when created with `keys: 'own'`. */
  keys?: ApiKey[];
  /** The admin client of the session (its journal, faults, clock, report, HAR). */
  admin: AdminClient;
  /** The `baggage` value that names the session: `passportal-fake-session=<id>`. */
  baggage: string;
  /** `{ baggage }`, for `page.setExtraHTTPHeaders` or `test.use({ extraHTTPHeaders })`. */
  headers: { baggage: string };
}

export interface PassportalTestOptions {
  /** How the sessions are made: the fake's fixture set (default) or keys of their own; a set of their own. */
  passportalSessionOptions: { keys?: 'fixtures' | 'own'; fixtures?: FixtureSet };
}

export interface PassportalWorkerOptions {
  /** The fake's URL; empty: a fake started in the worker's process. Default: `PASSPORTAL_FAKE_URL`. */
  passportalFakeUrl: string;
  /** Options of the fake started in process (no URL given), as `createMockServer()` takes them. */
  passportalFakeOptions: MockServerOptions;
  /** The fake's admin token, when it has one. Default: `ADMIN_TOKEN`. */
  passportalAdminToken: string;
}

interface WorkerFake {
  url: string;
  admin: AdminClient;
}

/** The run id every worker of one run shares: set here in the runner's process, inherited by its workers. */
process.env.PASSPORTAL_FAKE_RUN ||= process.env.GITHUB_RUN_ID || `pw-${randomBytes(6).toString('hex')}`;

/** A run label as sessions take them (1-128 of letters, digits and `._:@/-`). */
function runLabel(project: string): string {
  const text = `${process.env.PASSPORTAL_FAKE_RUN}/${project || 'default'}`;
  return text.replace(/[^A-Za-z0-9._:@/-]/g, '-').slice(0, 128);
}

/** Every violation the session holds, named (request, location, message), or the gates' words. */
async function describeFailure(admin: AdminClient, gates: string[]): Promise<string> {
  try {
    await admin.expectNoViolations();
  } catch (error) {
    return `${gates.join('; ')}\n${(error as Error).message}`;
  }
  return gates.join('; ');
}

export const test = base.extend<
  PassportalTestOptions & { passportalSession: PassportalSession },
  PassportalWorkerOptions & { passportalFake: WorkerFake }
>({
  passportalFakeUrl: [process.env.PASSPORTAL_FAKE_URL ?? '', { option: true, scope: 'worker' }],
  passportalFakeOptions: [{}, { option: true, scope: 'worker' }],
  passportalAdminToken: [process.env.ADMIN_TOKEN ?? '', { option: true, scope: 'worker' }],
  passportalSessionOptions: [{}, { option: true }],

  passportalFake: [
    async ({ passportalFakeUrl, passportalFakeOptions, passportalAdminToken }, use) => {
      const adminToken = passportalAdminToken || undefined;
      if (passportalFakeUrl !== '') {
        await use({ url: passportalFakeUrl, admin: createAdminClient(passportalFakeUrl, { adminToken }) });
        return;
      }
      // Loaded only here: a worker that is given a URL loads nothing of the server.
      const { createMockServer } = await import('../index.js');
      const mock = await createMockServer({ logLevel: 'silent', ...passportalFakeOptions });
      try {
        const url = await mock.listen(0, '127.0.0.1');
        await use({ url, admin: createAdminClient(url, { adminToken: mock.options.adminToken }) });
      } finally {
        await mock.close();
      }
    },
    { scope: 'worker' },
  ],

  passportalSession: async ({ passportalFake, passportalSessionOptions }, use, testInfo) => {
    const created = await passportalFake.admin.createSession({
      ...passportalSessionOptions,
      run: runLabel(testInfo.project.name),
    });
    const baggage = `${SESSION_MEMBER}=${encodeURIComponent(created.id)}`;
    const { admin } = created;
    await use({
      id: created.id,
      baseUrl: created.baseUrl,
      fakeUrl: passportalFake.url,
      ...(created.keys === undefined ? {} : { keys: created.keys }),
      admin,
      baggage,
      headers: { baggage },
    });
    let gates: string[] = [];
    try {
      const report = await admin.report();
      gates = failedGates(report, 'violations', undefined);
      await testInfo.attach('passportal-session.har', {
        body: JSON.stringify(await admin.har(), null, 2),
        contentType: 'application/json',
      });
      await testInfo.attach('passportal-report.md', {
        body: await admin.report('markdown'),
        contentType: 'text/markdown',
      });
      if (gates.length > 0) gates = [await describeFailure(admin, gates)];
    } finally {
      // Already gone (idle too long, or deleted by the test): nothing left to delete.
      await passportalFake.admin
        .deleteSession(created.id)
        .catch((error) =>
          error instanceof AdminError && error.status === 404 ? undefined : Promise.reject(error),
        );
    }
    if (gates.length > 0) throw new Error(`The session of this test broke the contract: ${gates[0]}`);
  },
});

export { expect } from '@playwright/test';
