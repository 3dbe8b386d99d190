/**
 * --watch: an edit to the fixture file changes what the next list returns within 2 s; an invalid
 * edit keeps the old answers and logs the file and the path; each reload is marked in the journal.
 * Then the command line: `--watch` and `--scenario` as a user starts them.
 */
import {
  copyFileSync,
  cpSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import supertest from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/index.js';
import { runCli, spawnCli, waitForListening } from '../support/run-cli.js';
import { issueToken, SMALL_SET } from '../support/test-server.js';

let dir: string;
let file: string;
let mock: MockServer | undefined;
let logs: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-watch-'));
  file = join(dir, 'set.json');
  copyFileSync(SMALL_SET, file);
  logs = [];
});
afterEach(async () => {
  await mock?.close();
  mock = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A logger whose lines the test reads. */
const capturingLogger = () =>
  pino(
    { level: 'info' },
    new Writable({
      write(chunk, _enc, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The document labels the first page answers for Acme. */
async function labels(http: ReturnType<typeof supertest>): Promise<string[]> {
  const token = await issueToken(http);
  const res = await http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);
  // A reload between the token call and the list clears the token: read again next time.
  if (res.status !== 200) return [];
  return res.body.results.map((r: { label: string }) => r.label);
}

/** Polls until `check` holds, for at most `ms`. */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await sleep(50);
  }
  return check();
}

describe('--watch', () => {
  it('an edit to the fixture file changes what the next list returns within 2 s; a broken edit keeps the old set and logs file and path', async () => {
    mock = await createMockServer({ fixtures: file, watch: true, logger: capturingLogger() });
    const http = supertest(mock.app);
    const set = JSON.parse(readFileSync(file, 'utf8'));
    const first = set.documents.find((d: { organization_id: number }) => d.organization_id === 1);
    expect(await labels(http)).toContain(first.label);
    first.label = 'Edited While Running';
    writeFileSync(file, JSON.stringify(set, null, 2));
    expect(await within(2000, async () => (await labels(http)).includes('Edited While Running'))).toBe(true);
    const [marker] = await mock.requests({ method: 'RELOAD' });
    expect(marker).toMatchObject({ method: 'RELOAD', path: '/__admin/fixtures', status: 200 });

    first.client_id = 'not a number';
    writeFileSync(file, JSON.stringify(set, null, 2));
    expect(await within(2000, async () => logs.some((l) => l.includes('fixtures not reloaded')))).toBe(true);
    const line = logs.find((l) => l.includes('fixtures not reloaded')) ?? '';
    expect(line).toContain(file);
    expect(line).toMatch(/\/documents\/\d+\/client_id/);
    expect(await labels(http)).toContain('Edited While Running');
    const markers = await mock.requests({ method: 'RELOAD' });
    expect(markers.at(-1)).toMatchObject({ status: 400 });
  }, 60_000);

  it('ignores files the set is not read from and saves that change nothing: no reload, the state and tokens kept', async () => {
    mock = await createMockServer({ fixtures: file, watch: true, logger: capturingLogger() });
    const http = supertest(mock.app);
    const token = await issueToken(http);
    writeFileSync(join(dir, 'notes.txt'), 'a note');
    writeFileSync(join(dir, '.set.json.swp'), 'swap');
    writeFileSync(join(dir, 'set.json~'), 'backup');
    // Saved again with the same content (an editor's save, a touch).
    writeFileSync(file, readFileSync(file));
    await sleep(1500);
    expect(await mock.requests({ method: 'RELOAD' })).toEqual([]);
    expect(logs.some((l) => l.includes('fixtures reloaded'))).toBe(false);
    const res = await http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);
    expect(res.status).toBe(200);
  }, 60_000);

  it('refuses an over-budget file and a half-written file (truncated JSON, then the rest), keeping the set, state and tokens until the whole valid file is there', async () => {
    mock = await createMockServer({
      fixtures: file,
      watch: true,
      memoryBudget: 400_000,
      logger: capturingLogger(),
    });
    const http = supertest(mock.app);
    const token = await issueToken(http);
    const before = await labels(http);
    const set = JSON.parse(readFileSync(file, 'utf8'));
    const kept = async () =>
      (await http.get('/api/v2/documents?pageNum=1').set('x-access-token', token)).status === 200;
    // Over budget: fixture sets hold half of the 400,000 bytes.
    const big = structuredClone(set);
    big.documents[0].description = 'x'.repeat(300_000);
    writeFileSync(file, JSON.stringify(big));
    expect(
      await within(3000, async () => logs.filter((l) => l.includes('fixtures not reloaded')).length >= 1),
    ).toBe(true);
    expect(logs.find((l) => l.includes('fixtures not reloaded'))).toMatch(/memory budget/);
    expect(await kept()).toBe(true);
    // Half-written: the first half of a valid edit, then the rest.
    set.documents[0].label = 'Whole At Last';
    const text = JSON.stringify(set, null, 2);
    writeFileSync(file, text.slice(0, text.length >> 1));
    expect(
      await within(3000, async () => logs.filter((l) => l.includes('fixtures not reloaded')).length >= 2),
    ).toBe(true);
    expect(await kept()).toBe(true);
    expect(await labels(http)).toEqual(before);
    writeFileSync(file, text);
    expect(await within(3000, async () => (await labels(http)).includes('Whole At Last'))).toBe(true);
  }, 60_000);

  it('follows a folder replaced and a symlink swapped; a path gone is logged once as an error', async () => {
    const folderSet = fileURLToPath(new URL('../fixtures/folder-set', import.meta.url));
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    cpSync(folderSet, a, { recursive: true });
    cpSync(folderSet, b, { recursive: true });
    const documentsOf = (folder: string) => JSON.parse(readFileSync(join(folder, 'documents.json'), 'utf8'));
    const relabel = (folder: string, label: string) => {
      const documents = documentsOf(folder);
      documents[0].label = label;
      writeFileSync(join(folder, 'documents.json'), JSON.stringify(documents));
    };
    const link = join(dir, 'current');
    symlinkSync(a, link);
    mock = await createMockServer({ fixtures: link, watch: true, logger: capturingLogger() });
    const labelled = (label: string) =>
      within(4000, async () => mock?.state().documents.some((d) => d.label === label) ?? false);

    // The link swapped to another folder (as `ln -sfn b current` does: a new link renamed over).
    relabel(b, 'From Folder B');
    symlinkSync(b, join(dir, 'next'));
    renameSync(join(dir, 'next'), link);
    expect(await labelled('From Folder B')).toBe(true);
    // An edit in the folder it points to now.
    relabel(b, 'Edited In B');
    expect(await labelled('Edited In B')).toBe(true);

    // The folder replaced whole.
    const fresh = join(dir, 'fresh');
    cpSync(b, fresh, { recursive: true });
    relabel(fresh, 'From A Replaced Folder');
    rmSync(b, { recursive: true });
    renameSync(fresh, b);
    expect(await labelled('From A Replaced Folder')).toBe(true);

    // Gone: one error saying why, however long it stays gone; the set in place is kept.
    rmSync(b, { recursive: true });
    expect(await within(4000, async () => logs.some((l) => l.includes('fixtures no longer watched')))).toBe(
      true,
    );
    await sleep(2500);
    const stops = logs.filter((l) => l.includes('fixtures no longer watched'));
    expect(stops).toHaveLength(1);
    expect(JSON.parse(stops[0] as string)).toMatchObject({ level: 50 });
    expect(stops[0]).toContain(link);
    expect(mock.state().documents.some((d) => d.label === 'From A Replaced Folder')).toBe(true);
  }, 60_000);

  it('needs --fixtures', async () => {
    await expect(createMockServer({ watch: true, logLevel: 'silent' })).rejects.toThrow(
      /--watch needs --fixtures/,
    );
  });
});

describe('the command line', () => {
  it('npm start -- --fixtures FILE --watch serves the edited set', async () => {
    const child = spawnCli(['--fixtures', file, '--watch', '--port', '0']);
    try {
      const url = await waitForListening(child);
      const http = supertest(url);
      const set = JSON.parse(readFileSync(file, 'utf8'));
      set.documents[0].label = 'Edited Through The CLI';
      writeFileSync(file, JSON.stringify(set));
      expect(await within(2000, async () => (await labels(http)).includes('Edited Through The CLI'))).toBe(
        true,
      );
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);

  it('--scenario FILE applies the scenario at start; a bad one exits 2 naming the file and the key', async () => {
    const good = join(dir, 'throttled.json');
    writeFileSync(good, JSON.stringify({ name: 'throttled', limit: 1, windowSeconds: 60 }));
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        name: 'mine',
        steps: [
          { kind: 'clock', advanceSeconds: 5 },
          { kind: 'fault', fault: { status: 42 } },
        ],
      }),
    );
    const refused = await runCli(['--fixtures', file, '--port', '0', '--scenario', good, '--scenario', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(bad);
    expect(refused.stderr).toContain('steps/1/fault/status');
    mock = await createMockServer({ fixtures: file, scenario: good, logLevel: 'silent' });
    expect((await mock.scenarios()).applied.map((a) => a.name)).toEqual(['throttled']);
    // Given at start, it comes back after a reset.
    mock.reset();
    expect(await mock.rateLimits()).toHaveLength(1);
  }, 60_000);
});
