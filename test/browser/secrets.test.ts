import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultApiKey, type MockServer } from '../../src/index.js';
import { launchBrowser, openPage, poll, SLOW, startFake } from './browser.js';

/**
 * A page on another site, open in the same browser as the fake, tries what the landing page once
 * allowed: read `/` (the key secrets) and use a secret to take a token and rewrite a document.
 * The other site is a second server on loopback (another port, so another origin).
 */

const FOREIGN_PAGE = '<!doctype html><title>another site</title><p>nothing to see</p>';

async function startForeignSite(): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(FOREIGN_PAGE);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://localhost:${(server.address() as AddressInfo).port}` };
}

/** Run in the foreign page: what it can read of the landing page, as a page script would. */
const readLanding = (page: Page, target: string) =>
  page.evaluate(async (url) => {
    try {
      const res = await fetch(url, { headers: { accept: 'text/html' } });
      return { read: await res.text() };
    } catch (error) {
      return { blocked: String(error) };
    }
  }, target);

describe('in a browser: key secrets and pages on other sites', SLOW, () => {
  let browser: Browser;
  let open: { mock: MockServer; url: string };
  let guarded: { mock: MockServer; url: string };
  let foreign: { server: Server; url: string };
  const key = defaultApiKey(1);

  beforeAll(async () => {
    browser = await launchBrowser();
    open = await startFake();
    guarded = await startFake({ adminToken: 'only-the-operator-knows' });
    foreign = await startForeignSite();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await open?.mock.close();
    await guarded?.mock.close();
    // Only a server that started is closed: a failed set-up must not leave this hook waiting.
    if (foreign) await new Promise((done) => foreign.server.close(done));
  }, 60_000);

  it.each([
    ['no admin token', () => open],
    ['an admin token', () => guarded],
  ])(
    'a page on another origin cannot read a secret from the landing page (fake with %s)',
    async (_n, fake) => {
      const { url, mock } = fake();
      const { page, errors } = await openPage(browser);
      await page.goto(`${foreign.url}/`);
      const result = await readLanding(page, `${url}/`);
      expect(result.blocked).toMatch(/Failed to fetch/);
      expect(result.read).toBeUndefined();
      // Nothing it could have sent reached the data: no token was taken, no document changed.
      expect(await mock.requests()).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it("a page on another origin reads the admin API's 403, naming ADMIN_ORIGINS, and nothing more", async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${foreign.url}/`);
    const answer = await page.evaluate(async (url) => {
      const res = await fetch(url);
      return { status: res.status, body: (await res.json()) as { message: string } };
    }, `${open.url}/__admin/state`);
    expect(answer.status).toBe(403);
    expect(answer.body.message).toContain(`pages from ${foreign.url} may not call the admin API`);
    expect(answer.body.message).toContain('--admin-origins or ADMIN_ORIGINS');
    expect(JSON.stringify(answer.body)).not.toContain(key.secret);
    // A call that needs a preflight: the preflight is answered so the page can read the refusal,
    // and the call itself is refused: nothing was reset or read.
    const reset = await page.evaluate(async (url) => {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        return { status: res.status };
      } catch (error) {
        return { blocked: String(error) };
      }
    }, `${open.url}/__admin/reset`);
    expect(reset).toEqual({ status: 403 });
    expect(await readLanding(page, `${open.url}/`)).toEqual({
      blocked: expect.stringMatching(/Failed to fetch/),
    });
    expect(await open.mock.requests()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the secrets to its own user, who opens the page at the fake’s address', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${open.url}/`);
    const table = (await page.locator('#keys').textContent()) ?? '';
    expect(table).toContain(key.keyId);
    expect(table).toContain(key.secret);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('with an admin token, shows key IDs and points to the inspector, which shows secrets after the token', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${guarded.url}/`);
    const table = (await page.locator('#keys').textContent()) ?? '';
    expect(table).toContain(key.keyId);
    expect(table).not.toContain(key.secret);
    await page.getByRole('link', { name: "inspector's API keys view" }).click();
    await page.waitForURL(`${guarded.url}/__admin/ui#keys`);
    await page.getByLabel('admin token value').fill('only-the-operator-knows');
    await page.getByRole('button', { name: 'Continue' }).click();
    await poll(() => page.locator('main').textContent()).toContain(key.secret);
    expect(errors).toEqual([]);
    await page.close();
  });
});
