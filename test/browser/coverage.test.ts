import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEHAVIOUR_IDS } from '../../src/harness/verdicts/behaviours.js';
import { defaultApiKey, type MockServer } from '../../src/index.js';
import { accessToken } from '../support/request-token.js';
import { launchBrowser, openPage, poll, SLOW, screenshot, startFake } from './browser.js';

const KEY = defaultApiKey(1);

describe('in a browser: the inspector coverage tab', SLOW, () => {
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

  it('shows the behaviour map and the never-exercised list, each exercised behaviour opening the requests that exercised it', async () => {
    const token = await accessToken(url, KEY);
    const past = await fetch(`${url}/api/v2/documents?pageNum=9999`, {
      headers: { 'x-access-token': token },
    });
    expect(past.status).toBe(200);
    const pastId = (await mock.requests()).at(-1)?.id;

    await page.goto(`${url}/__admin/ui#coverage`);
    await poll(() => page.locator('.coverage-percent').textContent()).toContain(`/${BEHAVIOUR_IDS.length}`);
    // Exercised: the token, the page past the end; nothing else.
    const exercised = await page
      .locator('table.behaviours tr.exercised')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-behaviour')));
    expect(exercised.sort()).toEqual(['pagePastEnd', 'tokenIssued']);
    // Never exercised, most likely first, each with how to exercise it.
    const never = page.locator('table.never tbody tr');
    expect(await never.count()).toBe(BEHAVIOUR_IDS.length - 2);
    expect(await never.first().locator('td').nth(1).textContent()).toBe('5/5');
    expect(await page.locator('table.never tr[data-behaviour="tokenExpired"]').textContent()).toContain(
      'advanceClock',
    );

    // The behaviour links to its request, which opens with its marks.
    await page.locator('tr[data-behaviour="pagePastEnd"] .request-link').click();
    const detail = page.getByLabel(`request ${pastId}`);
    await poll(() => detail.textContent()).toContain('GET /api/v2/documents');
    expect(await detail.textContent()).toContain('pagePastEnd');
    await screenshot(page, 'inspector-coverage');
    expect(errors).toEqual([]);
  });

  it('counts every violating request in its verdict, however few the report still lists', async () => {
    const small = await startFake({ journalLimit: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${small.url}/api/v2/no-such-route-${i}`);
        expect(res.status).toBe(404);
      }
      expect((await small.mock.report()).violations).toHaveLength(1);
      const { page: other, errors: otherErrors } = await openPage(browser);
      await other.goto(`${small.url}/__admin/ui#coverage`);
      await poll(() => other.locator('.verdict').textContent()).toContain('3 requests broke the contract');
      expect(otherErrors).toEqual([]);
      await other.close();
    } finally {
      await small.mock.close();
    }
  });
});
