import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { SMALL_SET } from '../support/test-server.js';
import { launchBrowser, openPage, poll, SLOW, startFake } from './browser.js';

/** --watch as a person sees it: each reload, good or refused, is a row of the inspector's journal. */
describe('in a browser: fixture reloads in the inspector', SLOW, () => {
  let browser: Browser;
  let mock: MockServer;
  let url: string;
  let page: Page;
  let errors: string[];
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fake-watch-ui-'));
    copyFileSync(SMALL_SET, join(dir, 'set.json'));
    browser = await launchBrowser();
    ({ mock, url } = await startFake({ fixtures: join(dir, 'set.json'), watch: true }));
    ({ page, errors } = await openPage(browser));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('shows a reload and a refused edit as journal rows, the refusal opening to its problems', async () => {
    await page.goto(`${url}/__admin/ui`);
    await poll(() => page.locator('.count').textContent()).toBe('0 requests');
    const file = join(dir, 'set.json');
    const set = JSON.parse(readFileSync(file, 'utf8'));
    set.documents[0].label = 'Edited In The Editor';
    writeFileSync(file, JSON.stringify(set));
    const rows = page.locator('table.requests tbody tr');
    await poll(() => rows.count()).toBe(1);
    await expect(rows.nth(0).textContent()).resolves.toContain('/__admin/fixtures');
    await expect(rows.nth(0).textContent()).resolves.toContain('RELOAD');
    set.documents[0].client_id = 'not a number';
    writeFileSync(file, JSON.stringify(set));
    await poll(() => rows.count()).toBe(2);
    await rows.nth(0).click();
    const detail = page.getByLabel('request detail');
    await poll(() => detail.locator('.detail-status').textContent()).toBe('400');
    await expect(detail.textContent()).resolves.toContain('client_id');
    expect(errors).toEqual([]);
  });
});
