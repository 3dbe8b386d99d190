import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultApiKey } from '../../src/index.js';
import { waitForListening } from '../support/run-cli.js';
import { createTestServer } from '../support/test-server.js';

/**
 * The journal keeps what clients send within bounds by size, not only by count: bodies as text up
 * to `journalBodyBytes` each (summarised beyond), all entries within `journalBytes` (oldest
 * dropped first). Without a token, any client can send bodies to any vendor path, and every one is
 * journaled: before these bounds, 192 bodies of 1 MB of `[{},{},...]` exhausted the heap.
 */

const arrayOfEmptyObjects = (bytes: number): string => `[${'{},'.repeat(Math.floor(bytes / 3) - 1)}{}]`;

describe('the journal, bounded by size', () => {
  it('keeps a body up to journalBodyBytes whole and summarises a larger one (size, SHA-256, first bytes)', async () => {
    const server = await createTestServer({ journalBodyBytes: 1024 });
    const small = JSON.stringify({ templateUid: 'tpl-79', title: 'x' });
    const large = arrayOfEmptyObjects(5000);
    await server.http.post('/api/v2/nowhere').set('content-type', 'application/json').send(small);
    await server.http.post('/api/v2/nowhere').set('content-type', 'application/json').send(large);
    const [a, b] = await server.mock.requests();
    expect(a?.body).toEqual(JSON.parse(small));
    expect(b?.body).toEqual({
      truncated: true,
      bytes: large.length,
      sha256: createHash('sha256').update(large).digest('hex'),
      head: large.slice(0, 256),
    });
    // The response is kept the same way: the vendor error the client got.
    expect(b?.response).toMatchObject({ success: false, status: 404 });
  });

  it('drops the oldest entries to stay within journalBytes, and keeps findings as summaries', async () => {
    const server = await createTestServer({ journalBytes: 65_536, journalBodyBytes: 16_384 });
    const body = JSON.stringify({ filler: 'x'.repeat(10_000) });
    // The first request breaks the contract (an unknown API route): it stays a finding.
    await server.http.post('/api/v2/first').set('content-type', 'application/json').send(body);
    for (let i = 0; i < 30; i++) {
      await server.http.post(`/api/v2/n${i}`).set('content-type', 'application/json').send(body);
    }
    const journal = server.mock.root.journal;
    expect(journal.bytes).toBeLessThanOrEqual(65_536);
    const kept = await server.mock.requests();
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(10);
    expect(kept.at(-1)?.path).toBe('/api/v2/n29');
    const violations = await server.mock.violations();
    expect(violations.map((v) => v.path)).toContain('/api/v2/first');
  });

  it('pages the listing: limit, offset, order, count, findings and path prefixes', async () => {
    const server = await createTestServer();
    const token = await server.token();
    for (let i = 1; i <= 5; i++) {
      await server.http.get(`/api/v2/documents?pageNum=${i}`).set('x-access-token', token);
    }
    await server.http.get('/api/v2/documents?pageNum=0').set('x-access-token', token);
    const page = await server.http.get('/__admin/requests?path=/api/v2/doc*&order=desc&limit=2&offset=1');
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(6);
    expect(page.body.requests.map((e: { query: { pageNum: string } }) => e.query.pageNum)).toEqual([
      '5',
      '4',
    ]);
    const only = await server.http.get('/__admin/requests?violations=true');
    expect(only.body.requests.map((e: { query: { pageNum: string } }) => e.query.pageNum)).toEqual(['0']);
    const noticed = await server.http.get('/__admin/requests?notices=true');
    expect(noticed.body.count).toBe(0);
    const first = await server.http.get('/__admin/requests?limit=1');
    expect(first.body.requests[0].path).toBe('/api/v2/auth/client_token');
  });

  it('shows a long response as the start of its text in the listing, whole in the entry', async () => {
    // The default fixtures: a page of 100 rows is well over 4 KiB of JSON.
    const server = await createTestServer({ fixtures: undefined });
    const token = await server.token(defaultApiKey(1));
    await server.http.get('/api/v2/documents?pageNum=1&resultsPerPage=100').set('x-access-token', token);
    const listed = (await server.http.get('/__admin/requests?path=/api/v2/documents')).body.requests[0];
    expect(listed.responseTruncated).toBe(true);
    expect(typeof listed.response).toBe('string');
    expect(listed.responseBytes).toBeGreaterThan(4096);
    const whole = await server.http.get(`/__admin/requests/${listed.id}`);
    expect(whole.body.response.success).toBe(true);
    expect(Array.isArray(whole.body.response.results)).toBe(true);
  });

  it('stays alive under bodies that once exhausted its heap (a child process with a small heap)', async () => {
    const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=96', '--import', 'tsx', cli, '--port', '0', '--body-limit', '600000'],
      { env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const base = await waitForListening(child);
      const body = arrayOfEmptyObjects(500_000);
      // About 10 MB of heap each once parsed: 80 of them kept would be 800 MB.
      for (let i = 0; i < 80; i++) {
        const res = await fetch(`${base}/api/v2/anything`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        expect(res.status).toBe(404);
      }
      const health = await fetch(`${base}/__admin/health`);
      expect(health.status).toBe(200);
      const listed = await fetch(`${base}/__admin/requests?limit=1000`);
      expect(listed.status).toBe(200);
      const { count } = (await listed.json()) as { count: number };
      expect(count).toBeGreaterThan(0);
    } finally {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});

describe('the state dump, streamed', () => {
  it('sends GET /__admin/state in pieces (never one string), equal to the state', async () => {
    const server = await createTestServer({ fixtures: undefined, generate: 2000 });
    const res = await server.http.get('/__admin/state');
    expect(res.status).toBe(200);
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.body).toEqual(JSON.parse(JSON.stringify(server.mock.state())));
    expect(res.body.documents.length).toBeGreaterThan(2000);
  });
});
