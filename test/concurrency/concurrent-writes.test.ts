/**
 * Many clients write the same documents at once, over real HTTP on a listening fake, through
 * single PATCHes and batch PUT/PATCH calls (some of them invalid), while readers list the
 * documents. Every write sets every touched document's tagged fields (title for batches; the
 * `name` detail and a second detail for all) to its own tag, so the state names its last writer.
 *
 * Checked: every batch is all-or-nothing (no document carries a rejected write's tag, no document
 * is torn between two writers, no reader ever sees half a batch), and the final state equals some
 * serial order of the accepted writes (the "who overwrote whom" graph is acyclic).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFetchResponse, defaultConformanceChecker } from '../support/conformance.js';
import { ACME_KEY, createTestServer, textEntry as entry, type TestServer } from '../support/test-server.js';

const WRITERS = 16;
const WRITES_PER_WRITER = 12;
const READERS = 4;

interface Doc {
  id: number;
  templateUid: string;
  /** The second tagged detail (a field of the document's template). */
  field: string;
}

const DOCS: Doc[] = [
  { id: 101101, templateUid: 'tpl-5001', field: 'city' },
  { id: 101102, templateUid: 'TPL-5001', field: 'city' },
  { id: 101103, templateUid: 'tpl-79', field: 'serial_number' },
  { id: 101104, templateUid: '79', field: 'serial_number' },
];

interface Write {
  tag: string;
  kind: 'single' | 'put' | 'patch';
  docs: number[];
  /** A batch item that makes the whole batch fail (or none). */
  poison: 'none' | 'unknownKey' | 'foreign' | 'badTemplate';
  creates: boolean;
  accepted?: boolean;
  status?: number;
}

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function detailsFor(doc: Doc, tag: string): Record<string, unknown> {
  return { name: entry('Name', tag), [doc.field]: entry(doc.field, tag) };
}

function requestOf(write: Write): { method: string; path: string; body: unknown } {
  const docs = write.docs.map((id) => DOCS.find((d) => d.id === id) as Doc);
  if (write.kind === 'single') {
    const [doc] = docs as [Doc];
    return { method: 'PATCH', path: `/api/v2/documents/${doc.id}`, body: detailsFor(doc, write.tag) };
  }
  const items: unknown[] = docs.map((doc) => ({
    templateUid: doc.templateUid,
    id: doc.id,
    title: write.tag,
    details: detailsFor(doc, write.tag),
  }));
  if (write.creates) {
    items.push({ templateUid: 5001, id: '', title: write.tag, details: { name: entry('Name', write.tag) } });
  }
  if (write.poison === 'unknownKey')
    items.push({
      templateUid: 'tpl-5001',
      id: 101101,
      title: write.tag,
      details: { zz_unknown: entry('x', 'y') },
    });
  if (write.poison === 'foreign') items.push({ templateUid: 'tpl-5001', id: 201101, title: write.tag });
  if (write.poison === 'badTemplate') items.push({ templateUid: 'tpl-424242', id: 101102, title: write.tag });
  return { method: write.kind === 'put' ? 'PUT' : 'PATCH', path: '/api/v2/documents', body: items };
}

function planWrites(writer: number, random: () => number): Write[] {
  const writes: Write[] = [];
  for (let n = 0; n < WRITES_PER_WRITER; n++) {
    const roll = random();
    const tag = `w${writer}.${n}`;
    if (roll < 0.3) {
      const doc = DOCS[Math.floor(random() * DOCS.length)] as Doc;
      writes.push({ tag, kind: 'single', docs: [doc.id], poison: 'none', creates: false });
      continue;
    }
    const shuffled = [...DOCS].sort(() => random() - 0.5);
    const count = 2 + Math.floor(random() * (DOCS.length - 1));
    const poisonRoll = random();
    writes.push({
      tag,
      kind: random() < 0.5 ? 'put' : 'patch',
      docs: shuffled.slice(0, count).map((d) => d.id),
      poison:
        poisonRoll < 0.1
          ? 'unknownKey'
          : poisonRoll < 0.15
            ? 'foreign'
            : poisonRoll < 0.2
              ? 'badTemplate'
              : 'none',
      creates: random() < 0.2,
    });
  }
  return writes;
}

/**
 * Is there a serial order of the writes in `included` that ends in `winners` (doc → tag of its
 * last writer)? Every write in `included` that touched a document the final value does not name
 * must come before the named writer: an edge in a graph that must have no cycle.
 */
function serialOrderExists(
  winners: Map<number, string | undefined>,
  writesByTag: Map<string, Write>,
  included: Set<string>,
): { ok: true } | { ok: false; reason: string } {
  const edges = new Map<string, Set<string>>();
  for (const tag of included) edges.set(tag, new Set());
  for (const tag of included) {
    const write = writesByTag.get(tag);
    if (!write) return { ok: false, reason: `unknown tag ${tag}` };
    for (const doc of write.docs) {
      const winner = winners.get(doc);
      if (winner === undefined)
        return { ok: false, reason: `${tag} was applied but document ${doc} shows no writer` };
      if (!included.has(winner))
        return { ok: false, reason: `document ${doc} shows ${winner}, which is not applied` };
      if (winner !== tag) edges.get(tag)?.add(winner);
    }
  }
  // Kahn's algorithm: every node removed means an order exists.
  const indegree = new Map([...included].map((t) => [t, 0]));
  for (const targets of edges.values()) for (const t of targets) indegree.set(t, (indegree.get(t) ?? 0) + 1);
  const ready = [...indegree].filter(([, d]) => d === 0).map(([t]) => t);
  let removed = 0;
  while (ready.length > 0) {
    const tag = ready.pop() as string;
    removed++;
    for (const t of edges.get(tag) ?? []) {
      const d = (indegree.get(t) ?? 0) - 1;
      indegree.set(t, d);
      if (d === 0) ready.push(t);
    }
  }
  if (removed !== included.size) {
    const cyclic = [...indegree].filter(([, d]) => d > 0).map(([t]) => t);
    return { ok: false, reason: `no serial order: cycle among ${cyclic.slice(0, 8).join(', ')}` };
  }
  return { ok: true };
}

describe('concurrent writers on a listening fake', () => {
  let server: TestServer;
  let url: string;
  const checker = defaultConformanceChecker();

  beforeAll(async () => {
    server = await createTestServer();
    url = await server.mock.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.mock.close();
  });

  async function call(method: string, path: string, token: string, body?: unknown) {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        'x-access-token': token,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = await checkFetchResponse(method, `${url}${path}`, res, checker);
    return { status: res.status, body: parsed as Record<string, unknown> };
  }

  it('applies every batch whole or not at all, in some serial order, and readers never see half a batch', async () => {
    const random = prng(Number(process.env.FC_SEED ?? 20_240_611));
    const plans = Array.from({ length: WRITERS }, (_, w) => planWrites(w, random));
    const writesByTag = new Map(plans.flat().map((w) => [w.tag, w]));
    const tokens = await Promise.all(plans.map(() => server.token(ACME_KEY)));
    const readerToken = await server.token(ACME_KEY);
    const initialCount = server.mock.root.fake.documentCount();

    let writing = true;
    const observed: Array<Map<number, string | undefined>> = [];
    const readers = Array.from({ length: READERS }, async () => {
      while (writing) {
        const res = await call('GET', '/api/v2/documents?resultsPerPage=1000&orderBy=id', readerToken);
        expect(res.status).toBe(200);
        const labels = new Map<number, string | undefined>();
        for (const doc of res.body.results as Array<{ id: number; label: string }>) {
          labels.set(doc.id, writesByTag.has(doc.label) ? doc.label : undefined);
        }
        observed.push(labels);
      }
    });
    const writers = plans.map(async (writes, w) => {
      for (const write of writes) {
        const { method, path, body } = requestOf(write);
        const res = await call(method, path, tokens[w] as string, body);
        write.status = res.status;
        write.accepted = res.status === 200;
      }
    });
    await Promise.all(writers);
    writing = false;
    await Promise.all(readers);

    const writes = [...writesByTag.values()];
    // Poisoned batches are rejected (400 or 403); clean ones accepted.
    for (const write of writes) {
      if (write.poison === 'none') expect(write.status, write.tag).toBe(200);
      else expect([400, 403], write.tag).toContain(write.status);
    }
    const accepted = writes.filter((w) => w.accepted);
    const rejectedTags = new Set(writes.filter((w) => !w.accepted).map((w) => w.tag));
    expect(accepted.length).toBeGreaterThan(WRITERS * WRITES_PER_WRITER * 0.6);
    expect(rejectedTags.size).toBeGreaterThan(0);

    // The final state, read back over HTTP.
    const nameWinners = new Map<number, string | undefined>();
    const labelWinners = new Map<number, string | undefined>();
    for (const doc of DOCS) {
      const res = await call('GET', `/api/v2/documents/${doc.id}`, readerToken);
      const details = res.body.details as Record<string, { value?: { text?: string } } | null>;
      const name = details.name?.value?.text;
      const second = details[doc.field]?.value?.text;
      expect(second, `document ${doc.id} is torn between writers`).toBe(name);
      expect(rejectedTags.has(String(name)), `document ${doc.id} carries rejected ${name}`).toBe(false);
      nameWinners.set(doc.id, name !== undefined && writesByTag.has(name) ? name : undefined);
    }
    const list = await call('GET', '/api/v2/documents?resultsPerPage=1000', readerToken);
    const labels = new Map(
      (list.body.results as Array<{ id: number; label: string }>).map((d) => [d.id, d.label]),
    );
    for (const doc of DOCS) {
      const label = labels.get(doc.id) ?? '';
      expect(rejectedTags.has(label), `document ${doc.id} titled by rejected ${label}`).toBe(false);
      labelWinners.set(doc.id, writesByTag.has(label) ? label : undefined);
      const winner = nameWinners.get(doc.id);
      // A batch that wrote the details last also wrote the title.
      if (winner && writesByTag.get(winner)?.kind !== 'single')
        expect(label, `document ${doc.id}`).toBe(winner);
    }

    // Details: every accepted write is in the order.
    const all = new Set(accepted.map((w) => w.tag));
    expect(serialOrderExists(nameWinners, writesByTag, all)).toEqual({ ok: true });
    // Titles: the same for the accepted batches alone (single PATCHes do not touch titles).
    const batches = new Set(accepted.filter((w) => w.kind !== 'single').map((w) => w.tag));
    expect(serialOrderExists(labelWinners, writesByTag, batches)).toEqual({ ok: true });

    // Created documents: exactly one per accepted creating batch, none from rejected ones.
    const createdTitles = [...labels.values()].filter((l) => writesByTag.get(l)?.creates);
    const creators = accepted.filter((w) => w.creates).map((w) => w.tag);
    const snapshotTitles = server.mock.root.fake
      .snapshot()
      .documents.filter((d) => !DOCS.some((x) => x.id === d.id))
      .map((d) => d.label);
    for (const tag of creators)
      expect(
        snapshotTitles.filter((t) => t === tag),
        tag,
      ).toHaveLength(1);
    for (const title of createdTitles) expect(rejectedTags.has(title)).toBe(false);
    expect(server.mock.root.fake.documentCount()).toBe(initialCount + creators.length);

    // Every read saw a state some serial prefix of the batches explains: never half a batch.
    expect(observed.length).toBeGreaterThan(READERS);
    for (const [i, snapshot] of observed.entries()) {
      const visible = new Set([...snapshot.values()].filter((t): t is string => t !== undefined));
      for (const tag of visible) expect(rejectedTags.has(tag), `read ${i} saw rejected ${tag}`).toBe(false);
      const restricted = new Map(DOCS.map((d) => [d.id, snapshot.get(d.id)]));
      const batchVisible = new Set([...visible].filter((t) => writesByTag.get(t)?.kind !== 'single'));
      const verdict = serialOrderExists(restricted, writesByTag, batchVisible);
      expect(verdict, `read ${i}`).toEqual({ ok: true });
    }
  });

  it('the serial-order check rejects a torn batch and a cycle', () => {
    const writesByTag = new Map<string, Write>([
      ['a', { tag: 'a', kind: 'put', docs: [1, 2], poison: 'none', creates: false }],
      ['b', { tag: 'b', kind: 'put', docs: [1, 2], poison: 'none', creates: false }],
    ]);
    const both = new Set(['a', 'b']);
    expect(
      serialOrderExists(
        new Map([
          [1, 'b'],
          [2, 'b'],
        ]),
        writesByTag,
        both,
      ),
    ).toEqual({ ok: true });
    // a then b on document 1, b then a on document 2: no single order.
    expect(
      serialOrderExists(
        new Map([
          [1, 'b'],
          [2, 'a'],
        ]),
        writesByTag,
        both,
      ).ok,
    ).toBe(false);
    // Half of a applied.
    expect(
      serialOrderExists(
        new Map([
          [1, 'a'],
          [2, undefined],
        ]),
        writesByTag,
        new Set(['a']),
      ).ok,
    ).toBe(false);
  });
});
