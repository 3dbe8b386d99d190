import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { createMockServer } from '../../src/index.js';
import { killChild, runCli, spawnCli, waitForListening } from '../support/run-cli.js';
import { writeTenantsFile } from '../support/tenants-file.js';
import { SMALL_SET } from '../support/test-server.js';

/**
 * The tenants file (`--tenants`, `TENANTS_FILE`, config key `tenants`): a bad one stops the start
 * with exit status 2 naming the file and the key, never quoting a token; a good one lets each
 * tenant's token in, and the tokens appear in no log line and no answer.
 */

const OPERATOR = 'operator-token-file';

function rawFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-tenants-raw-'));
  const file = join(dir, 'tenants.json');
  writeFileSync(file, text);
  return file;
}

const startWith = (tenants: string, adminToken: string | undefined) =>
  createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', adminToken, tenants });

describe('a bad tenants file', () => {
  it.each([
    ['not JSON', '{', /: not valid JSON/],
    ['no list', '{"tenants": []}', /: tenants: must be a list of 1 to 10000 tenants/],
    ['a stray key', '{"tenant": []}', /: tenant: unknown key/],
    [
      'a bad name',
      '{"tenants": [{"name": "team a", "token": "t"}]}',
      /: tenants\/0\/name: must be 1-64 characters/,
    ],
    ['no token', '{"tenants": [{"name": "a"}]}', /: tenants\/0: give tokenSha256 .* or token, not both/],
    [
      'both tokens',
      `{"tenants": [{"name": "a", "token": "SECRET-T", "tokenSha256": "${'0'.repeat(64)}"}]}`,
      /: tenants\/0: give tokenSha256/,
    ],
    [
      'a short digest',
      '{"tenants": [{"name": "a", "tokenSha256": "abc"}]}',
      /: tenants\/0\/tokenSha256: must be 64 hex digits/,
    ],
    [
      'a shared token',
      '{"tenants": [{"name": "a", "token": "SECRET-T"}, {"name": "b", "token": "SECRET-T"}]}',
      /: tenants\/1: has the same token as tenants\/0/,
    ],
    [
      'a shared name',
      '{"tenants": [{"name": "a", "token": "SECRET-1"}, {"name": "A", "token": "SECRET-2"}]}',
      /: tenants\/1\/name: "A" is also the name of tenants\/0/,
    ],
    [
      'a bad quota',
      '{"tenants": [{"name": "a", "token": "SECRET-T", "maxSessions": 0}]}',
      /: tenants\/0\/maxSessions: must be a whole number from 1 to 100000/,
    ],
    [
      'a bad memory quota',
      '{"tenants": [{"name": "a", "token": "SECRET-T", "memoryBytes": "1GB"}]}',
      /: tenants\/0\/memoryBytes: must be a whole number/,
    ],
    [
      'the operator\u2019s token',
      `{"tenants": [{"name": "a", "token": "${OPERATOR}"}]}`,
      /: tenants\/0: has the admin token/,
    ],
  ])('%s: a ConfigError naming the file and the key, no token quoted', async (_what, text, message) => {
    const file = rawFile(text);
    const error = await startWith(file, OPERATOR).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`tenants file ${file}`);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toMatch(/SECRET|operator-token/);
  });

  it('without an admin token: refused, since the admin API would be open to everyone', async () => {
    const file = writeTenantsFile([{ name: 'a', token: 'SECRET-T' }]);
    await expect(startWith(file, undefined)).rejects.toThrow(
      /tenants need the operator's token too: set adminToken/,
    );
  });

  it('on the command line: exit 2 naming the file and the key; a missing file named too', async () => {
    const bad = rawFile('{"tenants": [{"name": "a", "tokenSha256": "xyz"}]}');
    const result = await runCli(['--tenants', bad, '--port', '0'], { ADMIN_TOKEN: OPERATOR });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`tenants file ${bad}: tenants/0/tokenSha256: must be 64 hex digits`);
    const missing = await runCli(['--port', '0'], {
      ADMIN_TOKEN: OPERATOR,
      TENANTS_FILE: '/nowhere/tenants.json',
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('tenants file /nowhere/tenants.json: cannot be read (ENOENT)');
  }, 60_000);
});

describe('a good tenants file', () => {
  it('read from TENANTS_FILE: a tenant token is let in, and no token is in the log or in any answer', async () => {
    const token = 'team-token-never-logged';
    const file = writeTenantsFile([
      { name: 'team-a', tokenSha256: createHash('sha256').update(token).digest('hex'), maxSessions: 1 },
    ]);
    const child = spawnCli(['--port', '0', '--fixtures', SMALL_SET], {
      ADMIN_TOKEN: OPERATOR,
      TENANTS_FILE: file,
      LOG_LEVEL: 'debug',
    });
    let log = '';
    child.stdout?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
    });
    try {
      const url = await waitForListening(child);
      const auth = { authorization: `Bearer ${token}` };
      const created = await fetch(`${url}/__admin/sessions`, { method: 'POST', headers: auth });
      expect(created.status).toBe(201);
      const answers = [await created.text()];
      const again = await fetch(`${url}/__admin/sessions`, { method: 'POST', headers: auth });
      expect(again.status).toBe(429);
      answers.push(await again.text());
      const root = await fetch(`${url}/__admin/state`, { headers: auth });
      expect(root.status).toBe(403);
      answers.push(await root.text());
      const wrong = await fetch(`${url}/__admin/sessions`, {
        headers: { authorization: `Bearer ${token}x` },
      });
      expect(wrong.status).toBe(401);
      answers.push(await wrong.text());
      answers.push(await (await fetch(`${url}/__admin/sessions`, { headers: auth })).text());
      for (const text of [...answers, log]) {
        expect(text).not.toContain(token);
        expect(text).not.toContain(OPERATOR);
      }
      expect(log).toContain('"statusCode":403');
    } finally {
      await killChild(child);
    }
  }, 60_000);
});
