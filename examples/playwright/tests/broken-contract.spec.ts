import { expect, test } from '../../../src/playwright/index.js';

// Fails on purpose: the broken backend sends a detail key the document's template does not have.
// The fixture fails the test after it ran, naming the violation, with the HAR attached.
test('a backend that breaks the contract fails its test', async ({ page, passportalSession }) => {
  await page.setExtraHTTPHeaders(passportalSession.headers);
  await page.goto('/?backend=broken');
  await page.getByLabel('Title').fill('Broken');
  await page.getByRole('button', { name: 'Rename' }).click();
  await expect(page.getByRole('status')).toHaveText('Not saved (502)');
});
