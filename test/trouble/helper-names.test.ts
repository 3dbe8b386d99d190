/**
 * The operations for trouble name their commands in the PowerShell module and the Python package
 * (`x-powershell`, `x-python`), as the admin API's other operations do, so those helpers' parity
 * tests can hold them to the spec.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_TAG, listOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';

const EXPECTED: Record<string, [string[], string[]]> = {
  createRateLimit: [['Add-PassportalFakeRateLimit'], ['add_rate_limit']],
  listRateLimits: [['Get-PassportalFakeRateLimit'], ['rate_limits']],
  clearRateLimits: [['Clear-PassportalFakeRateLimit'], ['clear_rate_limits']],
  deleteRateLimit: [['Remove-PassportalFakeRateLimit'], ['remove_rate_limit']],
  listScenarios: [['Get-PassportalFakeScenario'], ['scenarios']],
  applyScenario: [['Invoke-PassportalFakeScenario'], ['apply_scenario']],
  clearScenarios: [['Clear-PassportalFakeScenario'], ['clear_scenarios']],
};

describe('the operations for trouble', () => {
  it('name their PowerShell and Python commands', () => {
    const operations = listOperations(loadSpec().document).filter((op) => op.tags.includes(ADMIN_TAG));
    for (const [operationId, [powershell, python]] of Object.entries(EXPECTED)) {
      const op = operations.find((o) => o.operationId === operationId);
      expect(op, operationId).toBeDefined();
      expect(op?.raw['x-powershell']).toEqual(powershell);
      expect(op?.raw['x-python']).toEqual(python);
    }
  });
});
