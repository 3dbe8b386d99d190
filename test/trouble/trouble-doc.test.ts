/**
 * docs/trouble.md: the commands its PowerShell and Python examples call are those the spec names
 * (`x-powershell`, `x-python`). Its scenarios table is made from the catalogue
 * (test/catalogue-tables.test.ts holds it current).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_TAG, listOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';

const doc = readFileSync(new URL('../../docs/trouble.md', import.meta.url), 'utf8');
const admin = listOperations(loadSpec().document).filter((op) => op.tags.includes(ADMIN_TAG));
const named = (extension: string) =>
  new Set(admin.flatMap((op) => (op.raw[extension] as string[] | undefined) ?? []));
/**
 * Names fixed for older operations (reset, requests, violations), whose `x-powershell` and
 * `x-python` the helpers' own branches add to the spec: accepted here either way.
 */
const FIXED = new Set([
  'Reset-PassportalFake',
  'Get-PassportalFakeRequest',
  'Assert-PassportalFakeNoViolation',
  'requests',
  'expect_no_violations',
]);
const block = (language: string) => doc.split(`\`\`\`${language}\n`)[1]?.split('```')[0] ?? '';

describe('docs/trouble.md', () => {
  it('calls only PowerShell commands and Python methods the spec names', () => {
    const commands = [...block('powershell').matchAll(/\b[A-Z][a-z]+-PassportalFake\w*/g)].map((m) => m[0]);
    expect(commands.length).toBeGreaterThan(3);
    for (const command of commands)
      expect(FIXED.has(command) || named('x-powershell').has(command), command).toBe(true);
    const methods = [...block('python').matchAll(/passportal_fake\.(\w+)\(/g)].map((m) => m[1] ?? '');
    expect(methods.length).toBeGreaterThan(2);
    for (const method of methods)
      expect(FIXED.has(method) || named('x-python').has(method), method).toBe(true);
  });

  it('covers rate limits, faults, scenarios and watch, with a suite in each language', () => {
    for (const heading of ['## Rate limits', '## Faults', '## Scenarios', '## --watch'])
      expect(doc).toContain(heading);
    for (const language of ['ts', 'powershell', 'python'])
      expect(block(language).length).toBeGreaterThan(100);
  });
});
