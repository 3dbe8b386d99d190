/**
 * Every language's helper has one command per admin power the spec defines, as the TypeScript
 * client is held to `x-client` (test/admin-parity.test.ts). Each admin operation names its
 * commands in each language (`x-powershell`, `x-python`); here each language's helper is read as
 * text (no PowerShell or Python needed) and held to those names both ways: a name the spec gives
 * that the helper lacks, or a command of the helper no operation names (and that is not one of its
 * few commands that call no admin operation, listed with what they do), fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_TAG, listOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';

const adminOperations = listOperations(loadSpec().document).filter((op) => op.tags.includes(ADMIN_TAG));
const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The exported functions of a module manifest: its `FunctionsToExport = @('...', ...)`. */
function manifestExports(text: string): string[] {
  const list = /FunctionsToExport\s*=\s*@\(([^)]*)\)/.exec(text)?.[1];
  if (list === undefined) throw new Error('the manifest has no FunctionsToExport = @(...) list');
  return [...list.matchAll(/'([^']+)'/g)].map((m) => m[1] as string);
}

/** The public methods of a Python class (4-space `def`, not starting with `_`). */
function publicMethodsOf(source: string, className: string): string[] {
  const start = source.search(new RegExp(`^class ${className}\\b`, 'm'));
  if (start < 0) throw new Error(`no class ${className}`);
  // The class body: its indented lines, up to the next line at column 0.
  const rest = source.slice(source.indexOf('\n', start) + 1);
  const end = rest.search(/^\S/m);
  const body = end < 0 ? rest : rest.slice(0, end);
  return [...body.matchAll(/^ {4}def ([A-Za-z]\w*)\(/gm)].map((m) => m[1] as string);
}

interface Helper {
  /** The spec's extension naming this helper's commands. */
  extension: string;
  /** How a command of this language is named. */
  pattern: RegExp;
  /** The helper's commands, read from its source. */
  commands: () => string[];
  /** Its commands that call no admin operation, each with what it does. */
  notAdmin: Record<string, string>;
}

const HELPERS: Record<string, Helper> = {
  'PowerShell module (clients/powershell/PassportalFake)': {
    extension: 'x-powershell',
    pattern: /^[A-Z][a-z]+-PassportalFake[A-Za-z]*$/,
    commands: () => manifestExports(read('clients/powershell/PassportalFake/PassportalFake.psd1')),
    notAdmin: {
      'Start-PassportalFake': 'starts the npm command or the image and waits for its health',
      'Stop-PassportalFake': 'stops that process or container',
      'New-PassportalHash': "the token call's x-hash (HMAC-SHA256, lower-case hex)",
      'Get-PassportalFakeToken': "the vendor's token call (POST /api/v2/auth/client_token)",
      'Register-PassportalFakeShouldOperator': 'adds Should -HaveNoPassportalViolation to Pester',
      'Get-PassportalFakeEnvironment':
        "a client process's SSL_CERT_FILE (the CA bundle), HTTPS_PROXY and NO_PROXY, from what Start-PassportalFake wrote",
    },
  },
  'Python admin client (clients/python, AdminClient)': {
    extension: 'x-python',
    pattern: /^[a-z][a-z0-9_]*$/,
    commands: () => publicMethodsOf(read('clients/python/src/passportal_fake/admin.py'), 'AdminClient'),
    notAdmin: {},
  },
};

function namesOf(extension: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const op of adminOperations) {
    const value = op.raw[extension];
    if (!Array.isArray(value) || value.length === 0 || !value.every((n) => typeof n === 'string')) {
      throw new Error(`${op.operationId}: ${extension} must list at least one command`);
    }
    names.set(op.operationId, value as string[]);
  }
  return names;
}

describe('each language helper has a command per admin operation of the spec', () => {
  for (const [name, helper] of Object.entries(HELPERS)) {
    describe(name, () => {
      it(`every admin operation names its commands in ${helper.extension}, each named as the language names them`, () => {
        const named = namesOf(helper.extension);
        expect(named.size).toBe(adminOperations.length);
        for (const [operationId, commands] of named)
          for (const command of commands) expect(command, operationId).toMatch(helper.pattern);
      });

      it('has every command the spec names', () => {
        const commands = new Set(helper.commands());
        const missing = [...namesOf(helper.extension)].flatMap(([operationId, names]) =>
          names.filter((n) => !commands.has(n)).map((n) => `${operationId}: ${n}`),
        );
        expect(missing).toEqual([]);
      });

      it('has no command that no operation names, besides those that call no admin operation', () => {
        const named = new Set([...namesOf(helper.extension).values()].flat());
        const commands = helper.commands();
        expect(commands.filter((c) => !named.has(c) && !(c in helper.notAdmin))).toEqual([]);
        for (const command of Object.keys(helper.notAdmin)) expect(commands).toContain(command);
      });
    });
  }

  it("reads a Python class's own public methods, not nested functions or helpers beside it", () => {
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
