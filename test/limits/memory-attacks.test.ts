import type { ChildProcess } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { requestToken } from '../support/request-token.js';
import { killChild, spawnCli, waitForListening } from '../support/run-cli.js';
import { ACME_KEY, readSmallSet, SMALL_SET } from '../support/test-server.js';

/**
 * What a hostile client sends cannot kill the fake: each attack that once exhausted the heap runs
 * against the CLI in a child process with a small fixed heap (256 MB) and every other setting at
 * its default, and the fake must still be alive, answering, with its journal readable, after each
 * attack and after all of them at once. Each attack is bounded in count and in time; none of
 * these measures time.
 */

const HEAP_MB = 256;
/** Longest any one attack runs before it stops sending. */
const ATTACK_MS = 60_000;

let child: ChildProcess | undefined;
let stderr = '';

async function startFake(): Promise<string> {
  stderr = '';
  child = spawnCliWithHeap();
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const url = await waitForListening(child);
  child.stdout?.resume();
  return url;
}

function spawnCliWithHeap(): ChildProcess {
  return spawnCli(['--port', '0', '--fixtures', SMALL_SET], {
    NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}`,
  });
}

afterEach(async () => {
  const c = child;
  child = undefined;
  await killChild(c);
});

/** Runs `task` for `count` items, `parallel` at a time, stopping early when `stop()` says so or time is up. */
async function bounded(
  count: number,
  parallel: number,
  task: (i: number) => Promise<void>,
  stop: () => boolean = () => false,
  until = Date.now() + ATTACK_MS,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < count && !stop() && Date.now() < until) await task(next++);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return next;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

const entry = (text: string) => ({ name: 'Name', description: '', value: { type: 'string', text } });

/**
 * Documents of about 900 KB each through POST /api/v2/documents until one is refused for the
 * documents' budget (while other attacks run, some may be refused first for bodies in flight).
 */
async function bigDocuments(base: string): Promise<number[]> {
  const token = (await json(await requestToken(base, ACME_KEY))).access_token as string;
  const statuses: number[] = [];
  let full = false;
  const text = 'x'.repeat(900_000);
  await bounded(
    1000,
    2,
    async (i) => {
      const res = await fetch(`${base}/api/v2/documents`, {
        method: 'POST',
        headers: { 'x-access-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ templateUid: 'tpl-5001', title: `Big ${i}`, details: { name: entry(text) } }),
      });
      statuses.push(res.status);
      if (res.status !== 200) {
        expect(res.status).toBe(429);
        const message = String((await json(res)).message);
        expect(message).toMatch(/memory budget reached: .*memoryBudget/);
        if (message.includes('stored documents')) full = true;
      } else await res.arrayBuffer();
    },
    () => full,
  );
  expect(full).toBe(true);
  return statuses;
}

/** Unknown-route requests with 60 KB bodies (kept whole by the journal) into 50 sessions' journals. */
async function sessionJournals(base: string): Promise<number> {
  const ids: string[] = [];
  const until = Date.now() + ATTACK_MS;
  while (ids.length < 50 && Date.now() < until) {
    const res = await fetch(`${base}/__admin/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const answer = await json(res);
    // 429 with Retry-After while other bodies hold the bodies' share (the attacks at once).
    if (res.status === 429) await new Promise((wait) => setTimeout(wait, 200));
    else {
      expect(res.status).toBe(201);
      ids.push(answer.id as string);
    }
  }
  expect(ids.length).toBeGreaterThan(10);
  const body = JSON.stringify({ filler: 'j'.repeat(60_000) });
  // 4,000 entries of 60 KB: 240 MB if every journal kept its own 32 MiB.
  return bounded(
    4000,
    8,
    async (i) => {
      const res = await fetch(`${base}/sessions/${ids[i % ids.length]}/api/v2/nowhere/${i}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect([404, 429]).toContain(res.status);
      await res.arrayBuffer();
    },
    () => false,
    until,
  );
}

/** Sessions from a gzipped fixture set that builds to about 12 MB, until one is refused. */
async function gzippedFixtureSets(base: string): Promise<number[]> {
  const set = readSmallSet();
  const first = set.documents?.[0] as Record<string, unknown>;
  const documents = Array.from({ length: 2000 }, (_, i) => ({
    ...first,
    id: 600_000 + i,
    description: `${i} ${'f'.repeat(6000)}`,
  }));
  const body = gzipSync(JSON.stringify({ fixtures: { ...set, documents } }));
  expect(body.length).toBeLessThan(1_000_000);
  const statuses: number[] = [];
  await bounded(
    40,
    1,
    async () => {
      const res = await fetch(`${base}/__admin/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body,
      });
      statuses.push(res.status);
      const answer = await json(res);
      if (res.status !== 201) {
        expect(res.status).toBe(429);
        expect(String(answer.message)).toMatch(/memoryBudget|sessionFixturesBytes/);
      }
    },
    () => statuses.includes(429),
  );
  return statuses;
}

/** 30 gzipped admin bodies of about 60 KB at once, each inflating to 60 MB. */
async function inflatingBodies(base: string): Promise<number[]> {
  const body = gzipSync(`{"fixtures":{"padding":"${' '.repeat(60 * 1024 * 1024)}"}}`);
  expect(body.length).toBeLessThan(100_000);
  const statuses: number[] = [];
  await bounded(30, 30, async () => {
    const res = await fetch(`${base}/__admin/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    }).catch(() => undefined);
    // A refusal may close the connection before the whole body is sent: the client sees a reset.
    if (res) {
      statuses.push(res.status);
      await res.arrayBuffer();
    }
  });
  for (const status of statuses) expect([413, 429]).toContain(status);
  return statuses;
}

/** Alive, answering the vendor API and the admin API, its journal readable. */
async function expectAlive(base: string): Promise<void> {
  expect(child?.exitCode, stderr).toBeNull();
  const health = await fetch(`${base}/__admin/health`);
  expect(health.status).toBe(200);
  const { memory } = (await json(health)) as {
    memory: {
      total: { used: number; limit: number };
      kinds: Record<string, { used: number; limit: number }>;
    };
  };
  for (const usage of Object.values(memory.kinds)) expect(usage.used).toBeLessThanOrEqual(usage.limit);
  const token = await requestToken(base, ACME_KEY);
  expect(token.status).toBe(200);
  const access = (await json(token)).access_token as string;
  const list = await fetch(`${base}/api/v2/documents?pageNum=1&resultsPerPage=5`, {
    headers: { 'x-access-token': access },
  });
  expect(list.status).toBe(200);
  await list.arrayBuffer();
  const journal = await fetch(`${base}/__admin/requests?order=desc&limit=5`);
  expect(journal.status).toBe(200);
  const { requests } = (await json(journal)) as { requests: Array<{ path: string }> };
  expect(requests.map((r) => r.path)).toContain('/api/v2/documents');
}

describe(`attacks on the memory of a fake with a ${HEAP_MB} MB heap`, () => {
  it('big documents: refused in bytes before the heap is gone', async () => {
    const base = await startFake();
    const statuses = await bigDocuments(base);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(3);
    await expectAlive(base);
  }, 120_000);

  it('session journals filled across many sessions: oldest entries dropped, one share for all', async () => {
    const base = await startFake();
    expect(await sessionJournals(base)).toBeGreaterThan(1000);
    await expectAlive(base);
  }, 120_000);

  it('big gzipped fixture sets: counted as built, refused past the share', async () => {
    const base = await startFake();
    const statuses = await gzippedFixtureSets(base);
    expect(statuses).toContain(201);
    expect(statuses.at(-1)).toBe(429);
    await expectAlive(base);
  }, 120_000);

  it('many inflating admin bodies at once: bounded after inflation and in number', async () => {
    const base = await startFake();
    const statuses = await inflatingBodies(base);
    expect(statuses.length).toBeGreaterThan(0);
    await expectAlive(base);
  }, 120_000);

  it('all of them at once', async () => {
    const base = await startFake();
    await Promise.all([
      bigDocuments(base),
      sessionJournals(base),
      gzippedFixtureSets(base),
      inflatingBodies(base),
    ]);
    await expectAlive(base);
  }, 180_000);
});
