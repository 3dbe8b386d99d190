import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { capture, PROGRESS_FILE } from '../../src/commands/capture.js';
import { type HostileTenant, json, startHostileTenant, tenantEnv } from '../support/hostile-tenant.js';
import { runCaptured } from '../support/in-process-command.js';

/**
 * capture against tenants that misbehave: one whose list rows carry fields the fixture set has no
 * place for (a door code, an e-mail address), interrupted before it finishes; one that answers
 * the same page whatever pageNum says.
 */

let scratch: string;
let tenant: HostileTenant | undefined;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'hostile-capture-'));
});
afterEach(async () => {
  await tenant?.close();
  tenant = undefined;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Rows of page 1; later pages are empty, as a tenant that pages answers. */
const firstPageOnly = (url: URL, rows: unknown[]) => (url.searchParams.get('pageNum') === '1' ? rows : []);

const row = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  organization_id: 1,
  client_id: 7,
  templateId: 3,
  templateName: 'Door',
  type: 'custom',
  label: `Front door ${id}`,
  description: 'Main entrance',
  customId: '',
  ...extra,
});

describe('capture against a hostile tenant', () => {
  it('keeps no unknown list-row field in the progress file an interruption leaves behind', async () => {
    tenant = await startHostileTenant((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/api/v2/documents/clients')
        return json(res, 200, { success: true, results: firstPageOnly(url, [{ id: 7, name: 'Acme' }]) });
      if (url.pathname === '/api/v2/documents')
        return json(res, 200, {
          success: true,
          results: firstPageOnly(url, [
            row(1, { doorCode: 'door-4711-9931', contactEmail: 'night.guard@acme-corp.example' }),
          ]),
        });
      return json(res, 500, { success: false });
    });
    const out = join(scratch, 'interrupted');
    // The token, two pages of clients, two of documents: the bound stops it before the first
    // details read.
    const run = await runCaptured(() =>
      capture(
        ['--base', tenant?.base ?? '', '--out', out, '--max-requests', '5', '--rate', '100'],
        tenantEnv(),
      ),
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('--max-requests');
    const progress = readFileSync(join(out, PROGRESS_FILE), 'utf8');
    expect(progress).toContain('"kind":"documents"');
    // The code's digits alone could turn up in the random salt or a port; its letters can't.
    expect(progress).not.toContain('door-4711');
    expect(progress).not.toContain('4711-9931');
    expect(progress).not.toContain('night.guard');
    expect(progress).not.toContain('acme-corp');
    expect(progress).not.toMatch(/doorCode|contactEmail/);
    // The texts the set keeps are there, redacted.
    expect(progress).not.toContain('Front door');
    expect(progress).toContain('"templateId":3');
  });

  it('stops with a clear error when a page repeats an earlier one, after a handful of requests', async () => {
    const page = Array.from({ length: 100 }, (_, i) => row(i + 1));
    tenant = await startHostileTenant((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/api/v2/documents/clients')
        return json(res, 200, { success: true, results: firstPageOnly(url, [{ id: 7, name: 'Acme' }]) });
      // Every pageNum gets the first page.
      if (url.pathname === '/api/v2/documents') return json(res, 200, { success: true, results: page });
      return json(res, 200, { success: true, details: {} });
    });
    const run = await runCaptured(() =>
      capture(
        ['--base', tenant?.base ?? '', '--out', join(scratch, 'repeating'), '--rate', '100'],
        tenantEnv(),
      ),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('answered page 2 with the same 100 rows as page 1');
    expect(run.stderr).toContain('does not page by pageNum');
    const lists = tenant.requests.filter((r) => r.url.startsWith('/api/v2/documents?'));
    expect(lists).toHaveLength(2);
    expect(tenant.requests.length).toBeLessThanOrEqual(5);
  });
});
