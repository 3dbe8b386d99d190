import { createRequire } from 'node:module';
import type { XMLElement } from 'xmlbuilder';

/**
 * JUnit XML written with xmlbuilder, every text of a case as escaped character data: never a
 * CDATA section (a client's `]]>` would end one early), never markup of the client's, and only
 * characters XML 1.0 allows. A character it does not allow (a control character, a lone
 * surrogate, U+FFFE or U+FFFF) is written as its code point in words, `\u{1b}`, so what the
 * client sent stays visible and the file stays well-formed (docs/reports.md).
 */

/** One case of the verdict, as the report lists it. */
export interface JunitCase {
  suite: string;
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  message?: string;
  /** Longer text: the failure's text, or the case's output. */
  detail?: string;
  /** A failure's kind (`contract violation` unless set). */
  failureType?: string;
}

/** Loaded when a report is first written as JUnit, not at start-up. */
const requireWriter = createRequire(import.meta.url);
const xmlbuilder = (): typeof import('xmlbuilder') =>
  requireWriter('xmlbuilder') as typeof import('xmlbuilder');

/** Characters XML 1.0 does not allow (https://www.w3.org/TR/xml/#charsets), lone surrogates included. */
const NOT_XML_10 =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with every character XML 1.0 does not allow written as `\u{hex}`. */
export function xmlSafeText(text: string): string {
  return text.replace(NOT_XML_10, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16)}}`);
}

export function renderJunitXml(name: string, cases: readonly JunitCase[]): string {
  const count = (list: readonly JunitCase[], status: JunitCase['status']) =>
    list.filter((c) => c.status === status).length;
  const root = xmlbuilder().create('testsuites', { version: '1.0', encoding: 'UTF-8' });
  root.att({
    name: xmlSafeText(name),
    tests: cases.length,
    failures: count(cases, 'failed'),
    errors: 0,
    skipped: count(cases, 'skipped'),
    time: 0,
  });
  const bySuite = new Map<string, JunitCase[]>();
  for (const c of cases) {
    const list = bySuite.get(c.suite);
    if (list) list.push(c);
    else bySuite.set(c.suite, [c]);
  }
  for (const [suite, list] of bySuite) {
    const element = root.ele('testsuite', {
      name: xmlSafeText(suite),
      tests: list.length,
      failures: count(list, 'failed'),
      errors: 0,
      skipped: count(list, 'skipped'),
      time: 0,
    });
    for (const c of list) writeCase(element, name, c);
  }
  return root.end({ pretty: true });
}

function writeCase(suite: XMLElement, tool: string, c: JunitCase): void {
  const test = suite.ele('testcase', {
    classname: xmlSafeText(`${tool.split(' ')[0]}.${c.suite}`),
    name: xmlSafeText(c.name),
    time: 0,
  });
  if (c.status === 'failed') {
    const failure = test.ele('failure', {
      message: xmlSafeText(c.message ?? ''),
      type: c.failureType ?? 'contract violation',
    });
    if (c.detail) failure.txt(xmlSafeText(c.detail));
    return;
  }
  if (c.status === 'skipped') {
    test.ele('skipped');
    const out = [c.message, c.detail].filter(Boolean).join('\n');
    if (out) test.ele('system-out').txt(xmlSafeText(out));
    return;
  }
  if (c.detail) test.ele('system-out').txt(xmlSafeText(c.detail));
}
