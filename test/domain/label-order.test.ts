import { describe, expect, it } from 'vitest';
import { buildBase, compareCodePoints } from '../../src/domain/store.js';
import type { Document } from '../../src/domain/types.js';

/**
 * `orderBy=label` compares lower-cased labels by Unicode code point, as the spec and
 * docs/decisions.md say: a label starting past U+FFFF (`𐀀` U+10000, a surrogate pair in UTF-16)
 * sorts after one starting at `豈` U+F900, where comparing UTF-16 code units would put it first.
 */

const doc = (id: number, label: string) => ({ id, organization_id: 1, label }) as Document;

describe('label order by code point', () => {
  it('puts U+10000 after U+F900 and U+FFFD, and keeps every other order of code units', () => {
    expect(compareCodePoints('𐀀', '豈')).toBeGreaterThan(0);
    expect(compareCodePoints('豈', '𐀀')).toBeLessThan(0);
    expect(compareCodePoints('\uFFFD', '😀')).toBeLessThan(0);
    expect(compareCodePoints('😀', '𐀀')).toBeGreaterThan(0);
    expect(compareCodePoints('a', 'b')).toBeLessThan(0);
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0);
    expect(compareCodePoints('same', 'same')).toBe(0);
    // Against the definition: the arrays of code points, compared one by one.
    const words = ['𐀀', '豈', 'z', 'Ω', '\uFFFF', '😀x', '😀', 'a𐀀', 'a豈', ''];
    const byCodePoint = (a: string, b: string) => {
      const x = [...a].map((c) => c.codePointAt(0) as number);
      const y = [...b].map((c) => c.codePointAt(0) as number);
      for (let i = 0; i < Math.min(x.length, y.length); i++)
        if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
      return x.length - y.length;
    };
    expect([...words].sort(compareCodePoints)).toEqual([...words].sort(byCodePoint));
  });

  it('orders documents by lower-cased label by code point, then id', () => {
    const base = buildBase([doc(1, '𐀀 vault'), doc(2, '豈 office'), doc(3, 'Alpha'), doc(4, 'alpha')]);
    expect(base.orders.get(1)?.byLabel.map((d) => d.id)).toEqual([3, 4, 2, 1]);
  });
});
