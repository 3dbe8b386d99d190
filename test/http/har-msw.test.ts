import { fromTraffic } from '@msw/source/traffic';
import type { Har as HarFormat } from 'har-format';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { accessToken } from '../support/request-token.js';
import { ACME_KEY, createTestServer } from '../support/test-server.js';

/**
 * A HAR of the fake (`GET /__admin/har`, docs/frontend.md) imported into MSW with @msw/source's
 * `fromTraffic`: the handlers it makes answer the recorded requests with the recorded answers,
 * the fake no longer asked.
 */

let mock: MockServer;
let listUrl: string;
let handlers: ReturnType<typeof fromTraffic>;

beforeAll(async () => {
  mock = (await createTestServer()).mock;
  const base = await mock.listen(0, '127.0.0.1');
  const token = await accessToken(base, ACME_KEY);
  listUrl = `${base}/api/v2/documents?pageNum=1&resultsPerPage=2`;
  expect((await fetch(listUrl, { headers: { 'x-access-token': token } })).status).toBe(200);
  // As JSON, the way a file of it reaches MSW.
  const har = JSON.parse(JSON.stringify(await mock.har())) as HarFormat;
  handlers = fromTraffic(har);
});
afterAll(async () => {
  await mock.close();
});

describe('MSW imports the HAR', () => {
  it('answers the recorded list from the archive, not from the fake', async () => {
    expect(handlers.length).toBeGreaterThanOrEqual(2);
    const recorded = (await mock.requests()).length;
    const msw = setupServer(...handlers);
    msw.listen({ onUnhandledRequest: 'error' });
    try {
      const res = await fetch(listUrl, { headers: { 'x-access-token': 'any' } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { results: Array<{ id: number }> };
      expect(body.results).toHaveLength(2);
    } finally {
      msw.close();
    }
    expect(await mock.requests()).toHaveLength(recorded);
  });
});
