/**
 * The Python package's admin client (clients/python) has one method per admin operation, named by
 * the operation's `x-python` extension in the spec, as the TypeScript client is held to `x-client`
 * (test/admin-parity.test.ts). Both ways: an operation whose Python name has no method, or a
 * public method no operation names, fails here. The methods are read from the source of the
 * `AdminClient` class (its `def name(` lines), so the test needs no Python.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_TAG, listOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';

const SOURCE = new URL('../../clients/python/src/passportal_fake/admin.py', import.meta.url);
const adminOperations = listOperations(loadSpec().document).filter((op) => op.tags.includes(ADMIN_TAG));

function pythonNamesOf(operationId: string, raw: Record<string, unknown>): string[] {
  const names = raw['x-python'];
  if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string')) {
    throw new Error(`${operationId}: x-python must list at least one method name`);
  }
  return names;
}

/** The public methods of `class AdminClient` (4-space `def`, not starting with `_`). */
function publicMethodsOf(source: string, className: string): string[] {
  const start = source.search(new RegExp(`^class ${className}\\b`, 'm'));
  if (start < 0) throw new Error(`no class ${className}`);
  // The class body: its indented lines, up to the next line at column 0.
  const rest = source.slice(source.indexOf('\n', start) + 1);
  const end = rest.search(/^\S/m);
  const body = end < 0 ? rest : rest.slice(0, end);
  return [...body.matchAll(/^ {4}def ([A-Za-z]\w*)\(/gm)].map((m) => m[1] as string).sort();
}

describe('the Python admin client has one method per admin operation', () => {
  const methods = publicMethodsOf(readFileSync(SOURCE, 'utf8'), 'AdminClient');
  const named = [...new Set(adminOperations.flatMap((op) => pythonNamesOf(op.operationId, op.raw)))].sort();

  it('every admin operation names its Python methods, in snake_case', () => {
    expect(adminOperations.length).toBeGreaterThan(15);
    for (const name of named) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('every name the spec gives is a method of AdminClient', () => {
    expect(named.filter((name) => !methods.includes(name))).toEqual([]);
  });

  it('every public method of AdminClient is named by an operation', () => {
    expect(methods.filter((name) => !named.includes(name))).toEqual([]);
  });

  it('reads methods from the class only, not from helpers beside it', () => {
    const source = [
      'class AdminClient:',
      '    def health(self):',
      '        def inner(): pass',
      '    def _call(self): pass',
      '',
      'def sign(secret, content): pass',
      'class Other:',
      '    def elsewhere(self): pass',
    ].join('\n');
    expect(publicMethodsOf(source, 'AdminClient')).toEqual(['health']);
  });
});
