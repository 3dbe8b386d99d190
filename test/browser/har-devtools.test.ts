import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { accessToken } from '../support/request-token.js';
import { ACME_KEY, createTestServer } from '../support/test-server.js';
import { launchBrowser, SLOW } from './browser.js';

/**
 * A HAR of the fake (`GET /__admin/har`, docs/frontend.md) read by Chromium's own DevTools: the
 * HAR module the Network panel's import runs (`models/har/har.js` of the DevTools bundled with
 * Chromium, opened at devtools://devtools/bundled/devtools_app.html) parses it and makes a network
 * request of each entry, with its URL, method, status, media type and answer. The panel's
 * drag-and-drop itself needs a window, which headless Chromium has not.
 */

let mock: MockServer;
let browser: Browser;
let base: string;

beforeAll(async () => {
  mock = (await createTestServer()).mock;
  base = await mock.listen(0, '127.0.0.1');
  const token = await accessToken(base, ACME_KEY);
  await fetch(`${base}/api/v2/documents?pageNum=1&resultsPerPage=2`, {
    headers: { 'x-access-token': token },
  });
  await fetch(`${base}/api/v2/documents/999999`, { headers: { 'x-access-token': token } });
  browser = await launchBrowser();
}, SLOW.timeout);
afterAll(async () => {
  await browser?.close();
  await mock.close();
});

describe("Chromium's DevTools import the HAR", () => {
  it('makes a network request of every entry, as the Network panel shows them', SLOW, async () => {
    const har = JSON.parse(JSON.stringify(await mock.har()));
    const page = await browser.newPage();
    await page.goto('devtools://devtools/bundled/devtools_app.html');
    // A text, so the test runner's transform leaves its dynamic import as the page must run it:
    // a module of the DevTools bundled with Chromium, resolved in that page.
    const script = `(async (archive) => {
      const { HARFormat, Importer } = await import('./models/har/har.js');
      const made = Importer.Importer.requestsFromHARLog(new HARFormat.HARRoot(archive).log);
      return Promise.all(made.map(async (r) => ({
        url: r.url(),
        method: r.requestMethod,
        status: r.statusCode,
        mimeType: r.mimeType,
        text: (await r.requestContentData()).text ?? '',
      })));
    })(${JSON.stringify(har)})`;
    const requests = (await page.evaluate(script)) as Array<{
      url: string;
      method: string;
      status: number;
      mimeType: string;
      text: string;
    }>;
    expect(requests.map((r) => [r.method, r.url, r.status])).toEqual([
      ['POST', `${base}/api/v2/auth/client_token`, 200],
      ['GET', `${base}/api/v2/documents?pageNum=1&resultsPerPage=2`, 200],
      ['GET', `${base}/api/v2/documents/999999`, 403],
    ]);
    expect(requests.every((r) => r.mimeType.startsWith('application/json'))).toBe(true);
    expect(JSON.parse(requests[1]?.text ?? '{}').results).toHaveLength(2);
    expect(JSON.parse(requests[0]?.text ?? '{}').access_token).toBe('(redacted)');
    await page.close();
  });
});
