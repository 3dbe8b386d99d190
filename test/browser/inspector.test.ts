import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { defaultApiKey, type MockServer } from '../../src/index.js';
import { writeTenantsFile } from '../support/tenants-file.js';
import { launchBrowser, openPage, poll, SLOW, screenshot, startFake } from './browser.js';

const KEY = defaultApiKey(1);

/** A client of the fake's API, as the app under test would be. */
function apiClient(url: string) {
  return {
    async token(): Promise<string> {
      const content = 'api-content-hash';
      const res = await fetch(`${url}/api/v2/auth/client_token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-key': KEY.keyId,
          'x-hash': computeHash(KEY.secret, content),
        },
        body: JSON.stringify({ scope: 'docs_api', content }),
      });
      return ((await res.json()) as { access_token: string }).access_token;
    },
    get: (path: string, token: string) => fetch(`${url}${path}`, { headers: { 'x-access-token': token } }),
  };
}

describe('in a browser: the inspector', SLOW, () => {
  let browser: Browser;
  let mock: MockServer;
  let url: string;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    browser = await launchBrowser();
    ({ mock, url } = await startFake());
    ({ page, errors } = await openPage(browser));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await mock?.close();
  }, 60_000);

  it("marks its live journal's polling reads, so the fake logs them at debug, not info", async () => {
    const polls: Array<string | undefined> = [];
    const listen = (request: import('playwright-core').Request) => {
      if (new URL(request.url()).pathname === '/__admin/requests')
        polls.push(request.headers()['x-fake-inspector']);
    };
    page.on('request', listen);
    await page.goto(`${url}/__admin/ui`);
    await poll(() => polls.length).toBeGreaterThanOrEqual(2);
    page.off('request', listen);
    expect(new Set(polls)).toEqual(new Set(['poll']));
  });

  it('shows requests live as they arrive, newest first, each opening to its detail', async () => {
    await page.goto(`${url}/__admin/ui`);
    await poll(() => page.locator('.count').textContent()).toBe('0 requests');
    const api = apiClient(url);
    const token = await api.token();
    await api.get('/api/v2/documents?pageNum=1&resultsPerPage=5', token);
    const rows = page.locator('table.requests tbody tr');
    await poll(() => rows.count()).toBe(2);
    await expect(rows.nth(0).locator('.path').textContent()).resolves.toContain('/api/v2/documents');
    await expect(rows.nth(1).locator('.path').textContent()).resolves.toContain('/api/v2/auth/client_token');
    await rows.nth(0).click();
    const detail = page.getByLabel('request detail');
    await poll(() => detail.locator('.detail-status').textContent()).toBe('200');
    const text = (await detail.textContent()) ?? '';
    expect(text).toContain('GET');
    expect(text).toContain('"resultsPerPage": "5"');
    expect(text).toContain(token); // the x-access-token header as sent
    expect(text).toContain('"success": true'); // the response body
    expect(text).toMatch(/Duration\s*[\d.]+ ms/);
  });

  it('shows a violation inline with the location it names, and filters to violations only', async () => {
    await page.goto(`${url}/__admin/ui`);
    await page.locator('.count').waitFor();
    await fetch(`${url}/api/v2/auth/client_token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-key': KEY.keyId,
        'x-hash': computeHash(KEY.secret, 'api-content-hash'),
      },
      body: JSON.stringify({ scope: 'everything', content: 'api-content-hash' }),
    });
    const violation = page.locator('table.requests .inline-finding.violation').first();
    await violation.waitFor({ timeout: 20_000 });
    await expect(violation.locator('.location').textContent()).resolves.toBe('body/scope');
    await page.getByLabel('Only violations').check();
    await poll(() => page.locator('table.requests tbody tr').count()).toBe(1);
    await page.locator('table.requests tbody tr').first().click();
    const detail = page.getByLabel('request detail');
    await poll(() => detail.locator('.detail-status').textContent()).toBe('400');
    await expect(detail.locator('.findings .violation .location').first().textContent()).resolves.toBe(
      'body/scope',
    );
    await page.getByLabel('Only violations').uncheck();
    // A spelling the documentation does not promise: answered, with a notice, never a violation.
    const api = apiClient(url);
    await api.get('/api/v2/documents?pageNum=1&clientID=41001', await api.token());
    const notice = page.locator('table.requests .inline-finding.notice').first();
    await notice.waitFor({ timeout: 20_000 });
    await expect(notice.locator('.location').textContent()).resolves.toContain('clientID');
    await poll(() => page.locator('table.requests tbody tr').count()).toBe(5);
    await screenshot(page, 'inspector-journal');
    expect(errors).toEqual([]);
  });

  it('reports a bad filter value as the admin API words it', async () => {
    await page.goto(`${url}/__admin/ui`);
    await page.getByLabel('Status').fill('abc');
    await page.getByRole('alert').waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('query.status');
    await page.getByLabel('Status').fill('');
    await poll(() => page.getByRole('alert').count()).toBe(0);
  });

  it('shows the state, a document in detail, and the keys with a hash calculator', async () => {
    await page.goto(`${url}/__admin/ui#state`);
    const search = page.getByLabel('Search');
    await search.waitFor();
    await search.fill('Dundee Office');
    const docs = page.locator('table.documents tbody tr');
    await poll(() => docs.count()).toBeGreaterThan(0);
    await docs.first().click();
    await expect(page.getByLabel('document detail').textContent()).resolves.toContain('Dundee Office');
    await screenshot(page, 'inspector-state');

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Content').fill('my-content');
    const expected = computeHash(KEY.secret, 'my-content');
    await poll(() => page.locator('.hash-output').textContent()).toBe(expected);
    const curl = (await page.locator('.curl-output').textContent()) ?? '';
    expect(curl).toContain(`x-hash: ${expected}`);
    expect(curl).toContain(`${url}/api/v2/auth/client_token`);
  });

  it('resets the state, adds a fault that changes the next answer, and removes it', async () => {
    const api = apiClient(url);
    const token = await api.token();
    const before = mock.state().documents.length;
    await fetch(`${url}/api/v2/documents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-access-token': token },
      body: JSON.stringify({ title: 'Made in a test', templateUid: 'tpl-5001', clientId: 41001 }),
    });
    expect(mock.state().documents.length).toBe(before + 1);

    await page.goto(`${url}/__admin/ui#controls`);
    await page.getByRole('button', { name: 'Reset state' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('reset');
    expect(mock.state().documents.length).toBe(before);

    await page.getByLabel('Path').fill('/api/v2/documents*');
    await page.getByLabel('Status').fill('503');
    await page.getByLabel('Body (JSON or text)').fill('{"success":false,"message":"down for maintenance"}');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.locator('table.faults').getByText('/api/v2/documents*').waitFor();
    const faulted = await api.get('/api/v2/documents', token);
    expect(faulted.status).toBe(503);
    expect(await faulted.json()).toMatchObject({ message: 'down for maintenance' });
    await page.locator('table.faults').getByRole('button', { name: 'Remove' }).click();
    await poll(() => page.locator('table.faults').textContent()).toContain('No faults');
    expect((await api.get('/api/v2/documents', token)).status).toBe(200);
  });

  it('shows the problems of a bad fixture file with their paths, and loads a good one', async () => {
    await page.goto(`${url}/__admin/ui#controls`);
    const input = page.locator('input[name="fixtures"]');
    const bad = { documents: [{ id: 'seven', label: 5 }] };
    await input.setInputFiles({
      name: 'bad.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(bad)),
    });
    const alert = page.locator('.panel', { hasText: 'Load a fixture file' }).getByRole('alert');
    await alert.waitFor();
    const problems = await alert.locator('.problems li .location').allTextContents();
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.some((p) => p.includes('documents/0'))).toBe(true);
    await alert.scrollIntoViewIfNeeded();
    await screenshot(page, 'inspector-fixture-errors');

    const good = { organizations: [{ id: 1, name: 'Only One' }] };
    await input.setInputFiles({
      name: 'good.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(good)),
    });
    await expect
      .poll(() =>
        page.locator('.panel', { hasText: 'Load a fixture file' }).getByRole('status').textContent(),
      )
      .toContain('Loaded good.json');
    expect(mock.state().organizations).toEqual([{ id: 1, name: 'Only One' }]);
    expect(errors).toEqual([]);
  });

  it('creates and deletes a session, advances the clock, revokes tokens and saves a setting', async () => {
    await page.goto(`${url}/__admin/ui#controls`);
    const sessions = page.locator('.panel', { hasText: 'Sessions' });
    await sessions.getByRole('button', { name: 'Create session' }).click();
    await poll(() => sessions.getByRole('status').textContent()).toMatch(/Session \S+ created/);
    const [listed] = mock.sessions.list();
    expect(listed).toBeDefined();
    await sessions.getByRole('link', { name: listed?.id }).waitFor();
    await sessions.getByRole('button', { name: 'Delete' }).click();
    await poll(() => sessions.locator('table').textContent()).toContain('No sessions.');
    expect(mock.sessions.list()).toEqual([]);

    const before = mock.root.fake.clock.nowSeconds();
    const clock = page.locator('.panel', { hasText: 'Clock' });
    await clock.getByLabel('Advance by (s)').fill('3600');
    await clock.getByRole('button', { name: 'Advance' }).click();
    await poll(() => clock.getByRole('status').textContent()).toContain('advanced');
    expect(mock.root.fake.clock.nowSeconds() - before).toBeGreaterThanOrEqual(3600);

    const token = await apiClient(url).token();
    await page.getByRole('button', { name: 'Revoke all tokens' }).click();
    await poll(() => page.getByRole('status').first().textContent()).toMatch(/\d+ tokens? revoked/);
    expect((await apiClient(url).get('/api/v2/documents', token)).status).toBe(401);

    const settings = page.locator('textarea[name="settings"]');
    await poll(() => settings.inputValue()).toContain('maxResultsPerPage');
    const edited = JSON.parse(await settings.inputValue()) as Record<string, unknown>;
    await settings.fill(JSON.stringify({ ...edited, maxResultsPerPage: 50 }, null, 2));
    await page.getByRole('button', { name: 'Save settings' }).click();
    const settingsPanel = page.locator('.panel', { hasText: 'Settings' });
    // The page writes the saved settings back into the text area when the answer arrives: wait
    // for it, or it would overwrite the next edit.
    await poll(() => settingsPanel.getByRole('status').textContent()).toContain('Settings saved.');
    expect(mock.root.fake.settings.maxResultsPerPage).toBe(50);
    await settings.fill('{"maxResultsPerPage": "many"}');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const refusal = settingsPanel.getByRole('alert');
    await poll(() => refusal.textContent()).toContain('maxResultsPerPage');
    expect(mock.root.fake.settings.maxResultsPerPage).toBe(50);
  });

  it('shows a violation the suite declared as expected, not as a failure, in the journal and the verdict', async () => {
    const session = await mock.session();
    try {
      session.expectViolation({ method: 'POST', path: '/api/v2/auth/client_token', location: 'body/scope' });
      await page.goto(`${url}/sessions/${session.id}/__admin/ui`);
      await poll(() => page.locator('.count').textContent()).toBe('0 requests');
      await fetch(`${url}/sessions/${session.id}/api/v2/auth/client_token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-key': KEY.keyId,
          'x-hash': computeHash(KEY.secret, 'api-content-hash'),
        },
        body: JSON.stringify({ scope: 'everything', content: 'api-content-hash' }),
      });
      const expected = page.locator('table.requests .inline-finding.expected').first();
      await expected.waitFor({ timeout: 20_000 });
      await expect(expected.locator('.tag').textContent()).resolves.toBe('expected');
      await expect(expected.locator('.location').textContent()).resolves.toBe('body/scope');
      expect(await page.locator('table.requests .inline-finding.violation').count()).toBe(0);
      expect(await page.locator('table.requests tbody tr.violating').count()).toBe(0);
      await screenshot(page, 'inspector-expected-violation');
      await page.goto(`${url}/sessions/${session.id}/__admin/ui#coverage`);
      await poll(() => page.locator('.verdict').textContent()).toContain('No contract violations');
      await expect(page.locator('.verdict').textContent()).resolves.toContain(
        '1 request with expected violations',
      );
      expect(errors).toEqual([]);
    } finally {
      session.delete();
    }
  });

  it('inspects a session at its own URL, with its own journal', async () => {
    const session = await mock.session();
    try {
      await page.goto(`${url}/sessions/${session.id}/__admin/ui`);
      await expect(page.locator('.instance').textContent()).resolves.toBe(`session ${session.id}`);
      await poll(() => page.locator('.count').textContent()).toBe('0 requests');
      await fetch(`${url}/sessions/${session.id}/api/v2/documents`);
      await expect
        .poll(() => page.locator('table.requests tbody tr .path').first().textContent())
        .toContain('/api/v2/documents');
    } finally {
      session.delete();
    }
  });
});

describe('in a browser: the inspector of a fake with an admin token', SLOW, () => {
  let browser: Browser;
  let mock: MockServer;
  let url: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    ({ mock, url } = await startFake({ adminToken: 'open-sesame' }));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await mock?.close();
  }, 60_000);

  it('asks for the token, refuses a wrong one, and works with the right one kept out of the URL', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${url}/__admin/ui`);
    const prompt = page.getByRole('form', { name: 'admin token' });
    await prompt.waitFor();
    await screenshot(page, 'inspector-token-prompt');
    await prompt.locator('input[name="admin-token"]').fill('wrong');
    await prompt.getByRole('button', { name: 'Continue' }).click();
    await poll(() => prompt.getByRole('alert').textContent()).toContain('refused');
    await prompt.locator('input[name="admin-token"]').fill('open-sesame');
    await prompt.getByRole('button', { name: 'Continue' }).click();
    await poll(() => prompt.count()).toBe(0);
    await poll(() => page.locator('.count').textContent()).toBe('0 requests');
    expect(page.url()).not.toContain('open-sesame');
    // Kept for the tab: a reload asks no more.
    await page.reload();
    await poll(() => page.locator('.count').textContent()).toBe('0 requests');
    expect(await prompt.count()).toBe(0);
    expect(errors).toEqual([]);
  });
});

describe('in a browser: the inspector of a tenant (--tenants)', SLOW, () => {
  let browser: Browser;
  let mock: MockServer;
  let url: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    ({ mock, url } = await startFake({
      adminToken: 'operator-sesame',
      tenants: writeTenantsFile([
        { name: 'team-a', token: 'team-a-sesame' },
        { name: 'team-b', token: 'team-b-sesame' },
      ]),
    }));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await mock?.close();
  }, 60_000);

  it("lists the tenant's own sessions only, and a session it creates there is its own", async () => {
    const create = async (token: string) => {
      const res = await fetch(`${url}/__admin/sessions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await res.json()) as { id: string }).id;
    };
    const own = await create('team-a-sesame');
    const others = await create('team-b-sesame');
    const { page } = await openPage(browser);
    await page.goto(`${url}/__admin/ui#controls`);
    const prompt = page.getByRole('form', { name: 'admin token' });
    await prompt.locator('input[name="admin-token"]').fill('team-a-sesame');
    await prompt.getByRole('button', { name: 'Continue' }).click();
    const sessions = page.locator('.panel', { hasText: 'Sessions' });
    await sessions.getByRole('link', { name: own }).waitFor();
    expect(await sessions.getByRole('link', { name: others }).count()).toBe(0);
    await sessions.getByRole('button', { name: 'Create session' }).click();
    await poll(() => sessions.getByRole('status').textContent()).toMatch(/Session \S+ created/);
    const made = mock.sessions.list().find((s) => s.id !== own && s.id !== others);
    expect(made?.owner).toBe('team-a');
    await sessions.getByRole('link', { name: made?.id }).waitFor();
    await screenshot(page, 'inspector-tenant-sessions');
    expect(await sessions.getByRole('link', { name: others }).count()).toBe(0);
  });
});
