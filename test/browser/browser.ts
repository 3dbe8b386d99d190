import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createMockServer, type MockServer, type MockServerOptions } from '../../src/index.js';

/**
 * Headless Chromium for the page tests, driven by playwright-core: the one `CHROMIUM_PATH` names,
 * else the system's (`/usr/bin/chromium`, Debian's package), else the headless Chromium that ships
 * inside the `@sparticuz/chromium` devDependency (unpacked once into the temporary folder), so a
 * machine with only Node runs these tests too, without a browser download. A Chromium that
 * cannot be found or started fails the tests, it never skips them.
 */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/** Where the Chromium the tests drive is: `CHROMIUM_PATH`, the system's, or the packaged one. */
export async function findChromium(
  env: NodeJS.ProcessEnv = process.env,
  system = SYSTEM_CHROMIUM,
): Promise<string> {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  if (existsSync(system)) return system;
  const { default: packaged } = await import('@sparticuz/chromium');
  return packaged.executablePath();
}

/** Screenshots taken by the tests, kept as artifacts (git-ignored). */
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

export async function launchBrowser(path?: string): Promise<Browser> {
  const executablePath = path ?? (await findChromium());
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: set CHROMIUM_PATH, install one (apt-get install chromium), or run npm ci for the packaged one`,
    );
  }
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A fake on a free port of 127.0.0.1 (a secure context for WebCrypto), silent. */
export async function startFake(options: MockServerOptions = {}): Promise<{ mock: MockServer; url: string }> {
  const mock = await createMockServer({ logLevel: 'silent', ...options });
  const url = await mock.listen(0, '127.0.0.1');
  return { mock, url };
}

/** A page whose console errors and failed page scripts fail the test that reads them. */
export async function openPage(
  browser: Browser,
  width = 1280,
  height = 800,
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width, height } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/**
 * Time a browser test may take: pages are slow on a busy machine (a CI runner running the other
 * suites beside these), and a wait that is too short fails a test that would have passed.
 */
export const SLOW = { timeout: 90_000 };

/** `expect.poll` with room for a busy machine: the page's state asked for until it holds. */
export const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });
