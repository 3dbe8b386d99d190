/**
 * check-live notes, passively, the live service's rate limits: the stand-in (the fake itself on
 * HTTPS under a vendor host name, reached through its own proxy) throttles, and the ledger keeps
 * the 429 with its Retry-After and the X-RateLimit headers of the answers before it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/live/ledger.js';
import { type HttpsFake, startHttpsFake } from '../support/https-fake.js';
import { runCli } from '../support/run-cli.js';

let live: HttpsFake;
let scratch: string;

beforeAll(async () => {
  live = await startHttpsFake({ fixtures: undefined });
  scratch = mkdtempSync(join(tmpdir(), 'check-live-limits-'));
}, 60_000);
afterAll(async () => {
  await live.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('check-live against a throttling service', () => {
  it('stops at the 429 and keeps it, with the rate-limit headers seen, in the ledger', async () => {
    live.mock.addRateLimit({ per: 'instance', limit: 4, windowSeconds: 600 });
    const key = live.mock.root.fake.snapshot().apiKeys[0];
    if (!key) throw new Error('no key');
    const empty = join(scratch, 'empty.config.json');
    writeFileSync(empty, '{}\n');
    const out = join(scratch, 'run');
    const run = await runCli(
      [
        'check-live',
        '--base',
        'https://us-clover.passportalmsp.com',
        '--out',
        out,
        '--rate',
        '50',
        '--config',
        empty,
      ],
      {
        HTTPS_PROXY: live.proxyUrl,
        https_proxy: live.proxyUrl,
        HTTP_PROXY: '',
        http_proxy: '',
        NO_PROXY: '',
        no_proxy: '',
        NODE_EXTRA_CA_CERTS: live.caPath,
        PASSPORTAL_KEY_ID: key.keyId,
        PASSPORTAL_SECRET: key.secret,
        CONFIG_FILE: '',
      },
    );
    expect(run.code).toBe(1);
    const ledger = JSON.parse(readFileSync(join(out, 'ledger.json'), 'utf8')) as Ledger;
    expect(ledger.complete).toBe(false);
    expect(ledger.rateLimits?.seen).toBe(5);
    const answers = ledger.rateLimits?.answers ?? [];
    expect(answers[0]).toMatchObject({
      method: 'POST',
      path: '/api/v2/auth/client_token',
      status: 200,
      headers: { 'x-ratelimit-limit': '4', 'x-ratelimit-remaining': '3' },
    });
    const refused = answers.at(-1);
    expect(refused?.status).toBe(429);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(answers.every((a) => !a.path.includes('?') && !/\/\d+/.test(a.path))).toBe(true);
    const markdown = readFileSync(join(out, 'ledger.md'), 'utf8');
    expect(markdown).toContain('## Rate limits seen');
    expect(markdown).not.toContain(key.secret);
  }, 120_000);
});
