import { findChromium } from '../browser/browser.js';

/**
 * vitest global setup: where neither `CHROMIUM_PATH` nor a system Chromium is there, the packaged
 * one (`@sparticuz/chromium`) is unpacked here, once, before the test files run side by side, so
 * that no two of them unpack it into the same file at once. Later runs find it unpacked.
 */
export default async function setup(): Promise<void> {
  await findChromium();
}
