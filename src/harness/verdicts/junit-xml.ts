import { createRequire } from 'node:module';
import type { XMLElement } from 'xmlbuilder';

/**
 * JUnit XML written with xmlbuilder, every text of a case as escaped character data: never a
 * CDATA section (a client's `]]>` would end one early), never markup of the client's, and only
 * characters XML 1.0 allows. A character it does not allow (a control character, a lone
 * surrogate, U+FFFE or U+FFFF) is written as its code point in words, `\u{1b}`, so what the
 * client sent stays visible and the file stays well-formed (docs/reports.md).
 */

/** One case of the verdict, as the report lists it: it passed, or it failed. */
export interface JunitCase {
  suite: string;
  name: string;
  status: 'passed' | 'failed';
  message?: string;
  /** Longer text: the failure's text, or the case's output. */
  detail?: string;
  /** A failure's kind (`contract violation` unless set). */
  failureType?: string;
}

/**
 * One `<testsuite>`: its cases, and what the report says beyond the verdict (notices, coverage)
 * as its `<properties>`, each a name and a value, names unique within the suite.
 */
export interface JunitSuite {
  name: string;
  properties: ReadonlyArray<readonly [string, string]>;
  cases: readonly JunitCase[];
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

export function renderJunitXml(name: string, suites: readonly JunitSuite[]): string {
  const failures = (list: readonly JunitCase[]) => list.filter((c) => c.status === 'failed').length;
  const all = suites.flatMap((s) => s.cases);
  const root = xmlbuilder().create('testsuites', { version: '1.0', encoding: 'UTF-8' });
  root.att({
    name: xmlSafeText(name),
    tests: all.length,
    failures: failures(all),
    errors: 0,
    skipped: 0,
    time: 0,
  });
  for (const suite of suites) {
    const element = root.ele('testsuite', {
      name: xmlSafeText(suite.name),
      tests: suite.cases.length,
      failures: failures(suite.cases),
      errors: 0,
      skipped: 0,
      time: 0,
    });
    if (suite.properties.length > 0) {
      const properties = element.ele('properties');
      for (const [key, value] of suite.properties)
        properties.ele('property', { name: xmlSafeText(key), value: xmlSafeText(value) });
    }
    for (const c of suite.cases) writeCase(element, name, c);
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
  const out = [c.message, c.detail].filter(Boolean).join('\n');
  if (out) test.ele('system-out').txt(xmlSafeText(out));
}
