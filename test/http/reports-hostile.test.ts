import { fileURLToPath } from 'node:url';
import MarkdownIt from 'markdown-it';
import { SaxesParser } from 'saxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer, MockSession } from '../../src/index.js';
import { accessToken } from '../support/request-token.js';
import { ACME_KEY, createTestServer, textEntry } from '../support/test-server.js';
import { schemaErrors } from '../support/xml-schema.js';

/**
 * Every report is well-formed for any client text (docs/reports.md): a client's detail keys made
 * of CDATA ends, its own XML element, characters XML 1.0 forbids, line breaks, table pipes, raw
 * HTML, an HTML comment, backticks and links. The JUnit file is read by two real XML parsers
 * (libxml2's xmllint, with the JUnit schema, and saxes, strict XML 1.0): well-formed, with no
 * element of the client's and its text intact. The Markdown is rendered by a real CommonMark
 * renderer (markdown-it, raw HTML allowed as GitHub allows it, autolinks on): no heading, row,
 * HTML, link or emphasis of the client's, and the rest of the report still there.
 */

const JUNIT_XSD = fileURLToPath(new URL('../fixtures/junit/junit.xsd', import.meta.url));

/** Detail keys a hostile client (or a page it was made to load) sends. */
const HOSTILE_KEYS = [
  'a]]>b]]><injected/>c]]>',
  'ctl\u0001\u001b\ufffe\ud800end',
  'cr\r# Heading from a client\r| x | y |',
  'lf\n## Another heading\n\n| p | q |\n|---|---|\n| 1 | 2 |',
  '<img src=x onerror=alert(1)>',
  '<!-- the rest is hidden',
  '`code` [link](https://evil.example) *em* http://auto.example www.evil.example a@b.example &lt;',
];

let t: Awaited<ReturnType<typeof createTestServer>>;
let mock: MockServer;
let session: MockSession;

beforeAll(async () => {
  t = await createTestServer();
  mock = t.mock;
  await mock.listen(0, '127.0.0.1');
  session = await mock.session();
  const token = await accessToken(session.baseUrl, ACME_KEY);
  for (const key of HOSTILE_KEYS) {
    const answer = await fetch(`${session.baseUrl}/api/v2/documents/101101`, {
      method: 'PATCH',
      headers: { 'x-access-token': token, 'content-type': 'application/json' },
      body: JSON.stringify({ [key]: textEntry('Hostile', 'x') }),
    });
    expect(answer.status).toBe(400);
  }
});
afterAll(async () => {
  await mock.close();
});

/** Element names and character data of an XML text, through saxes (strict XML 1.0); throws on any error. */
function parseStrict(xml: string): { elements: Set<string>; text: string } {
  const parser = new SaxesParser({ xmlns: false });
  const elements = new Set<string>();
  let text = '';
  let failure: Error | undefined;
  parser.on('error', (e) => {
    failure ??= e;
  });
  parser.on('opentag', (tag) => elements.add(tag.name));
  parser.on('text', (t) => {
    text += t;
  });
  parser.on('cdata', (t) => {
    text += t;
  });
  parser.write(xml).close();
  if (failure) throw failure;
  return { elements, text };
}

describe('reports over hostile client text', () => {
  it('the report holds a violation per hostile key (the texts reach the writers)', async () => {
    const report = await session.report();
    expect(report.violations).toHaveLength(HOSTILE_KEYS.length);
    expect(JSON.stringify(report)).toContain('<injected/>');
  });

  it('JUnit: well-formed XML 1.0 by xmllint and saxes, no element of the client, its text intact as character data', async () => {
    const xml = await session.report('junit');
    // libxml2's xmllint: well-formed, and valid against the JUnit schema.
    expect(await schemaErrors(xml, JUNIT_XSD)).toEqual([]);
    const { elements, text } = parseStrict(xml);
    expect([...elements].sort()).toEqual([
      'failure',
      'properties',
      'property',
      'system-out',
      'testcase',
      'testsuite',
      'testsuites',
    ]);
    expect(xml).not.toContain('<![CDATA[');
    // The client's text is there, as text: every CDATA end and its element.
    expect(text).toContain('a]]>b]]><injected/>c]]>');
    // Characters XML 1.0 forbids are shown by code point.
    expect(text).toContain('ctl\\u{1}\\u{1b}\\u{fffe}\\u{d800}end');
  });

  it('Markdown: renders the client text as text, with no heading, row, HTML, link or emphasis of its own', async () => {
    const md = await session.report('markdown');
    const html = new MarkdownIt({ html: true, linkify: true }).render(md);
    // Headings: the report's own, the client's none.
    expect(html.match(/<h[1-6]>[^<]*/g)).toEqual([
      `<h2>Passportal fake: session ${session.id}`,
      '<h3>Violations',
      '<h3>Operations',
      '<h3>Never exercised (most likely to break a client first)',
    ]);
    expect(html).not.toContain('Heading from a client</h');
    expect(html).not.toContain('Another heading</h');
    // The violations table: one row per violation, three cells each.
    const violations = html.slice(html.indexOf('<h3>Violations'), html.indexOf('<h3>Operations'));
    const rows = violations.match(/<tr>[\s\S]*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(1 + HOSTILE_KEYS.length);
    for (const row of rows) expect(row.match(/<t[dh]>/g)).toHaveLength(3);
    // No markup of the client's: no image, comment, link, emphasis or inline code.
    expect(html).not.toMatch(/<img|<!--|<a |<em>|<injected/);
    expect(violations).not.toContain('<code>');
    // Shown as text instead.
    expect(violations).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(violations).toContain('&lt;!-- the rest is hidden');
    expect(violations).toContain(
      '`code` [link](https://evil.example) *em* http://auto.example www.evil.example a@b.example &amp;lt;',
    );
    expect(violations).toContain('a]]&gt;b]]&gt;&lt;injected/&gt;c]]&gt;');
    // The rest of the report is there after the comment's opener.
    expect(html).toContain('<summary>Behaviours exercised</summary>');
    expect(html).toMatch(/<td>patchDocument<\/td>\s*<td>7<\/td>/);
  });
});
