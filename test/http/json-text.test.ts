import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type JsonBytes,
  type JsonTextMemo,
  RecentJsonTexts,
  renderJson,
  renderJsonBytes,
  renderJsonPieces,
} from '../../src/contract/json-text.js';
import { ACME_KEY, createTestServer } from '../support/test-server.js';

/** A memo that counts the texts it makes, so a test sees which objects were rendered from it. */
function countingMemo(): JsonTextMemo & { made: number; asked: number } {
  const texts = new WeakMap<object, JsonBytes>();
  return {
    made: 0,
    asked: 0,
    of(value) {
      this.asked++;
      let json = texts.get(value);
      if (json === undefined) {
        this.made++;
        json = { buffer: Buffer.from(JSON.stringify(value)) };
        texts.set(value, json);
      }
      return json;
    },
    key(name) {
      return { buffer: Buffer.from(JSON.stringify(name)) };
    },
  };
}

/** JSON values with frozen objects here and there, and members JSON leaves out, at every depth. */
const bodies = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }),
    tie('object'),
    tie('array'),
    tie('object').map((o) => Object.freeze(o)),
  ),
  object: fc.dictionary(
    fc.string(),
    fc.oneof(
      tie('value'),
      fc.constant(undefined),
      fc.constant(() => 1),
    ),
    { maxKeys: 6 },
  ),
  array: fc.array(fc.oneof(tie('value'), fc.constant(undefined)), { maxLength: 6 }),
})).value;

describe('rendering a body', () => {
  it('is JSON.stringify of the body, byte for byte, with its UTF-8 length, memo or not', () => {
    fc.assert(
      fc.property(bodies, (body) => {
        const expected = JSON.stringify(body) ?? '';
        for (const memo of [undefined, countingMemo(), new RecentJsonTexts(2, 64)]) {
          const json = renderJson(body, memo);
          expect(json.text).toBe(expected);
          expect(json.bytes).toBe(Buffer.byteLength(expected));
          // Twice: the second from the memo's texts.
          expect(renderJson(body, memo).text).toBe(expected);
          // As the sender writes it: the same bytes.
          expect(renderJsonBytes(body, memo).buffer.equals(Buffer.from(expected))).toBe(true);
          expect(renderJsonBytes(body, memo).buffer.equals(Buffer.from(expected))).toBe(true);
        }
      }),
    );
  });

  it('in pieces, joins to the same text, each piece a bounded size beyond one member', () => {
    fc.assert(
      fc.property(bodies, fc.integer({ min: 1, max: 64 }), (body, pieceBytes) => {
        const pieces = [...renderJsonPieces(body, countingMemo(), pieceBytes)];
        expect(pieces.join('')).toBe(JSON.stringify(body) ?? '');
        expect(pieces.every((p) => p.length > 0)).toBe(true);
      }),
    );
  });

  it('takes the text of a frozen row from the memo: made once, then reused', () => {
    const rows = [Object.freeze({ id: 1, label: 'Zürich' }), Object.freeze({ id: 2, label: 'Bern' })];
    const memo = countingMemo();
    const body = () => ({ success: true, apiRequestUid: crypto.randomUUID(), results: rows });
    renderJson(body(), memo);
    renderJson(body(), memo);
    expect(memo.made).toBe(2);
    expect(memo.asked).toBe(4);
    // An object that is not frozen may change: it is rendered afresh every time.
    const open = { id: 3 };
    renderJson({ results: [open] }, memo);
    expect(memo.asked).toBe(4);
    open.id = 4;
    expect(renderJson({ results: [open] }, memo).text).toBe('{"results":[{"id":4}]}');
  });

  it('writes a large state in pieces of about the size asked, never as one string', () => {
    const documents = Array.from({ length: 20_000 }, (_, id) => ({ id, label: `document ${id}` }));
    const pieces = [...renderJsonPieces({ documents, apiKeys: [] }, undefined, 16 * 1024)];
    expect(pieces.length).toBeGreaterThan(20);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(17 * 1024);
    expect(JSON.parse(pieces.join(''))).toEqual({ documents, apiKeys: [] });
  });
});

describe('recent JSON texts', () => {
  it('keep at most their limit, dropping the oldest, and still answer every object', () => {
    const recent = new RecentJsonTexts(2, 1024);
    const [a, b, c] = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const first = recent.of(a);
    expect(recent.of(a)).toBe(first);
    recent.of(b);
    recent.of(c);
    // `a` was dropped: its text is made again, equal but new.
    const again = recent.of(a);
    expect(again).not.toBe(first);
    expect(again.buffer.toString()).toBe('{"n":1}');
    expect(recent.of(c).buffer.toString()).toBe('{"n":3}');
  });

  it('keep texts within their byte budget too, and never one larger than all of it', () => {
    const recent = new RecentJsonTexts(100, 20);
    const small = [{ n: 1 }, { n: 2 }, { n: 3 }];
    for (const o of small) recent.of(o);
    // Three texts of 7 bytes are over 20: the least recently used went.
    expect(recent.size).toBe(2);
    const big = { text: 'x'.repeat(40) };
    expect(recent.of(big).buffer.length).toBe(51);
    expect(recent.of(big)).not.toBe(recent.of(big));
    expect(recent.size).toBe(2);
  });

  it('belong to an instance: two servers never share them', async () => {
    const { createMockServer } = await import('../../src/index.js');
    const [a, b] = await Promise.all([
      createMockServer({ logLevel: 'silent' }),
      createMockServer({ logLevel: 'silent' }),
    ]);
    expect(a.root.jsonTexts).not.toBe(b.root.jsonTexts);
    const session = await a.session();
    expect(session.instance.jsonTexts).not.toBe(a.root.jsonTexts);
  });
});

/**
 * What goes on the wire is the handler's body as JSON.stringify writes it: compared with the same
 * value made from the domain, for the list, a read and the state, first and again (from the memo).
 */
describe('answers on the wire', () => {
  it('list, read and state are JSON.stringify of their bodies, served fresh and from the memo', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const { fake } = server.mock.root;
    const principal = { organizationId: ACME_KEY.organizationId, keyId: ACME_KEY.keyId };
    for (let round = 0; round < 2; round++) {
      const list = await server.http
        .get('/api/v2/documents?resultsPerPage=3&pageNum=1')
        .set('x-access-token', token);
      expect(list.status).toBe(200);
      const results = fake.listDocuments(principal, { resultsPerPage: 3, pageNum: 1 }).rows;
      expect(results.length).toBeGreaterThan(0);
      const apiRequestUid = list.body.apiRequestUid as string;
      expect(list.text).toBe(
        JSON.stringify({ success: true, apiRequestUid, description: 'Documents', results }),
      );
      expect(list.headers['content-length']).toBe(String(Buffer.byteLength(list.text)));

      const id = String(results[0]?.id);
      const read = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token);
      expect(read.status).toBe(200);
      const doc = fake.getDocument(principal, id);
      expect(read.text).toBe(
        JSON.stringify({
          success: true,
          templateUid: doc.templateUid,
          id: doc.id,
          details: doc.details,
          apiRequestUid: read.body.apiRequestUid,
        }),
      );
      expect(read.headers['content-length']).toBe(String(Buffer.byteLength(read.text)));

      const state = await server.http.get('/__admin/state');
      expect(state.status).toBe(200);
      expect(state.text).toBe(JSON.stringify(fake.snapshot()));
    }
    // Rows and read details were kept by the instance's memo.
    expect(server.mock.root.jsonTexts.size).toBeGreaterThanOrEqual(4);
  });
});
