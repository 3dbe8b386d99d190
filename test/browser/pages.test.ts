import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultApiKey, type MockServer } from '../../src/index.js';
import { findChromium, launchBrowser, openPage, poll, SLOW, screenshot, startFake } from './browser.js';

describe('in a browser: the landing page and the API docs', SLOW, () => {
  let browser: Browser;
  let mock: MockServer;
  let url: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    ({ mock, url } = await startFake());
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await mock?.close();
  }, 60_000);

  it('fails, never skips, where Chromium is missing', async () => {
    await expect(launchBrowser('/nonexistent/chromium')).rejects.toThrow('Chromium not found');
  });

  it("finds a Chromium on a machine with only Node: CHROMIUM_PATH, else the system's, else the packaged one", async () => {
    expect(await findChromium({ CHROMIUM_PATH: '/opt/chromium/chrome' })).toBe('/opt/chromium/chrome');
    const packaged = await findChromium({}, '/nonexistent/chromium');
    expect(packaged).not.toBe('/nonexistent/chromium');
    // The packaged one really runs a page.
    const own = await launchBrowser(packaged);
    try {
      const page = await own.newPage();
      await page.goto(`${url}/`);
      await expect(page.locator('h1').textContent()).resolves.toBe('Passportal Documents API fake');
    } finally {
      await own.close();
    }
  });

  it('shows the landing page with the version, the fixture set, the keys and working links', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${url}/`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Passportal Documents API fake');
    const body = (await page.locator('body').textContent()) ?? '';
    expect(body).toMatch(/v\d+\.\d+\.\d+/);
    expect(body).toContain('fixtures/default');
    const key = defaultApiKey(1);
    expect(body).toContain(key.keyId);
    expect(body).toContain(key.secret);
    expect(await page.locator('#base').textContent()).toBe(url);
    await screenshot(page, 'landing');
    await page.getByRole('link', { name: /Inspector/ }).click();
    await page.waitForURL(`${url}/__admin/ui`);
    await page.locator('table.requests').waitFor();
    await page.goto(`${url}/`);
    await page.getByRole('link', { name: /API docs/ }).click();
    await page.waitForURL(`${url}/docs`);
    expect(errors).toEqual([]);
    // Nothing a browser asked for on its own is a violation or even journaled.
    expect(await mock.violations()).toEqual([]);
    expect(await mock.requests()).toEqual([]);
    await page.close();
  });

  it('tries the token call in the docs, then lists documents with the token it filled in', async () => {
    await mock.clearRequests();
    const { page, errors } = await openPage(browser, 1280, 900);
    await page.goto(`${url}/docs`);
    const token = page.locator('#operations-auth-createClientToken');
    await token.waitFor();
    await token.locator('.opblock-summary').click();
    await token.getByRole('button', { name: 'Execute' }).click();
    const tokenResponse = token.locator('.live-responses-table tbody .response-col_status').first();
    await poll(() => tokenResponse.textContent()).toContain('200');
    await expect(token.locator('.live-responses-table').textContent()).resolves.toContain('access_token');

    const list = page.locator('#operations-documents-listDocuments');
    await list.locator('.opblock-summary').click();
    await list.getByRole('button', { name: 'Execute' }).click();
    const listStatus = list.locator('.live-responses-table tbody .response-col_status').first();
    await poll(() => listStatus.textContent()).toContain('200');
    await list.locator('.live-responses-table').scrollIntoViewIfNeeded();
    await screenshot(page, 'docs-try-it');

    const journal = await mock.requests();
    expect(journal.map((e) => [e.method, e.path, e.status])).toEqual([
      ['POST', '/api/v2/auth/client_token', 200],
      ['GET', '/api/v2/documents', 200],
    ]);
    const issued = (journal[0]?.response as { access_token?: string } | undefined)?.access_token;
    expect(issued).toEqual(expect.any(String));
    expect(journal[1]?.headers['x-access-token']).toBe(issued);
    expect(await mock.violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the top of the docs page', async () => {
    const { page } = await openPage(browser, 1200, 760);
    await page.goto(`${url}/docs`);
    await page.locator('#operations-auth-createClientToken').waitFor();
    await expect(page.locator('.info .title').textContent()).resolves.toContain('Passportal');
    // Swagger UI's warning about the spec's JSON Schema dialect is not shown (the docs page drops it).
    expect(await page.locator('.errors-wrapper').count()).toBe(0);
    await page.locator('.scheme-container').evaluate((e) => e.scrollIntoView());
    await screenshot(page, 'docs');
    await page.close();
  });
});
