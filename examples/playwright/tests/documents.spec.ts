import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from '../../../src/playwright/index.js';

// Each test gets a session of its own; the page sends its baggage to the app, whose backend
// carries it to the fake, so what one test changes no other test sees.
test.beforeEach(async ({ page, passportalSession }) => {
  await page.setExtraHTTPHeaders(passportalSession.headers);
});

for (const backend of ['otel', 'manual']) {
  test(`renames a document through the ${backend} backend, in its own session`, async ({
    page,
    passportalSession,
  }) => {
    await page.goto(`/?backend=${backend}`);
    const first = page.locator('#documents li').first();
    // The fixture set's title: no other test's rename reached this session.
    await expect(first).toHaveText('Dell');
    await page.getByLabel('Title').fill(`Renamed by ${backend}`);
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect(first).toHaveText(`Renamed by ${backend}`);
    // The requests reached the test's session, through the backend, by its baggage.
    const journal = await passportalSession.admin.requests();
    expect(journal.requests.map((r) => r.via)).toContain('baggage-session');
    expect(journal.requests.some((r) => r.method === 'PATCH' && r.status === 200)).toBe(true);
  });
}

test('replays the session recorded as HAR in the browser', async ({ page, passportalSession }, testInfo) => {
  await page.goto('/?backend=otel');
  await expect(page.locator('#documents li')).toHaveCount(10);
  // The backend's calls to the fake, as HAR; the browser then fetches the fake's URL itself,
  // answered from the archive, not by the fake.
  const har = await passportalSession.admin.har();
  const file = testInfo.outputPath('session.har');
  writeFileSync(file, JSON.stringify(har));
  const listUrl = har.log.entries.find((e) => e.request.url.includes('/api/v2/documents?'))?.request.url;
  expect(listUrl).toBeDefined();
  await page.routeFromHAR(file, { url: '**/api/v2/**', notFound: 'abort' });
  const before = (await passportalSession.admin.requests()).count;
  const replayed = await page.evaluate(async (url) => {
    const res = await fetch(url, { headers: { 'x-access-token': 'not-needed-for-a-replay' } });
    return { status: res.status, body: (await res.json()) as { results: Array<{ label: string }> } };
  }, listUrl as string);
  expect(replayed.status).toBe(200);
  expect(replayed.body.results).toHaveLength(10);
  expect(replayed.body.results[0]?.label).toBe('Dell');
  expect((await passportalSession.admin.requests()).count).toBe(before);
  expect(JSON.parse(readFileSync(file, 'utf8')).log.version).toBe('1.2');
});
