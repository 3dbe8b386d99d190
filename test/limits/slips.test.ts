import { describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, pickSettings } from '../../src/config.js';
import { Catalog } from '../../src/domain/catalog.js';
import { Clock, MAX_UNIX_SECONDS } from '../../src/domain/clock.js';
import { pageWindow } from '../../src/domain/list-page.js';
import { queryDocuments, SearchIndex } from '../../src/domain/list-query.js';
import { buildBase, DocumentStore } from '../../src/domain/store.js';
import { makeDataset } from '../fixtures/domain/dataset.js';
import { createTestServer, readSmallSet } from '../support/test-server.js';

/** Small edges where the fake once answered wrongly or left a client hanging. */

describe('edges', () => {
  it.each([100, 101, 199])(
    'refuses a fault with the informational status %i (it would leave the client waiting)',
    async (status) => {
      const server = await createTestServer();
      const res = await server.http.post('/__admin/faults').send({ status });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].location).toBe('body/status');
      expect(server.mock.faults()).toEqual([]);
    },
  );

  it('stops the clock at the end of year 9999 and can move it back from there', () => {
    let real = 1_700_000_000_000;
    const clock = new Clock(() => real);
    clock.set(MAX_UNIX_SECONDS);
    real += 60_000;
    expect(clock.nowMs()).toBe(MAX_UNIX_SECONDS * 1000);
    expect(new Date(clock.nowMs()).toISOString()).toBe('9999-12-31T23:59:59.000Z');
    clock.advance(-3600);
    expect(clock.nowSeconds()).toBe(MAX_UNIX_SECONDS - 3600);
    expect(() => clock.advance(7200)).toThrow(/9999-12-31/);
  });

  it('matches searchTxt within one text: a NUL matches no document rather than every one', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const all = await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);
    expect(all.body.results.length).toBeGreaterThan(0);
    const nul = await server.http
      .get('/api/v2/documents?pageNum=1&searchTxt=%00')
      .set('x-access-token', token);
    expect(nul.status).toBe(200);
    expect(nul.body.results).toEqual([]);
  });

  it('refuses at load a document id that would make the next id unsafe, naming its path', async () => {
    const server = await createTestServer();
    const set = readSmallSet();
    const first = set.documents?.[0];
    expect(first).toBeDefined();
    (first as { id: number }).id = Number.MAX_SAFE_INTEGER;
    const res = await server.http.put('/__admin/fixtures').send(set);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { location: string }) => e.location)).toContain('body/documents/0/id');
  });

  it('creates one document at the largest safe id, then refuses rather than overwrite', async () => {
    const server = await createTestServer();
    const set = readSmallSet();
    (set.documents?.[0] as { id: number }).id = Number.MAX_SAFE_INTEGER - 1;
    expect((await server.http.put('/__admin/fixtures').send(set)).status).toBe(200);
    const token = await server.token();
    const create = () =>
      server.http
        .put('/api/v2/documents')
        .set('x-access-token', token)
        .send({ templateUid: 'tpl-5001', id: '', title: 'New' });
    expect((await create()).status).toBe(200);
    const refused = await create();
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/no id is left/);
    const ids = server.mock.state().documents.map((d) => d.id);
    expect(ids.filter((id) => id === Number.MAX_SAFE_INTEGER)).toHaveLength(1);
  });
});

describe('memory that grows with what clients send, bounded', () => {
  it('refuses creates past maxCreatedDocuments (the whole batch), and a reset makes room again', async () => {
    const server = await createTestServer({ maxCreatedDocuments: 3 });
    const token = await server.token();
    const create = (n: number) =>
      server.http
        .post('/api/v2/documents')
        .set('x-access-token', token)
        .send(Array.from({ length: n }, (_, i) => ({ templateUid: 'tpl-5001', title: `New ${i}` })));
    expect((await create(2)).status).toBe(200);
    const before = server.mock.state().documents.length;
    const refused = await create(2);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/maxCreatedDocuments/);
    expect(server.mock.state().documents.length).toBe(before);
    expect((await create(1)).status).toBe(200);
    server.mock.reset();
    const again = await server.http
      .post('/api/v2/documents')
      .set('x-access-token', await server.token())
      .send([
        { templateUid: 'tpl-5001', title: 'a' },
        { templateUid: 'tpl-5001', title: 'b' },
      ]);
    expect(again.status).toBe(200);
  });

  it('keeps the filter bookkeeping bounded when every list asks for another clientId', () => {
    const dataset = makeDataset();
    const catalog = new Catalog(dataset);
    const search = new SearchIndex(catalog);
    const store = new DocumentStore(buildBase(dataset.documents));
    const orders = store.ordersOf(1);
    expect(orders).toBeDefined();
    const window = pageWindow({}, pickSettings(DEFAULT_OPTIONS));
    for (let clientId = 1; clientId <= 2000; clientId++) {
      queryDocuments(orders, { clientId }, window, search);
      queryDocuments(orders, { clientId }, window, search);
    }
    const counts = search.viewCounts(orders?.byLabel ?? []);
    expect(counts.seen).toBeLessThanOrEqual(256);
    expect(counts.views).toBeLessThanOrEqual(64);
    expect(queryDocuments(orders, { clientId: 10 }, window, search).length).toBeGreaterThan(0);
  });
});

describe('sessions within a memory budget', () => {
  it('refuses a session whose fixture set would pass sessionFixturesBytes, with 429, and takes it again once room is made', async () => {
    const fixtures = readSmallSet();
    const size = Buffer.byteLength(JSON.stringify({ fixtures }));
    // Room for one such set, not two.
    const server = await createTestServer({ sessionFixturesBytes: Math.floor(size * 1.5) });
    const first = await server.http.post('/__admin/sessions').send({ fixtures });
    expect(first.status).toBe(201);
    // Sessions sharing the root's fixtures cost nothing of the budget.
    expect((await server.http.post('/__admin/sessions').send({})).status).toBe(201);
    const refused = await server.http.post('/__admin/sessions').send({ fixtures });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/sessionFixturesBytes/);
    expect((await server.http.delete(`/__admin/sessions/${first.body.id}`)).status).toBe(200);
    expect((await server.http.post('/__admin/sessions').send({ fixtures })).status).toBe(201);
  });
});
