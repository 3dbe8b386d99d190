import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMockServer } from '../../src/index.js';
import { accessToken } from '../support/request-token.js';
import { runCli, spawnCli, waitForListening } from '../support/run-cli.js';
import { ACME_KEY, SMALL_SET, textEntry } from '../support/test-server.js';

/**
 * `--state-file`: the root's state survives a restart and `kill -9`. Everything a client saw
 * acknowledged is in the file, because the file is written before the answer is sent.
 */

const dir = mkdtempSync(join(tmpdir(), 'fake-state-'));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(stateFile: string, extra: string[] = []): Promise<{ url: string; child: ChildProcess }> {
  const child = spawnCli(['--port', '0', '--fixtures', SMALL_SET, '--state-file', stateFile, ...extra]);
  children.push(child);
  return { url: await waitForListening(child), child };
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The first line of a state file: its head (format and version). */
function headOf(file: string): { format: string; version: number } {
  return JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string);
}

const tokenOf = (url: string) => accessToken(url, ACME_KEY);

describe('--state-file', () => {
  it('keeps documents, tokens, settings, clock and the reset point across kill -9', async () => {
    const file = join(dir, 'kill.json');
    const first = await start(file);
    const token = await tokenOf(first.url);
    const auth = { 'x-access-token': token };
    const name = textEntry('Name', 'Renamed before the crash');
    expect((await call('PATCH', `${first.url}/api/v2/documents/101101`, { name }, auth)).status).toBe(200);
    const created = await call(
      'PATCH',
      `${first.url}/api/v2/documents`,
      [{ templateUid: '79', id: '', title: 'Created before the crash', clientId: 41001 }],
      auth,
    );
    expect(created.status).toBe(200);
    expect((await call('PUT', `${first.url}/__admin/settings`, { tokenTtlSeconds: 7200 })).status).toBe(200);
    expect((await call('POST', `${first.url}/__admin/clock`, { advanceSeconds: 600 })).status).toBe(200);
    // The last change acknowledged, then the process dies at once: no shutdown, no flush.
    await killHard(first.child);

    const second = await start(file);
    const read = await call('GET', `${second.url}/api/v2/documents/101101`, undefined, auth);
    expect(read.status).toBe(200); // the token issued before the crash still works
    expect(read.body.details).toMatchObject({ name: { value: { text: 'Renamed before the crash' } } });
    const state = (await call('GET', `${second.url}/__admin/state`)).body as {
      documents: Array<{ label: string }>;
    };
    expect(state.documents.map((d) => d.label)).toContain('Created before the crash');
    expect((await call('GET', `${second.url}/__admin/settings`)).body).toMatchObject({
      tokenTtlSeconds: 7200,
    });
    const clock = (await call('GET', `${second.url}/__admin/clock`)).body as { offsetSeconds: number };
    expect(clock.offsetSeconds).toBeGreaterThan(590);
    expect(clock.offsetSeconds).toBeLessThan(610);

    // A reset still goes back to the fixtures loaded first, and that is kept too.
    expect((await call('POST', `${second.url}/__admin/reset`)).status).toBe(200);
    await killHard(second.child);
    const third = await start(file);
    const afterReset = await call('GET', `${third.url}/api/v2/documents/101101`, undefined, auth);
    expect(afterReset.body.details).toMatchObject({ name: { value: { text: 'Dundee Office' } } });
    expect(readdirSync(dir).filter((f) => f.includes('tmp-state'))).toEqual([]);
  }, 60_000);

  it('loses nothing acknowledged when killed right after many concurrent writes', async () => {
    const file = join(dir, 'many.json');
    const first = await start(file);
    const auth = { 'x-access-token': await tokenOf(first.url) };
    const labels = Array.from({ length: 40 }, (_, i) => `concurrent ${i}`);
    const answers = await Promise.all(
      labels.map((title) =>
        call(
          'PATCH',
          `${first.url}/api/v2/documents`,
          [{ templateUid: '79', id: '', title, clientId: 41001 }],
          auth,
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(labels.map(() => 200));
    await killHard(first.child);
    const second = await start(file);
    const state = (await call('GET', `${second.url}/__admin/state`)).body as {
      documents: Array<{ label: string }>;
    };
    const kept = new Set(state.documents.map((d) => d.label));
    expect(labels.filter((l) => !kept.has(l))).toEqual([]);
  }, 60_000);

  it('takes stateFile from a config file, relative to the file', async () => {
    const folder = mkdtempSync(join(dir, 'config-'));
    writeFileSync(join(folder, 'fake.config.json'), JSON.stringify({ stateFile: 'kept.json', port: 0 }));
    const child = spawnCli(['--config', join(folder, 'fake.config.json'), '--fixtures', SMALL_SET]);
    children.push(child);
    await waitForListening(child);
    expect(headOf(join(folder, 'kept.json')).format).toBe('passportal-docs-fake state');
  }, 30_000);

  it('refuses to start over a file it cannot read back, and says so', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"not": "a state file"}');
    const result = await runCli(['--port', '0', '--fixtures', SMALL_SET, '--state-file', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`state file ${file}`);
    expect(readFileSync(file, 'utf8')).toBe('{"not": "a state file"}');
  }, 30_000);

  it('writes the file at start, with the env variable or the option, and none without', async () => {
    const file = join(dir, 'programmatic.json');
    const mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', stateFile: file });
    await mock.close();
    expect(headOf(file)).toMatchObject({ format: 'passportal-docs-fake state', version: 3 });
    expect(readFileSync(file, 'utf8')).not.toContain('"t":"documents"');
    const before = readdirSync(dir).length;
    const plain = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent' });
    await plain.close();
    expect(readdirSync(dir).length).toBe(before);

    const viaEnv = join(dir, 'env.json');
    const child = spawnCli(['--port', '0', '--fixtures', SMALL_SET], { STATE_FILE: viaEnv });
    children.push(child);
    await waitForListening(child);
    expect(headOf(viaEnv).format).toBe('passportal-docs-fake state');
  }, 30_000);

  it.each([
    ['boolean', false],
    ['string', 'false'],
  ] as const)(
    'answers stateNotSaved in the vendor shape, not success, when the file cannot be written (errorSuccess %s)',
    async (errorSuccess, success) => {
      const folder = mkdtempSync(join(dir, 'gone-'));
      const mock = await createMockServer({
        fixtures: SMALL_SET,
        logLevel: 'silent',
        stateFile: join(folder, 'state.json'),
        errorSuccess,
      });
      try {
        const url = await mock.listen(0, '127.0.0.1');
        rmSync(folder, { recursive: true, force: true });
        const res = await call('POST', `${url}/__admin/reset`);
        expect(res.status).toBe(500);
        expect(res.body).toMatchObject({
          success,
          message: 'the change could not be saved to the state file',
          code: 0,
          status: 500,
        });
        expect(res.body.apiRequestUid).toEqual(expect.any(String));
        expect(res.body.apiRequestUid).not.toBe('none');
      } finally {
        await mock.close();
      }
    },
  );

  it('refuses a second fake on the same file with exit 2, naming the file and the holder', async () => {
    const file = join(dir, 'shared.log');
    const first = await start(file);
    const second = await runCli(['--port', '0', '--fixtures', SMALL_SET, '--state-file', file]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(
      `state file ${file} is in use by another fake (pid ${first.child.pid} on `,
    );
    // The first keeps its file: a write there is still acknowledged and kept.
    const token = await tokenOf(first.url);
    expect((await call('POST', `${first.url}/__admin/reset`)).status).toBe(200);
    await killHard(first.child);
    // Its holder gone (kill -9 left the lock behind), the next start takes the file over.
    const third = await start(file);
    const read = await call('GET', `${third.url}/api/v2/documents/101101`, undefined, {
      'x-access-token': token,
    });
    expect(read.status).toBe(200);
  }, 60_000);

  it('refuses with exit 2 a state file whose token has a null grant, naming the file and the key', async () => {
    const file = join(dir, 'null-grant.log');
    const mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', stateFile: file });
    await mock.close();
    writeFileSync(
      file,
      `${readFileSync(file, 'utf8')}{"t":"tokens","tokens":[["forever",null]]}\n{"t":"commit"}\n`,
    );
    const result = await runCli(['--port', '0', '--fixtures', SMALL_SET, '--state-file', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`state file ${file}: line \\d+, tokens\\[0\\]\\[1\\]: the grant must be an object`),
    );
  }, 30_000);

  it('lets settings given at a restart win over those restored, and keeps the rest', async () => {
    const file = join(dir, 'flags.log');
    const first = await start(file);
    const changed = await call('PUT', `${first.url}/__admin/settings`, {
      tokenTtlSeconds: 7200,
      maxResultsPerPage: 50,
    });
    expect(changed.status).toBe(200);
    await killHard(first.child);
    const second = await start(file, ['--token-ttl-seconds', '60']);
    expect((await call('GET', `${second.url}/__admin/settings`)).body).toMatchObject({
      tokenTtlSeconds: 60,
      maxResultsPerPage: 50,
    });
  }, 60_000);
});
