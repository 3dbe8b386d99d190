import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A tenants file (`--tenants`) holding `tenants`, in a folder of its own under the system's temporary folder. */
export function writeTenantsFile(tenants: object[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-tenants-'));
  const file = join(dir, 'tenants.json');
  writeFileSync(file, JSON.stringify({ tenants }));
  return file;
}
