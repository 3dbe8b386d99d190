import { request } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import type { ApiKey, MockServer } from '../../src/index.js';
import { launchBrowser, openPage, poll, SLOW, screenshot, startFake } from './browser.js';

/**
 * A client pinned to a vendor host name (its `Host` header says so), with a key-bound session's
 * key: what the inspector shows of where it sent its requests and how they reached the fake.
 */
function send(
  url: string,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({
      hostname,
      port,
      method: options.method,
      path: options.path,
      headers: options.headers,
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const VENDOR_HOST = 'us-clover.passportalmsp.com';

async function pinnedClientCalls(url: string, key: ApiKey): Promise<void> {
  const content = 'pinned-content';
  const tokenAnswer = await send(url, {
    method: 'POST',
    path: '/api/v2/auth/client_token',
    headers: {
      host: VENDOR_HOST,
      'content-type': 'application/json',
      'x-key': key.keyId,
      'x-hash': computeHash(key.secret, content),
    },
    body: JSON.stringify({ scope: 'docs_api', content }),
  });
  expect(tokenAnswer.status).toBe(200);
  const token = (JSON.parse(tokenAnswer.body) as { access_token: string }).access_token;
  const list = await send(url, {
    method: 'GET',
    path: '/api/v2/documents?pageNum=1&resultsPerPage=3',
    headers: { host: VENDOR_HOST, 'x-access-token': token },
  });
  expect(list.status).toBe(200);
}

describe('in a browser: key-bound sessions and where requests came from', SLOW, () => {
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

  it('creates a session with own keys from the controls, listing its key ids but no secret', async () => {
    await page.goto(`${url}/__admin/ui#controls`);
    const sessions = page.locator('.panel', { hasText: 'Sessions' });
    await sessions.getByLabel('own keys').check();
    await sessions.getByRole('button', { name: 'Create session' }).click();
    await poll(() => sessions.getByRole('status').textContent()).toMatch(
      /Session \S+ created with keys of its own/,
    );
    const [created] = mock.sessions.list();
    const keys = created?.instance.ownKeys?.list() ?? [];
    expect(keys.length).toBeGreaterThan(0);
    const ownKeys = sessions.locator('.own-keys');
    await ownKeys.waitFor();
    const text = (await sessions.textContent()) ?? '';
    for (const key of keys) {
      expect(text).toContain(key.keyId.slice(0, 8));
      expect(text).not.toContain(key.secret);
    }
    await ownKeys.scrollIntoViewIfNeeded();
    await screenshot(page, 'inspector-sessions-own-keys');
    expect(errors).toEqual([]);
  });

  it("shows the session's journal with the Host as sent, the scheme and via key-session; the root's shows none of it", async () => {
    const session = mock.sessions.list()[0];
    const key = session?.instance.ownKeys?.list()[0];
    if (!session || !key) throw new Error('the previous test creates the session');
    await pinnedClientCalls(url, key);
    // And one request straight to the root, to set the two apart.
    await send(url, { method: 'GET', path: '/api/v2/documents', headers: { host: `127.0.0.1` } });

    await page.goto(`${url}/sessions/${session.id}/__admin/ui`);
    const rows = page.locator('table.requests tbody tr');
    await poll(() => rows.count()).toBe(2);
    for (const i of [0, 1]) {
      await expect(rows.nth(i).locator('.sent-to').textContent()).resolves.toBe(
        `http://${VENDOR_HOST}key-session`,
      );
    }
    await rows.nth(0).click();
    const detail = page.getByLabel('request detail');
    await poll(() => detail.locator('.detail-via').textContent()).toContain('key-session');
    await expect(detail.locator('.detail-origin').textContent()).resolves.toBe(`http://${VENDOR_HOST}`);
    await screenshot(page, 'inspector-journal-key-session');

    await page.goto(`${url}/__admin/ui`);
    const rootRows = page.locator('table.requests tbody tr');
    await poll(() => rootRows.count()).toBe(1);
    await expect(rootRows.nth(0).locator('.sent-to').textContent()).resolves.toBe('http://127.0.0.1');
    expect(errors).toEqual([]);
  });
});
