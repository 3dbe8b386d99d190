import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/live/ledger.js';
import { PROBES } from '../../src/live/probes.js';
import { type HttpsFake, startHttpsFake } from '../support/https-fake.js';
import { runCli } from '../support/run-cli.js';

/**
 * The live service stood in by the fake itself, on HTTPS under a vendor host name reached only
 * through its own proxy (HTTPS_PROXY) with its CA trusted through NODE_EXTRA_CA_CERTS, started
 * with other decisions than the defaults: a page-size cap of 50, `success: "false"` in error
 * bodies, tokens living 1800 s, pageNum defaulting to 100, and (no setting covers this) an unknown
 * route answered with code 404.
 */

const VENDOR = 'https://us-clover.passportalmsp.com';
const OTHER_DECISIONS = {
  fixtures: undefined,
  maxResultsPerPage: 50,
  errorSuccess: 'string',
  tokenTtlSeconds: 1800,
  defaultPageNum: 100,
} as const;
const UNKNOWN_ROUTE_ANSWER = { success: false, message: 'Route not found', code: 404, status: 404 };
const EXPECTED_CONTRADICTED = [
  'error-success-type',
  'page-num-omitted',
  'page-size-cap',
  'token-lifetime',
  'unknown-route',
];

let live: HttpsFake;
let scratch: string;
let emptyConfig: string;

beforeAll(async () => {
  live = await startHttpsFake(OTHER_DECISIONS);
  scratch = mkdtempSync(join(tmpdir(), 'check-live-'));
  emptyConfig = join(scratch, 'empty.config.json');
  writeFileSync(emptyConfig, '{}\n');
}, 60_000);
afterAll(async () => {
  await live.close();
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  live.mock.reset();
  live.mock.addFault({
    method: 'GET',
    path: '/api/v2/no-such-route',
    status: 404,
    body: UNKNOWN_ROUTE_ANSWER,
  });
});

const key = () => {
  const k = live.mock.root.fake.snapshot().apiKeys[0];
  if (k === undefined) throw new Error('no key');
  return k;
};

/** The environment of a user behind a proxy that inspects TLS: the stand-in is both. */
function liveEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    HTTPS_PROXY: live.proxyUrl,
    https_proxy: live.proxyUrl,
    HTTP_PROXY: '',
    http_proxy: '',
    NO_PROXY: '',
    no_proxy: '',
    NODE_EXTRA_CA_CERTS: live.caPath,
    PASSPORTAL_KEY_ID: key().keyId,
    PASSPORTAL_SECRET: key().secret,
    CONFIG_FILE: '',
    ...extra,
  };
}

const readLedger = (dir: string) => JSON.parse(readFileSync(join(dir, 'ledger.json'), 'utf8')) as Ledger;
const idsWith = (ledger: Ledger, outcome: string) =>
  ledger.probes
    .filter((p) => p.outcome === outcome)
    .map((p) => p.id)
    .sort();

describe('check-live against a stand-in with other decisions', () => {
  let out: string;
  let ledger: Ledger;

  it('reports exactly the changed decisions contradicted and the rest confirmed, sending only reads', async () => {
    out = join(scratch, 'first');
    const rate = 10;
    const run = await runCli(
      ['check-live', '--base', VENDOR, '--out', out, '--rate', String(rate), '--config', emptyConfig],
      liveEnv(),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    ledger = readLedger(out);
    expect(ledger.host).toBe('us-clover.passportalmsp.com');
    expect(ledger.region).toBe('us-clover');
    expect(ledger.complete).toBe(true);
    expect(ledger.probes.map((p) => p.id)).toEqual(PROBES.map((p) => p.id));
    expect(idsWith(ledger, 'contradicted')).toEqual(EXPECTED_CONTRADICTED);
    // The one write probe cannot tell in a read-only run; every other probe confirms.
    expect(idsWith(ledger, 'unknown')).toEqual(['patch-success-literal']);
    expect(ledger.probes.find((p) => p.id === 'page-size-cap')).toMatchObject({
      live: { cap: 50 },
      fake: { cap: 100 },
      fix: { setting: 'maxResultsPerPage', value: 50 },
    });
    expect(ledger.probes.find((p) => p.id === 'unknown-route')).toMatchObject({ fix: null, noSetting: true });

    const journal = await live.mock.requests();
    expect(journal.length).toBe(ledger.requests.live);
    const kinds = new Set(journal.map((e) => (e.method === 'GET' ? 'GET' : `${e.method} ${e.path}`)));
    expect([...kinds].sort()).toEqual(['GET', 'POST /api/v2/auth/client_token']);
    expect(journal.every((e) => e.host === 'us-clover.passportalmsp.com' && e.scheme === 'https')).toBe(true);
    // No second holds more than `rate` requests: any rate+1 consecutive ones span a second or more,
    // less one spacing (100 ms) for the jitter of arrival times on a busy machine; unspaced, they
    // would arrive within a few milliseconds. Counted from the second request: the
    // first one's arrival also waits for the proxy tunnel and the TLS handshake, which the client
    // starts when its turn comes, so its arrival says nothing about the spacing.
    const times = journal.map((e) => Date.parse(e.time));
    for (let i = 1; i + rate < times.length; i += 1) {
      expect((times[i + rate] ?? 0) - (times[i] ?? 0)).toBeGreaterThanOrEqual(1000 - 1000 / rate);
    }
  }, 120_000);

  it('writes a config fragment of exactly the settings that match, and a ledger naming what none covers', () => {
    const fragment = JSON.parse(readFileSync(join(out, 'passportal-fake.config.json'), 'utf8'));
    expect(fragment).toEqual({
      $schema: './node_modules/passportal-docs-fake/spec/config.schema.json',
      maxResultsPerPage: 50,
      errorSuccess: 'string',
      tokenTtlSeconds: 1800,
      defaultPageNum: 100,
    });
    const markdown = readFileSync(join(out, 'ledger.md'), 'utf8');
    expect(markdown).toContain('## Contradictions no setting covers');
    expect(markdown).toMatch(/- \*\*unknown-route\*\* .*answered `\{"status":404,"code":404\}`/);
    expect(markdown).toContain(
      '| page-size-cap | contradicted | `{"cap":50}` | `{"cap":100}` | `"maxResultsPerPage": 50` |',
    );
  });

  it('keeps the key, the secret and every token out of what it writes and prints', async () => {
    const run = await runCli(
      [
        'check-live',
        '--base',
        VENDOR,
        '--out',
        join(scratch, 'secrets'),
        '--rate',
        '50',
        '--config',
        emptyConfig,
      ],
      liveEnv(),
    );
    expect(run.code).toBe(0);
    const issued = (await live.mock.requests())
      .map((e) => (e.response as { access_token?: unknown; refresh_token?: unknown } | undefined) ?? {})
      .flatMap((r) => [r.access_token, r.refresh_token])
      .filter((t): t is string => typeof t === 'string');
    expect(issued.length).toBeGreaterThan(3);
    const written = readdirSync(join(scratch, 'secrets')).map((f) =>
      readFileSync(join(scratch, 'secrets', f), 'utf8'),
    );
    for (const text of [...written, run.stdout, run.stderr]) {
      for (const secret of [key().keyId, key().secret, ...issued]) expect(text).not.toContain(secret);
    }
    // Shapes and counts only: no label, description or client name of the tenant's documents.
    const snapshot = live.mock.root.fake.snapshot();
    const contents = [
      ...snapshot.documents.flatMap((d) => [d.label, d.description]),
      ...snapshot.clients.map((c) => c.name),
    ].filter((t) => t.length >= 6);
    expect(contents.length).toBeGreaterThan(100);
    for (const text of written) for (const content of contents) expect(text).not.toContain(content);
  }, 120_000);

  it('the fragment loaded into a fresh fake turns every contradiction a setting covers into a confirmation', async () => {
    const second = join(scratch, 'second');
    const run = await runCli(
      [
        'check-live',
        '--base',
        VENDOR,
        '--out',
        second,
        '--rate',
        '50',
        '--config',
        join(out, 'passportal-fake.config.json'),
      ],
      liveEnv(),
    );
    expect(run.code).toBe(0);
    const again = readLedger(second);
    expect(idsWith(again, 'contradicted')).toEqual(['unknown-route']);
    expect(idsWith(again, 'unknown')).toEqual(['patch-success-literal']);
    expect(JSON.parse(readFileSync(join(second, 'passportal-fake.config.json'), 'utf8'))).toEqual({
      $schema: './node_modules/passportal-docs-fake/spec/config.schema.json',
    });
  }, 120_000);
});

describe('check-live --allow-writes', () => {
  it('writes only to the named document, leaves it as it was, and reads the PATCH answer', async () => {
    live.mock.settings({ successLiterals: 'boolean' });
    const documentId = 101101;
    const before = live.mock.root.fake.snapshot().documents.find((d) => d.id === documentId);
    const out = join(scratch, 'writes');
    const run = await runCli(
      [
        'check-live',
        '--base',
        VENDOR,
        '--out',
        out,
        '--rate',
        '50',
        '--config',
        emptyConfig,
        '--allow-writes',
        String(documentId),
      ],
      liveEnv(),
    );
    expect(run.code).toBe(0);
    const ledger = readLedger(out);
    expect(ledger.readOnly).toBe(false);
    expect(ledger.probes.find((p) => p.id === 'patch-success-literal')).toMatchObject({
      outcome: 'contradicted',
      live: { status: 200, success: 'boolean' },
      fake: { status: 200, success: 'string' },
      fix: { setting: 'successLiterals', value: 'boolean' },
    });
    const writes = (await live.mock.requests()).filter(
      (e) => e.method !== 'GET' && e.path !== '/api/v2/auth/client_token',
    );
    expect(writes.map((e) => `${e.method} ${e.path}`)).toEqual([`PATCH /api/v2/documents/${documentId}`]);
    const after = live.mock.root.fake.snapshot().documents.find((d) => d.id === documentId);
    expect(after?.details).toEqual(before?.details);
    live.mock.settings({ successLiterals: 'contract' });
  }, 120_000);

  it('refuses a --allow-writes that is not a document id', async () => {
    const run = await runCli(
      ['check-live', '--base', VENDOR, '--out', join(scratch, 'badwrite'), '--allow-writes', 'all'],
      liveEnv(),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--allow-writes takes the id of one document');
  }, 60_000);
});

describe('check-live stops with a clear message', () => {
  const base = ['check-live', '--base', VENDOR, '--rate', '50', '--config'];

  it('exits 2 without the key in the environment, naming the variables', async () => {
    const run = await runCli([...base, emptyConfig, '--out', join(scratch, 'nokey')], {
      ...liveEnv(),
      PASSPORTAL_KEY_ID: '',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('PASSPORTAL_KEY_ID and PASSPORTAL_SECRET');
  }, 60_000);

  it('exits 2 for a --base with a path, naming the root to give', async () => {
    const run = await runCli(
      ['check-live', '--base', `${VENDOR}/api/v2`, '--out', join(scratch, 'path')],
      liveEnv(),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`without a path: ${VENDOR}`);
  }, 60_000);

  it('exits 1 when the key is refused, and the ledger says why', async () => {
    const dir = join(scratch, 'refused');
    const run = await runCli(
      [...base, emptyConfig, '--out', dir],
      liveEnv({ PASSPORTAL_SECRET: 'not-the-secret' }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /refused the API key \(status 401.*check PASSPORTAL_KEY_ID and PASSPORTAL_SECRET/,
    );
    expect(run.stderr).not.toContain('not-the-secret');
    expect(readLedger(dir)).toMatchObject({ complete: false });
  }, 60_000);

  it('exits 1 on a 429, saying to wait and lower --rate', async () => {
    live.mock.addFault({
      method: 'GET',
      path: '/api/v2/documents',
      status: 429,
      body: { message: 'slow down' },
    });
    const run = await runCli([...base, emptyConfig, '--out', join(scratch, 'limited')], liveEnv());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('answered 429');
    expect(run.stderr).toContain('lower --rate');
  }, 60_000);

  it('exits 1 on a network error', async () => {
    const run = await runCli(
      [...base, emptyConfig, '--out', join(scratch, 'network')],
      liveEnv({ HTTPS_PROXY: 'http://127.0.0.1:9', https_proxy: 'http://127.0.0.1:9' }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/cannot reach us-clover\.passportalmsp\.com: .*ECONNREFUSED/);
  }, 60_000);

  it('stops at --max-requests and sends no more', async () => {
    const dir = join(scratch, 'bound');
    const run = await runCli([...base, emptyConfig, '--out', dir, '--max-requests', '6'], liveEnv());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--max-requests');
    expect((await live.mock.requests()).length).toBe(6);
    const ledger = readLedger(dir);
    expect(ledger.complete).toBe(false);
    expect(
      ledger.probes.some((p) => p.outcome === 'unknown' && String(p.live.unknown).startsWith('not run')),
    ).toBe(true);
  }, 60_000);
});
