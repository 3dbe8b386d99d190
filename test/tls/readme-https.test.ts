import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsFake, pythonWithRequests, startHttpsFake } from '../support/https-fake.js';

/**
 * The README's "point your client at the fake" block, run as written: curl and Python's requests,
 * their URLs pinned to the vendor's hosts, verification on, through the fake's proxy.
 */

const run = promisify(execFile);
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe("the README's HTTPS block", () => {
  let fake: HttpsFake;
  let scratch: string;
  beforeAll(async () => {
    // The README's keys are the default fixtures' keys.
    fake = await startHttpsFake({ fixtures: undefined });
    scratch = mkdtempSync(join(tmpdir(), 'readme-https-'));
  });
  afterAll(async () => {
    await fake.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('gets a token with curl and lists documents with requests, both at vendor host names', async () => {
    const block = readme.split('<!-- https:start -->')[1]?.split('<!-- https:end -->')[0] ?? '';
    const script = block
      .trim()
      .replace(/^```sh\n/, '')
      .replace(/```\s*$/, '')
      .trim();
    expect(script).toContain('https://us-clover.passportalmsp.com');
    expect(script).toContain('https://mycompany.mypasswordapp.com');
    // The block says `python3`: make it one that has requests (Debian's, where a pyenv hides it).
    const python = pythonWithRequests();
    if (python !== 'python3') symlinkSync(python, join(scratch, 'python3'));
    const path =
      python === 'python3' ? process.env.PATH : `${scratch}:${process.env.PATH ?? dirname(python)}`;
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: scratch,
      env: { ...process.env, PATH: path, FAKE: fake.proxyUrl, NO_PROXY: '', no_proxy: '' },
    });
    expect(stdout).toMatch(/"access_token":"[^"]+"/);
    // requests printed the status and the first page's labels of the default fixtures.
    const last = stdout.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^200 \[.+\]$/);
    // Both arrived through the proxy over TLS, with the vendor host names as sent.
    const entries = fake.mock.root.journal.list();
    const hosts = entries.map((e) => `${e.via} ${e.scheme} ${e.host}`);
    expect(hosts).toContain('proxy https us-clover.passportalmsp.com');
    expect(hosts).toContain('proxy https mycompany.mypasswordapp.com');
  }, 60_000);
});
