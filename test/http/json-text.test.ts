import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonTextBuilder, jsonTextOf, RecentJsonTexts } from '../../src/contract/json-text.js';

/** Bodies built from pieces must be byte-for-byte the JSON of the body, with the right length. */
describe('JSON texts of response bodies', () => {
  it('a built body equals JSON.stringify of the same object, and its byte count its UTF-8 length', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer(), fc.array(fc.jsonValue()), (id, n, rows) => {
        const objects = rows.map((value) => ({ value }));
        const json = new JsonTextBuilder().ascii('{"id":').value(id).ascii(',"n":').value(n);
        json.ascii(',"rows":[');
        objects.forEach((row, i) => {
          if (i > 0) json.ascii(',');
          json.append(jsonTextOf(row));
        });
        json.ascii(']}');
        expect(json.text).toBe(JSON.stringify({ id, n, rows: objects }));
        expect(json.bytes).toBe(Buffer.byteLength(json.text));
      }),
    );
  });

  it('the text of an object is made once and kept for that object only', () => {
    const row = { label: 'Zürich' };
    const first = jsonTextOf(row);
    expect(jsonTextOf(row)).toBe(first);
    expect(first).toEqual({ text: '{"label":"Zürich"}', bytes: 19 });
    expect(jsonTextOf({ label: 'Zürich' })).not.toBe(first);
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
    expect(again).toEqual({ text: '{"n":1}', bytes: 7 });
    expect(recent.of(c)).toEqual({ text: '{"n":3}', bytes: 7 });
  });

  it('keep texts within their byte budget too, and never one larger than all of it', () => {
    const recent = new RecentJsonTexts(100, 20);
    const small = [{ n: 1 }, { n: 2 }, { n: 3 }];
    for (const o of small) recent.of(o);
    // Three texts of 7 bytes are over 20: the least recently used went.
    expect(recent.size).toBe(2);
    const big = { text: 'x'.repeat(40) };
    expect(recent.of(big).bytes).toBe(51);
    expect(recent.of(big)).not.toBe(recent.of(big));
    expect(recent.size).toBe(2);
  });

  it('belong to an instance: two servers never share them', async () => {
    const { createMockServer } = await import('../../src/index.js');
    const [a, b] = await Promise.all([
      createMockServer({ logLevel: 'silent' }),
      createMockServer({ logLevel: 'silent' }),
    ]);
    expect(a.root.detailTexts).not.toBe(b.root.detailTexts);
    const session = await a.session();
    expect(session.instance.detailTexts).not.toBe(a.root.detailTexts);
  });
});
