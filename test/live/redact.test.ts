import { describe, expect, it } from 'vitest';
import { decodeHtmlEntities, encodeHtmlEntities } from '../../src/domain/html-entities.js';
import { Redactor } from '../../src/live/redact.js';

/** Stand-ins keep a text's shape and nothing of its content; the same text, the same stand-in. */

const classes = (s: string) =>
  [...s]
    .map((ch) =>
      /[a-z]/.test(ch)
        ? 'a'
        : /[A-Z]/.test(ch)
          ? 'A'
          : /[0-9]/.test(ch)
            ? '9'
            : /\p{Script=Han}/u.test(ch)
              ? '漢'
              : ch,
    )
    .join('');

describe('Redactor', () => {
  const redactor = new Redactor('a-salt');

  it.each([
    ['Dundee Office Ltd', 'Aaaaaa Aaaaaa Aaa'],
    ['SRV-0042 (rack 3)', 'AAA-9999 (aaaa 9)'],
    ['Matt&#039;s Museum', 'Aaaa&#999;a Aaaaaa'],
    ['東京オフィス', '漢漢'],
    ['a@b.example, 10.0.0.1', 'a@a.aaaaaaa, 99.9.9.9'],
  ])('keeps the shape of %j', (text, shape) => {
    const stand = redactor.text(text);
    expect(stand).not.toBe(text);
    expect(stand.length).toBe(text.length);
    if (shape.includes('漢')) expect(stand.slice(0, 2)).toMatch(/^\p{Script=Han}{2}/u);
    else expect(classes(stand)).toBe(shape);
  });

  it('keeps HTML entities as they are', () => {
    expect(redactor.text('Matt&#039;s &amp; Co')).toMatch(/^[A-Z][a-z]{3}&#039;[a-z] &amp; [A-Z][a-z]$/);
  });

  it('gives the same text the same stand-in, another text (or salt) another', () => {
    expect(redactor.text('Dell')).toBe(redactor.text('Dell'));
    expect(new Redactor('a-salt').text('Dell')).toBe(redactor.text('Dell'));
    expect(redactor.text('Dell')).not.toBe(redactor.text('Dale'));
    expect(new Redactor('another').text('Dell Technologies')).not.toBe(redactor.text('Dell Technologies'));
  });

  it('changes even a one-letter text, and leaves punctuation-only texts alone', () => {
    expect(redactor.text('x')).toMatch(/^[a-z]$/);
    expect(redactor.text('x')).not.toBe('x');
    expect(redactor.text(' - ')).toBe(' - ');
  });

  it('replaces strings inside arrays (tags) and keeps other values', () => {
    const out = redactor.strings(['backup', 'nightly', 3, null]) as unknown[];
    expect(out).toHaveLength(4);
    expect(out.slice(2)).toEqual([3, null]);
    expect(out[0]).toMatch(/^[a-z]{6}$/);
  });
});

describe('decodeHtmlEntities', () => {
  it.each(["Matt's Museum", 'Contoso Pharmacy & Co', '<b> "quoted"'])(
    'undoes the live encoding of %j',
    (name) => {
      expect(decodeHtmlEntities(encodeHtmlEntities(name))).toBe(name);
    },
  );
  it('reads numeric references and leaves unknown ones', () => {
    expect(decodeHtmlEntities('caf&#233; &#x41; &#39; &nbsp; &#0;')).toBe("café A ' &nbsp; &#0;");
  });
});
