import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { launchBrowser, openPage, SLOW, screenshot, startFake } from './browser.js';

/**
 * A page on another origin (a developer's app on its dev server, before `ADMIN_ORIGINS` names
 * it) calls the admin API with JSON, as a page's code would: the browser's preflight is answered,
 * so the page reads the fake's 403 saying which option allows its origin, instead of "Failed to
 * fetch"; the call itself is still refused and changes nothing.
 */

const APP_PAGE = '<!doctype html><title>an app on its dev server</title><pre id="out">…</pre>';

describe('in a browser: a page on another origin is told why the admin API refuses it', SLOW, () => {
  let browser: Browser;
  let fake: { mock: MockServer; url: string };
  let app: { server: Server; url: string };

  beforeAll(async () => {
    browser = await launchBrowser();
    fake = await startFake();
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(APP_PAGE);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    app = { server, url: `http://localhost:${(server.address() as AddressInfo).port}` };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await fake?.mock.close();
    if (app) await new Promise((done) => app.server.close(done));
  }, 60_000);

  it('reads the 403 of a JSON POST (and of one with a token), and the fault is not set', async () => {
    const { page, errors } = await openPage(browser, 900, 300);
    await page.goto(`${app.url}/`);
    const answers = await page.evaluate(async (base) => {
      const call = async (headers: Record<string, string>) => {
        try {
          const res = await fetch(`${base}/__admin/faults`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: JSON.stringify({ status: 503 }),
          });
          return { status: res.status, body: (await res.json()) as { message: string } };
        } catch (error) {
          return { failed: String(error) };
        }
      };
      return [await call({}), await call({ authorization: 'Bearer some-token' })];
    }, fake.url);
    // What the page read, shown on it for the screenshot.
    await page.locator('#out').evaluate(
      (out, text) => {
        out.textContent = text;
      },
      JSON.stringify(answers, null, 2),
    );
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 403, body: { success: false, status: 403 } });
      expect(answer.body?.message).toContain(`pages from ${app.url} may not call the admin API`);
      expect(answer.body?.message).toContain('ADMIN_ORIGINS');
    }
    await screenshot(page, 'admin-refusal-read-by-page');
    expect(fake.mock.faults()).toHaveLength(0);
    expect(errors).toEqual([]);
  });
});
