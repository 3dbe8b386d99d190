/**
 * Client text in a Markdown report, rendered as text by any CommonMark or GitHub renderer
 * (docs/reports.md): every ASCII punctuation character that can start inline Markdown, raw HTML
 * or a comment, an entity, a link or autolink, a mention, math or a table cell is
 * backslash-escaped (CommonMark lets any ASCII punctuation be); line breaks (CR, LF, CR LF, and
 * the Unicode line and paragraph separators) become a space, so a text stays in its table row;
 * other control characters are written as `\u{hex}`; the dot of a bare `www.` host is escaped
 * (autolinks of URLs and e-mail addresses end at the escaped `:` and `@`). In a table cell no block (a heading, a
 * quote, a list) can start, so `#`, `>`, `-` and the like stay as they are.
 */

/** The characters escaped: those that start inline Markdown, raw HTML, entities, cells, links. */
const ACTIVE = /[\\`*_[\]<|~&:@$]/g;
const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029]/g;
const CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function markdownText(text: string): string {
  return (
    text
      .replace(LINE_BREAKS, ' ')
      .replace(CONTROLS, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`)
      .replace(ACTIVE, (ch) => `\\${ch}`)
      // GitHub's and markdown-it's autolinks of a bare `www.` host: its dot escaped.
      .replace(/(www)\./gi, '$1\\.')
  );
}
