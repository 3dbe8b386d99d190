/**
 * The PowerShell module names every admin power the spec defines: each admin operation's
 * `x-powershell` commands are exported by clients/powershell/PassportalFake/PassportalFake.psd1
 * (FunctionsToExport), and every exported command is named by some operation or is one of the
 * few commands that are not admin calls (below, each with what it does). The manifest is read as
 * text: its FunctionsToExport is a plain list of quoted names, as the PowerShell Gallery wants it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_TAG, listOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';

const MANIFEST = new URL('../../clients/powershell/PassportalFake/PassportalFake.psd1', import.meta.url);

/** Exported commands that call no admin operation. */
const NOT_ADMIN: Record<string, string> = {
  'Start-PassportalFake': 'starts the npm command or the image and waits for its health',
  'Stop-PassportalFake': 'stops that process or container',
  'New-PassportalHash': "the token call's x-hash (HMAC-SHA256, lower-case hex)",
  'Get-PassportalFakeToken': "the vendor's token call (POST /api/v2/auth/client_token)",
  'Register-PassportalFakeShouldOperator': 'adds Should -HaveNoPassportalViolation to Pester',
};

function exportedFunctions(): string[] {
  const text = readFileSync(MANIFEST, 'utf8');
  const list = /FunctionsToExport\s*=\s*@\(([^)]*)\)/.exec(text)?.[1];
  if (list === undefined) throw new Error('PassportalFake.psd1 has no FunctionsToExport = @(...) list');
  return [...list.matchAll(/'([^']+)'/g)].map((m) => m[1] as string);
}

const spec = loadSpec();
const adminOperations = listOperations(spec.document).filter((op) => op.tags.includes(ADMIN_TAG));

function powershellNames(): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const op of adminOperations) {
    const value = op.raw['x-powershell'];
    if (!Array.isArray(value) || value.length === 0 || !value.every((n) => typeof n === 'string')) {
      throw new Error(`${op.operationId}: x-powershell must list at least one command name`);
    }
    names.set(op.operationId, value as string[]);
  }
  return names;
}

describe('the PowerShell module and the admin operations', () => {
  it('exports every command an admin operation names in x-powershell, each a Verb-PassportalFake... name', () => {
    const exported = new Set(exportedFunctions());
    const named = powershellNames();
    expect(named.size).toBe(adminOperations.length);
    for (const [operationId, commands] of named) {
      for (const command of commands) {
        expect(command, operationId).toMatch(/^[A-Z][a-z]+-PassportalFake[A-Za-z]*$/);
        expect(exported.has(command), `${operationId}: ${command} is not in FunctionsToExport`).toBe(true);
      }
    }
  });

  it('names every exported command in some operation, or among the few that call no admin operation', () => {
    const named = new Set([...powershellNames().values()].flat());
    const unaccounted = exportedFunctions().filter((c) => !named.has(c) && !(c in NOT_ADMIN));
    expect(unaccounted).toEqual([]);
    for (const command of Object.keys(NOT_ADMIN)) expect(exportedFunctions()).toContain(command);
  });
});
