import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { capture } from '../../src/commands/capture.js';
import { checkLive } from '../../src/commands/check-live.js';
import {
  type HostileTenant,
  json,
  startHostileTenant,
  TENANT_KEY,
  TENANT_TOKEN,
  tenantEnv,
} from '../support/hostile-tenant.js';
import { runCaptured } from '../support/in-process-command.js';

/**
 * check-live and capture are safe against any tenant (docs/live-check.md): an answer that drips
 * or never ends is given up at its deadline or size bound, the whole run has a deadline, and what
 * was refused is named on standard error and in the ledger; a tenant that echoes the key ID, the
 * secret, the token or the hash in its error messages gets none of them written.
 */

let scratch: string;
let tenant: HostileTenant | undefined;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'hostile-live-'));
});
afterEach(async () => {
  await tenant?.close();
  tenant = undefined;
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const fast = ['--rate', '100'];
const readLedger = (out: string) => ({
  json: readFileSync(join(out, 'ledger.json'), 'utf8'),
  md: readFileSync(join(out, 'ledger.md'), 'utf8'),
});

describe('bounds on every answer', () => {
  it('check-live: an answer dripping a byte at a time is given up at --answer-timeout, named in the output and the ledger', async () => {
    const drips: NodeJS.Timeout[] = [];
    tenant = await startHostileTenant((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      drips.push(setInterval(() => res.write(' '), 200));
    });
    const out = join(scratch, 'drip');
    const started = Date.now();
    const run = await runCaptured(() =>
      checkLive(['--base', tenant?.base ?? '', '--out', out, '--answer-timeout', '1', ...fast], tenantEnv()),
    );
    for (const drip of drips) clearInterval(drip);
    expect(run.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.stderr).toMatch(/GET \/api\/v2\/\S+: 127\.0\.0\.1:\d+ gave no whole answer within 1000 ms/);
    const ledger = JSON.parse(readLedger(out).json) as { complete: boolean; stoppedBy: string };
    expect(ledger.complete).toBe(false);
    expect(ledger.stoppedBy).toContain('gave no whole answer within 1000 ms (--answer-timeout)');
    expect(readLedger(out).md).toContain('gave no whole answer within 1000 ms');
  }, 30_000);

  it('capture: an endless answer is given up past --max-answer-bytes as it streams, and a declared one before', async () => {
    const streams: NodeJS.Timeout[] = [];
    tenant = await startHostileTenant((req, res) => {
      if (req.url?.startsWith('/api/v2/documents/clients')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        res.write('{"results":[');
        streams.push(setInterval(() => res.write(chunk), 1));
        return;
      }
      json(res, 404, {});
    });
    const run = await runCaptured(() =>
      capture(
        [
          '--base',
          tenant?.base ?? '',
          '--out',
          join(scratch, 'endless'),
          '--max-answer-bytes',
          '200000',
          ...fast,
        ],
        tenantEnv(),
      ),
    );
    for (const stream of streams) clearInterval(stream);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /GET \/api\/v2\/documents\/clients: 127\.0\.0\.1:\d+ answered \d+ bytes and more, more than the 200000 bytes an answer may have \(--max-answer-bytes\)/,
    );

    await tenant.close();
    tenant = await startHostileTenant((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(300 * 1024 * 1024) });
      res.write('{');
    });
    const declared = await runCaptured(() =>
      capture(
        [
          '--base',
          tenant?.base ?? '',
          '--out',
          join(scratch, 'declared'),
          '--max-answer-bytes',
          '200000',
          ...fast,
        ],
        tenantEnv(),
      ),
    );
    expect(declared.code).toBe(1);
    expect(declared.stderr).toContain('answered 314572800 bytes, more than the 200000 bytes');
  }, 30_000);

  it('capture: stops at --deadline however many slow answers are left, and says so', async () => {
    let next = 0;
    tenant = await startHostileTenant((req, res) => {
      // Full pages of new rows, each a little slow: without a deadline it would page on and on.
      const rows = Array.from({ length: 100 }, () => ({ id: ++next, name: `Client ${next}` }));
      const url = req.url ?? '';
      setTimeout(() => json(res, 200, { success: true, results: url.includes('clients') ? rows : [] }), 150);
    });
    const started = Date.now();
    const run = await runCaptured(() =>
      capture(
        ['--base', tenant?.base ?? '', '--out', join(scratch, 'deadline'), '--deadline', '1', ...fast],
        tenantEnv(),
      ),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("the run's deadline (--deadline) has passed");
    expect(run.stderr).not.toContain('--answer-timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  }, 30_000);
});

describe('a tenant that echoes secrets', () => {
  const secretsOf = (text: string) =>
    [TENANT_KEY.keyId, TENANT_KEY.secret, TENANT_TOKEN, ...hashes.filter(Boolean)].filter((s) =>
      text.toLowerCase().includes(s.toLowerCase()),
    );
  let hashes: string[] = [];

  it('check-live writes none of the key ID, secret, token or hash it echoes in its errors', async () => {
    hashes = [];
    tenant = await startHostileTenant(
      (req, res) =>
        // The list answers (the probes need a document); every other request is refused with
        // an error message that echoes what came with it.
        new URL(req.url ?? '/', 'http://x').pathname === '/api/v2/documents'
          ? json(res, 200, {
              success: true,
              results: [{ id: 5, client_id: 7, templateId: 3, label: 'Gate' }],
            })
          : json(res, 400, {
              success: false,
              code: 1,
              message: `bad request from key ${req.headers['x-key'] ?? TENANT_KEY.keyId} with token ${req.headers['x-access-token']} (secret ${TENANT_KEY.secret}), session 9f2c1e7a0b3d4c5e6f7a8b9c0d1e2f3a`,
            }),
      (req, res) => {
        hashes.push(String(req.headers['x-hash'] ?? ''));
        json(res, 200, {
          success: true,
          access_token: TENANT_TOKEN,
          refresh_token: `${TENANT_TOKEN}-r`,
          expires_in: 3600,
        });
      },
    );
    const out = join(scratch, 'echo');
    const run = await runCaptured(() =>
      checkLive(['--base', tenant?.base ?? '', '--out', out, ...fast], tenantEnv()),
    );
    expect(hashes.length).toBeGreaterThan(0);
    const ledger = readLedger(out);
    // The tenant's words are kept, with the secrets and anything token-like taken out.
    expect(ledger.json).toContain(
      'bad request from key (redacted) with token (redacted) (secret (redacted))',
    );
    expect(ledger.json).toContain('session (redacted)');
    for (const text of [ledger.json, ledger.md, run.stdout, run.stderr]) expect(secretsOf(text)).toEqual([]);
  }, 60_000);

  it('check-live refused a key: the reason is written without the key or hash the tenant echoed', async () => {
    hashes = [];
    tenant = await startHostileTenant(
      (_req, res) => json(res, 500, {}),
      (req, res) => {
        hashes.push(String(req.headers['x-hash'] ?? ''));
        json(res, 401, {
          success: false,
          message: `key ${req.headers['x-key']} refused for hash ${req.headers['x-hash']}`,
        });
      },
    );
    const out = join(scratch, 'refused');
    const run = await runCaptured(() =>
      checkLive(['--base', tenant?.base ?? '', '--out', out, ...fast], tenantEnv()),
    );
    expect(run.code).toBe(1);
    const ledger = readLedger(out);
    expect(JSON.parse(ledger.json).stoppedBy).toContain(
      'refused the API key (status 401: "key (redacted) refused for hash (redacted)")',
    );
    for (const text of [ledger.json, ledger.md, run.stdout, run.stderr]) expect(secretsOf(text)).toEqual([]);
  }, 60_000);
});
