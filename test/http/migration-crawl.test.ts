import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_TYPES } from '../../src/domain/types.js';
import { createMockServer, defaultApiKey, type MockServer } from '../../src/index.js';

/**
 * The crawl a public migration tool makes against the live service, played against the default
 * fixtures over real HTTP: a form-encoded token request with upper-case `X-KEY`/`X-HASH` and a
 * fixed `content` holding `&`; the client list paged until empty; then, for every type (one of
 * them outside the documented list) and every client, `documents/all` paged until empty; then
 * every document read. Such a tool turns any error into "no data", so it must lose nothing here.
 */

const KEY = defaultApiKey(1);
const CONTENT = 'Passportal&Migration&Tool';
/** The types the tool asks for: the documented ones, and one the documentation does not list. */
const TYPES = [...TEMPLATE_TYPES, 'folders'];

let mock: MockServer;
let base: string;

beforeAll(async () => {
  mock = await createMockServer({ logLevel: 'silent' });
  base = await mock.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await mock.close();
});

/** A client as the tool writes it: form-encoded token, `x-access-token`, page until empty. */
async function crawl(): Promise<Map<number, unknown>> {
  const tokenRes = await fetch(`${base}/api/v2/auth/client_token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-KEY': KEY.keyId,
      'X-HASH': createHmac('sha256', KEY.secret).update(CONTENT).digest('hex'),
    },
    body: new URLSearchParams({ scope: 'docs_api', content: CONTENT }).toString(),
  });
  expect(tokenRes.status).toBe(200);
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}${path}`, { headers: { 'x-access-token': token } });
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };

  const clients: Array<{ id: number; name: string }> = [];
  for (let page = 1; ; page++) {
    const { results } = await get<{ results: Array<{ id: number; name: string }> }>(
      `/api/v2/documents/clients?resultsPerPage=1000&pageNum=${page}`,
    );
    if (results.length === 0) break;
    clients.push(...results);
  }

  const summaries = new Map<number, { id: number }>();
  for (const type of TYPES) {
    for (const client of clients) {
      for (let page = 1; ; page++) {
        const { results } = await get<{ results: Array<{ id: number }> }>(
          `/api/v2/documents/all?type=${type}&orderBy=label&orderDir=asc&clientId=${client.id}&resultsPerPage=1000&pageNum=${page}`,
        );
        if (results.length === 0) break;
        for (const row of results) summaries.set(row.id, row);
      }
    }
  }

  const details = new Map<number, unknown>();
  for (const id of summaries.keys()) {
    const doc = await get<{ id: number; details: unknown }>(`/api/v2/documents/${id}`);
    details.set(doc.id, doc.details);
  }
  return details;
}

describe('the migration crawl', () => {
  it('collects every document of the organization, with no violation and the expected notices', async () => {
    const collected = await crawl();

    const expected = mock.state().documents.filter((d) => d.organization_id === KEY.organizationId);
    expect(expected.length).toBeGreaterThan(100);
    expect([...collected.keys()].sort((a, b) => a - b)).toEqual(
      expected.map((d) => d.id).sort((a, b) => a - b),
    );
    for (const doc of expected) expect(collected.get(doc.id)).toEqual(doc.details);

    expect(await mock.violations()).toEqual([]);
    const notices = (await mock.notices()).flatMap((r) => r.notices.map((n) => `${r.path} ${n.location}`));
    // Every list and client-list call asked for 1000 rows per page: above the cap of 100.
    expect(notices).toContain('/api/v2/documents/clients query.resultsPerPage');
    expect(notices).toContain('/api/v2/documents/all query.resultsPerPage');
    // `folders` is not a type the documentation lists.
    expect(notices).toContain('/api/v2/documents/all query.type');
    // The crawler asks for its token with a form-encoded body; the documentation shows JSON.
    expect(notices).toContain('/api/v2/auth/client_token header.content-type');
    expect(new Set(notices)).toEqual(
      new Set([
        '/api/v2/auth/client_token header.content-type',
        '/api/v2/documents/clients query.resultsPerPage',
        '/api/v2/documents/all query.resultsPerPage',
        '/api/v2/documents/all query.type',
      ]),
    );
  });
});
