import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { defaultApiKey, type MockServer } from '../../src/index.js';
import { findChromium, launchBrowser, openPage, SLOW, screenshot, startFake } from './browser.js';

/**
 * A frontend developer's page imports the fake's signing helper (`/passportal-signing.js`, an ES
 * module) with no build step, and gets a token with it; the page is on its own dev server
 * (another origin). On an address that is not a secure context (a LAN name over plain http),
 * WebCrypto is missing and the helper says what to do (docs/frontend.md).
 */

const APP_PAGE = '<!doctype html><title>an app on its dev server</title><pre id="out">…</pre>';
/** A name Chromium maps to loopback: plain http on it is not a secure context, as a LAN address is not. */
const LAN_NAME = 'devbox.lan';

describe('in a browser: a page signs its token call with the helper the fake serves', SLOW, () => {
  let browser: Browser;
  let lanBrowser: Browser;
  let fake: { mock: MockServer; url: string };
  let app: { server: Server; port: number };
  const key = defaultApiKey(1);

  beforeAll(async () => {
    browser = await launchBrowser();
    lanBrowser = await chromium.launch({
      executablePath: await findChromium(),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        `--host-resolver-rules=MAP ${LAN_NAME} 127.0.0.1`,
      ],
    });
    fake = await startFake();
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(APP_PAGE);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    app = { server, port: (server.address() as AddressInfo).port };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await lanBrowser?.close();
    await fake?.mock.close();
    if (app) await new Promise((done) => app.server.close(done));
  }, 60_000);

  it('imports it from the fake, signs as the fake verifies, and gets a token that lists documents', async () => {
    const { page, errors } = await openPage(browser, 900, 260);
    await page.goto(`http://localhost:${app.port}/`);
    // The page's own module code, as a developer writes it (a string, so nothing rewrites its import).
    const got = (await page.evaluate(`(async () => {
      const { signContent, requestToken } = await import(${JSON.stringify(`${fake.url}/passportal-signing.js`)});
      const base = ${JSON.stringify(fake.url)};
      const hash = await signContent(${JSON.stringify(key.secret)}, 'api-content-hash');
      const token = await requestToken(base, ${JSON.stringify(key.keyId)}, ${JSON.stringify(key.secret)});
      const list = await fetch(base + '/api/v2/documents?pageNum=1&resultsPerPage=5', {
        headers: { 'x-access-token': token.access_token },
      });
      const refused = await requestToken(base, ${JSON.stringify(key.keyId)}, 'not-the-secret').catch((e) => e.message);
      return { hash, token, status: list.status, refused };
    })()`)) as { hash: string; token: { access_token: string }; status: number; refused: string };
    await page.locator('#out').evaluate(
      (out, text) => {
        out.textContent = text;
      },
      JSON.stringify(
        { ...got, token: { ...got.token, access_token: '(a token)', refresh_token: '(a token)' } },
        null,
        2,
      ),
    );
    await screenshot(page, 'signing-helper-token');
    expect(got.hash).toBe(computeHash(key.secret, 'api-content-hash'));
    expect(got.token).toMatchObject({ success: true, access_token: expect.any(String) });
    expect(got.status).toBe(200);
    expect(got.refused).toMatch(/^token call answered 401: Key verification failed: hash does not match/);
    expect(errors).toEqual([]);
    // The journal holds the page's token call, with no violation.
    const calls = (await fake.mock.requests()).filter((e) => e.path === '/api/v2/auth/client_token');
    expect(calls.map((e) => e.status)).toEqual([200, 401]);
  });

  it('on a LAN address over plain http, says that crypto.subtle needs a secure context and what to do', async () => {
    const page = await lanBrowser.newPage();
    await page.goto(`http://${LAN_NAME}:${app.port}/`);
    const message = (await page.evaluate(`(async () => {
      const { signContent } = await import(${JSON.stringify(`${fake.url}/passportal-signing.js`)});
      return signContent('secret', 'content').then(() => 'signed', (e) => e.message);
    })()`)) as string;
    expect(await page.evaluate('isSecureContext')).toBe(false);
    expect(message).toContain('secure context');
    expect(message).toContain('http://localhost');
  });
});
