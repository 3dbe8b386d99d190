import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { Journal, JournalPool, type JournalRecord } from '../../src/harness/verdicts/journal.js';
import { jsonBytes, MemoryBudget } from '../../src/memory-budget.js';
import { notice } from '../../src/notices.js';
import { createTestServer, readSmallSet, type TestServer } from '../support/test-server.js';

/**
 * One memory budget for the whole server (`memoryBudget`): stored documents, the journals of the
 * root and of every session, fixture sets as built, bodies in flight after inflation. Each kind
 * within its share, all within the whole; a write past it answers 429 `memoryBudget` naming the
 * option, a journal past it drops its oldest entries. These run in-process with a small budget;
 * `memory-attacks.test.ts` runs the attacks against a child process with a small heap.
 */

interface Usage {
  used: number;
  limit: number;
  option: string;
}
interface MemoryView {
  heapLimit: number;
  total: Usage;
  kinds: Record<'documents' | 'journals' | 'fixtures' | 'bodies' | 'counters', Usage>;
}

async function memoryOf(server: TestServer): Promise<MemoryView> {
  const res = await server.http.get('/__admin/health');
  expect(res.status).toBe(200);
  return res.body.memory as MemoryView;
}

/** A set of `count` documents of about `textBytes` each, over the small set's catalogue. */
function bigSet(count: number, textBytes: number) {
  const set = readSmallSet();
  const first = set.documents?.[0] as Record<string, unknown>;
  return {
    ...set,
    documents: Array.from({ length: count }, (_, i) => ({
      ...first,
      id: 500_000 + i,
      description: `${i} ${'d'.repeat(textBytes)}`,
    })),
  };
}

/** A gzipped JSON body over real HTTP (supertest would serialise a Buffer as JSON). */
async function postGzip(
  url: string,
  body: Buffer,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the memory budget', () => {
  it('sizes every kind from memoryBudget, by default from the heap limit, and reports it in the root health only', async () => {
    const server = await createTestServer();
    const memory = await memoryOf(server);
    expect(memory.heapLimit).toBeGreaterThan(0);
    expect(memory.total.limit).toBe(Math.floor(memory.heapLimit * 0.2));
    expect(memory.total.option).toBe('memoryBudget');
    for (const kind of ['documents', 'journals', 'fixtures', 'bodies', 'counters'] as const) {
      expect(memory.kinds[kind].limit).toBeGreaterThan(0);
      expect(memory.kinds[kind].limit).toBeLessThanOrEqual(memory.total.limit);
    }
    const session = await server.http.post('/__admin/sessions').send({});
    const inSession = await server.http.get(`/sessions/${session.body.id}/__admin/health`);
    expect(inSession.body.memory).toBeUndefined();

    const sized = await createTestServer({ memoryBudget: 10_000_000, sessionFixturesBytes: 1_000_000 });
    const small = await memoryOf(sized);
    expect(small.total.limit).toBe(10_000_000);
    expect(small.kinds.documents.limit).toBe(5_000_000);
    expect(small.kinds.fixtures).toMatchObject({ limit: 1_000_000, option: 'sessionFixturesBytes' });
  });

  it('counts stored documents in bytes: a write past the share is 429 naming memoryBudget, nothing stored; a reset gives it back', async () => {
    const server = await createTestServer({ memoryBudget: 2_000_000 });
    const token = await server.token();
    const create = (i: number) =>
      server.http
        .post('/api/v2/documents')
        .set('x-access-token', token)
        .send({ templateUid: 'tpl-5001', title: `Big ${i}`, description: 'x'.repeat(200_000) });
    let refused: Awaited<ReturnType<typeof create>> | undefined;
    let created = 0;
    for (let i = 0; i < 20 && refused === undefined; i++) {
      const res = await create(i);
      if (res.status === 200) created++;
      else refused = res;
    }
    // The documents share is 1 MB: four documents of 200 KB fit, the sixth cannot.
    expect(created).toBeGreaterThanOrEqual(4);
    expect(created).toBeLessThan(6);
    expect(refused?.status).toBe(429);
    expect(refused?.body).toMatchObject({ success: false, status: 429, code: 0 });
    expect(refused?.body.message).toMatch(/memory budget reached: stored documents .*memoryBudget/);
    expect(server.mock.state().documents.filter((d) => d.label.startsWith('Big '))).toHaveLength(created);
    const full = await memoryOf(server);
    expect(full.kinds.documents.used).toBeGreaterThan(created * 200_000);
    expect(full.kinds.documents.used).toBeLessThanOrEqual(full.kinds.documents.limit);

    // A PATCH that grows a document past the share is refused too and changes nothing.
    const before = server.mock.state().documents.find((d) => d.label === 'Big 0');
    const id = before?.id;
    const patched = await server.http
      .patch(`/api/v2/documents/${id}`)
      .set('x-access-token', token)
      .send({
        name: { name: 'Name', description: '', value: { type: 'string', text: 'y'.repeat(500_000) } },
      });
    expect(patched.status).toBe(429);
    expect(server.mock.state().documents.find((d) => d.id === id)).toEqual(before);

    expect((await server.http.post('/__admin/reset')).status).toBe(200);
    expect((await memoryOf(server)).kinds.documents.used).toBe(0);
    expect((await create(99)).status).toBe(200);
  });

  it('keeps the journals of the root and every session within one share, the largest dropping its oldest first', async () => {
    const server = await createTestServer({ memoryBudget: 2_000_000 });
    const journals = (await memoryOf(server)).kinds.journals;
    expect(journals.limit).toBe(800_000);
    const quiet = (await server.http.post('/__admin/sessions').send({})).body.id as string;
    await server.http.get(`/sessions/${quiet}/api/v2/quiet`);
    const body = JSON.stringify({ filler: 'z'.repeat(30_000) });
    const noisy: string[] = [];
    for (let s = 0; s < 8; s++) {
      const id = (await server.http.post('/__admin/sessions').send({})).body.id as string;
      noisy.push(id);
      for (let i = 0; i < 10; i++) {
        const res = await server.http
          .post(`/sessions/${id}/api/v2/nowhere`)
          .set('content-type', 'application/json')
          .send(body);
        expect(res.status).toBe(404);
      }
    }
    // 80 entries of 30 KB were sent, 2.4 MB; the share holds 800 KB.
    const after = await memoryOf(server);
    expect(after.kinds.journals.used).toBeLessThanOrEqual(after.kinds.journals.limit);
    expect(after.kinds.journals.used).toBeGreaterThan(after.kinds.journals.limit / 2);
    const quietJournal = await server.http.get(`/sessions/${quiet}/__admin/requests`);
    expect(quietJournal.body.requests.map((r: { path: string }) => r.path)).toEqual(['/api/v2/quiet']);
    const last = await server.http.get(`/sessions/${noisy.at(-1)}/__admin/requests`);
    expect(last.body.count).toBeGreaterThan(0);
    // Deleting a session gives its journal's bytes back.
    for (const id of noisy) await server.http.delete(`/__admin/sessions/${id}`);
    expect((await memoryOf(server)).kinds.journals.used).toBeLessThan(2_000);
  });

  it('counts the findings a journal keeps after dropping their entries, so headers of violating requests stay bounded too', () => {
    const budget = new MemoryBudget({ memoryBudget: 1_000_000, sessionFixturesBytes: 1_000_000 });
    const pool = new JournalPool(budget);
    const journal = new Journal({ entries: 1000, bytes: 100_000, bodyBytes: 1000 }, pool);
    const record = (i: number): JournalRecord => ({
      arrivedAt: Date.now(),
      scheme: 'http',
      host: '127.0.0.1',
      via: 'direct',
      method: 'GET',
      path: `/api/v2/nowhere/${i}`,
      search: '',
      headers: { 'x-filler': 'h'.repeat(4000) },
      body: undefined,
      status: 404,
      durationMs: 1,
      response: undefined,
      operationId: undefined,
      fault: undefined,
      outcome: 'completed',
      violations: [{ location: 'path', message: 'Route not found' }],
      notices: [notice('nonApiPath', 'path', 'a notice too')],
      behaviours: ['error.routeNotFound', 'notice.nonApiPath'],
    });
    for (let i = 0; i < 500; i++) journal.record(record(i));
    // 500 violating requests with 4 KB of headers each: 2 MB if every finding were kept.
    const held = new Set(
      [...journal.violations(), ...journal.notices(), ...journal.list()].map((e) => e.path),
    );
    expect(held.size * 4000).toBeLessThanOrEqual(100_000);
    expect(held.size).toBeGreaterThan(10);
    expect(journal.bytes).toBeLessThanOrEqual(100_000);
    expect(budget.used('journals')).toBe(journal.bytes);
    // The newest is always there, in the journal and as a finding.
    expect(journal.list().at(-1)?.path).toBe('/api/v2/nowhere/499');
    expect(journal.violations().at(-1)?.path).toBe('/api/v2/nowhere/499');
    journal.dispose();
    expect(budget.used('journals')).toBe(0);
  });

  it('counts a session fixture set as built, gzipped or sent by PUT, and gives it back when the session goes', async () => {
    const set = bigSet(40, 10_000);
    const built = jsonBytes(set);
    const server = await createTestServer({
      memoryBudget: 100_000_000,
      sessionFixturesBytes: Math.floor(built * 2.5),
    });
    const gzipped = gzipSync(JSON.stringify({ fixtures: set }));
    // Compressed, it is far smaller than what it builds.
    expect(gzipped.length * 10).toBeLessThan(built);
    const url = await server.mock.listen(0, '127.0.0.1');
    const post = () => postGzip(`${url}/__admin/sessions`, gzipped);
    const first = await post();
    expect(first.status).toBe(201);
    const held = (await memoryOf(server)).kinds.fixtures.used;
    expect(held).toBeGreaterThanOrEqual(built * 0.9);
    expect((await post()).status).toBe(201);
    const refused = await post();
    expect(refused.status).toBe(429);
    await server.mock.close();
    expect(refused.body.message).toMatch(/fixture sets .*sessionFixturesBytes/);

    // A PUT of a set into a session that shares the root's is counted the same way.
    const plain = (await server.http.post('/__admin/sessions').send({})).body.id as string;
    const put = await server.http.put(`/sessions/${plain}/__admin/fixtures`).send(set);
    expect(put.status).toBe(429);
    expect((await server.http.get(`/sessions/${plain}/__admin/health`)).body.documents).toBe(5);

    expect((await server.http.delete(`/__admin/sessions/${(first.body as { id: string }).id}`)).status).toBe(
      200,
    );
    expect((await server.http.put(`/sessions/${plain}/__admin/fixtures`).send(set)).status).toBe(200);
    expect((await server.http.get(`/sessions/${plain}/__admin/health`)).body.documents).toBe(40);
  });

  it('bounds an admin body after inflation by the bodies share, and counts nothing once it is answered', async () => {
    const server = await createTestServer({ memoryBudget: 1_000_000 });
    const bodies = (await memoryOf(server)).kinds.bodies;
    expect(bodies.limit).toBe(300_000);
    const bomb = gzipSync(JSON.stringify({ fixtures: { padding: ' '.repeat(2_000_000) } }));
    expect(bomb.length).toBeLessThan(10_000);
    const url = await server.mock.listen(0, '127.0.0.1');
    const res = await postGzip(`${url}/__admin/sessions`, bomb);
    await server.mock.close();
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, status: 413, message: expect.stringMatching(/300000/) });
    expect((await memoryOf(server)).kinds.bodies.used).toBe(0);
  });

  it('answers a body refused for the bodies in flight readably: read to its end and dropped, the connection kept', async () => {
    // Bodies share 6 MB; one request holds 5 MB of it, declared and still arriving.
    const server = await createTestServer({ memoryBudget: 20_000_000, bodyLimit: 8_000_000 });
    const url = new URL(await server.mock.listen(0, '127.0.0.1'));
    const holder = connect(Number(url.port), '127.0.0.1');
    holder.write(
      `PUT /__admin/fixtures HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: 5000000\r\n\r\n{`,
    );
    await vi.waitFor(async () => expect((await memoryOf(server)).kinds.bodies.used).toBe(5_000_000));
    // A 4 MB body does not fit beside it: far more than the sockets buffer, so a server that
    // answered before reading it would leave this client writing into a closed connection.
    const refused = await fetch(`${url.origin}/__admin/fixtures`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ documents: 'x'.repeat(4_000_000) }),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('connection')).not.toBe('close');
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /request bodies in flight.*memoryBudget/,
    );
    // The holder goes away mid-body: its bytes come back at once, not at requestTimeoutMs.
    holder.destroy();
    await vi.waitFor(async () => expect((await memoryOf(server)).kinds.bodies.used).toBe(0));
    await server.mock.close();
  });

  it("refuses bytes that do not fit a kind's share or the whole, naming the option to raise", () => {
    const budget = new MemoryBudget({ memoryBudget: 1_000_000, sessionFixturesBytes: 1_000_000 });
    budget.reserve('bodies', 250_000);
    expect(budget.fits('bodies', 60_000)).toBe(false);
    const error = budget.refusal('bodies', 60_000);
    expect(error).toMatchObject({ kind: 'memoryBudget', status: 429 });
    expect(error.message).toMatch(
      /request bodies in flight would hold 310000 bytes.*retry shortly.*memoryBudget/,
    );
    // Within its share but past the whole: the whole is named.
    budget.reserve('documents', 400_000);
    budget.reserve('fixtures', 500_000);
    budget.reserve('journals', 80_000);
    expect(budget.fits('documents', 60_000)).toBe(false);
    expect(budget.refusal('documents', 60_000).message).toMatch(/all client data/);
    budget.release('fixtures', 500_000);
    expect(budget.fits('documents', 60_000)).toBe(true);
  });

  it('keeps bodies in flight out of the whole, so a full budget still answers a token call', () => {
    const budget = new MemoryBudget({ memoryBudget: 1_000_000, sessionFixturesBytes: 1_000_000 });
    // Documents and fixtures fill the whole between them (the shares add up past it).
    budget.reserve('documents', 500_000);
    budget.reserve('fixtures', 500_000);
    expect(budget.fits('journals', 1)).toBe(false);
    // A small body still fits: bodies are bounded by their own share only.
    expect(budget.fits('bodies', 200)).toBe(true);
    budget.reserve('bodies', 200);
    expect(budget.report().total.used).toBe(1_000_000);
    budget.release('bodies', 200);
    expect(budget.used('bodies')).toBe(0);
  });

  it('measures a value nested deeper than the call stack without a crash', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(jsonBytes(deep)).toBe(200_000 * 3 + 6);
    expect(jsonBytes({ a: 'bc', n: 1 })).toBe(2 + (1 + 4 + 4) + (1 + 4 + 8));
  });
});
