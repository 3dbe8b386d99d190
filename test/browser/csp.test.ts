import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { launchBrowser, openPage, poll, SLOW, screenshot, startFake } from './browser.js';

/**
 * Every page runs under a Content-Security-Policy that lets only its own files run as scripts:
 * the pages still work (no violation reported while they load and are used), and a script a
 * client smuggled into the page does not run.
 */

interface Watched {
  page: Page;
  errors: string[];
  /** Console messages of the browser (CSP violations are reported there as errors). */
  console: string[];
  /** `securitypolicyviolation` events the page saw: the directive and what was blocked. */
  violations: () => Promise<string[]>;
}

async function watchedPage(browser: Browser, width = 1280, height = 800): Promise<Watched> {
  const { page, errors } = await openPage(browser, width, height);
  const console: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') console.push(message.text());
  });
  // Page scripts as text: the tests are compiled without the DOM's types.
  await page.addInitScript({
    content: `window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.cspViolations.push(e.effectiveDirective + ' ' + e.blockedURI));`,
  });
  const violations = () => page.evaluate<string[]>('window.cspViolations');
  return { page, errors, console, violations };
}

const refused = (messages: string[]) => messages.filter((m) => /Content Security Policy|Refused to/i.test(m));

describe('in a browser: the pages under their Content-Security-Policy', SLOW, () => {
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

  it('sends the policy with every page', async () => {
    for (const path of ['/', '/docs', '/__admin/ui']) {
      const res = await fetch(`${url}${path}`, { headers: { accept: 'text/html' } });
      const policy = res.headers.get('content-security-policy') ?? '';
      expect(policy).toMatch(/(^|; )script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')*(;|$)/);
      for (const directive of ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"])
        expect(policy).toContain(directive);
      expect(policy).not.toContain('unsafe-eval');
      expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
  });

  it('the landing page runs its own inline script (by hash) and nothing injected', async () => {
    const { page, errors, console, violations } = await watchedPage(browser);
    await page.goto(`${url}/`);
    // Its one inline script ran: it filled in the base URL.
    expect(await page.locator('#base').textContent()).toBe(url);
    expect(refused(console)).toEqual([]);
    expect(await violations()).toEqual([]);
    await screenshot(page, 'csp-landing');
    // What a stored value would try once it reached the page: an inline script and a handler.
    await page.evaluate(`{
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.body.append(script);
      document.body.insertAdjacentHTML('beforeend', '<img src="/nothing" onerror="window.injected = true">');
    }`);
    await poll(async () => (await violations()).length).toBeGreaterThanOrEqual(2);
    expect(await page.evaluate('window.injected')).toBeUndefined();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('Swagger UI works under it: renders, tries the token call, no violation', async () => {
    const { page, errors, console, violations } = await watchedPage(browser, 1280, 900);
    await page.goto(`${url}/docs`);
    const token = page.locator('#operations-auth-createClientToken');
    await token.waitFor();
    await token.locator('.opblock-summary').click();
    await token.getByRole('button', { name: 'Execute' }).click();
    const status = token.locator('.live-responses-table tbody .response-col_status').first();
    await poll(() => status.textContent()).toContain('200');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'csp-docs');
    expect(refused(console)).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the inspector works under it: shows the journal and the keys, no violation', async () => {
    await fetch(`${url}/api/v2/documents`);
    const { page, errors, console, violations } = await watchedPage(browser);
    await page.goto(`${url}/__admin/ui`);
    await page.locator('table.requests').waitFor();
    await poll(() => page.locator('table.requests').textContent()).toContain('/api/v2/documents');
    await page.goto(`${url}/__admin/ui#keys`);
    await page.reload();
    await poll(() => page.locator('main').textContent()).toContain('x-hash');
    await screenshot(page, 'csp-inspector-keys');
    await page.goto(`${url}/__admin/ui`);
    await page.locator('table.requests').waitFor();
    await screenshot(page, 'csp-inspector');
    expect(refused(console)).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
