import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fakeProcesses } from '../support/fake-processes.js';
import { killChild, spawnCli, waitForListening } from '../support/run-cli.js';
import { SMALL_SET } from '../support/test-server.js';

/**
 * A state file written by the previous release (version 2, root only: made by that release from
 * the small set, a token issued, document 101101 renamed, tokenTtlSeconds 7200, the clock 600 s on;
 * the token's expiry moved to 2100 so the file stays usable) still loads in a real fake process.
 */

const RELEASE_2 = fileURLToPath(new URL('../fixtures/state-file/release-2.jsonl', import.meta.url));
const TOKEN = 'iVIk_XQrl9xDEmg6OaHtnQAlhQDq-pIuIBZkjgRTuJc';

const { dir, children } = fakeProcesses('fake-previous-', 'test');

async function start(stateFile: string): Promise<string> {
  const child = spawnCli(['--port', '0', '--fixtures', SMALL_SET, '--state-file', stateFile]);
  children.push(child);
  return waitForListening(child);
}

async function json(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('a state file of the previous release', () => {
  it('loads: its documents, tokens, settings and clock come back, and it is carried on in the current format', async () => {
    const file = join(dir, 'state.json');
    copyFileSync(RELEASE_2, file);
    const url = await start(file);
    const read = await json(`${url}/api/v2/documents/101101`, { 'x-access-token': TOKEN });
    expect(read.status).toBe(200);
    expect(read.body.details).toMatchObject({ name: { value: { text: 'Kept by the previous release' } } });
    expect((await json(`${url}/__admin/settings`)).body).toMatchObject({ tokenTtlSeconds: 7200 });
    const clock = (await json(`${url}/__admin/clock`)).body as { offsetSeconds: number };
    expect(clock.offsetSeconds).toBe(600);
    const head = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string) as { version: number };
    expect(head.version).toBeGreaterThanOrEqual(2);
    await killChild(children.pop());

    // Carried on: a second start reads what the first one wrote.
    const again = await start(file);
    const reread = await json(`${again}/api/v2/documents/101101`, { 'x-access-token': TOKEN });
    expect(reread.body.details).toMatchObject({ name: { value: { text: 'Kept by the previous release' } } });
  }, 60_000);
});
