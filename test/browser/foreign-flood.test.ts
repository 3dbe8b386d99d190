import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultApiKey } from '../../src/index.js';
import { spawnCli, waitForListening } from '../support/run-cli.js';
import { launchBrowser, openPage, SLOW } from './browser.js';

/**
 * A web page on another origin, open in the same browser as the fake, uses what any page may
 * (the vendor API's open CORS and the public default keys) to send what once killed the fake in
 * about 12 s: PATCHes with 20,000 unknown detail keys and creates with 20,000 unknown fields. The
 * fake runs as a child with a 128 MB heap; it must stay alive, its memory budget reporting the
 * findings within their share and its report counting every violating request.
 */

const HEAP_MB = 128;
const ROUNDS = 40;
const FOREIGN_PAGE = '<!doctype html><title>another site</title><p>nothing to see</p>';

interface Health {
  memory: { total: { used: number; limit: number }; kinds: Record<string, { used: number; limit: number }> };
}

describe('in a browser: a page on another origin floods the fake with findings', SLOW, () => {
  let browser: Browser;
  let child: ChildProcess;
  let stderr = '';
  let fake: string;
  let foreign: { server: Server; url: string };

  beforeAll(async () => {
    browser = await launchBrowser();
    child = spawnCli(['--port', '0'], { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` });
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    fake = await waitForListening(child);
    child.stdout?.resume();
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(FOREIGN_PAGE);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    foreign = { server, url: `http://localhost:${(server.address() as AddressInfo).port}` };
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => foreign?.server.close(done));
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await exited;
    }
  }, 60_000);

  it('cannot kill it: alive afterwards, findings within their share of the budget, every violation counted', async () => {
    const { page, errors } = await openPage(browser);
    await page.goto(`${foreign.url}/`);
    const key = defaultApiKey(1);
    // The page's own script: a token from the public key, then the flood, as any site could.
    const sent = await page.evaluate(
      async ({ base, keyId, secret, rounds }) => {
        const content = 'from another site';
        const hmac = await crypto.subtle.importKey(
          'raw',
          new TextEncoder().encode(secret),
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['sign'],
        );
        const digest = new Uint8Array(
          await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(content)),
        );
        const hash = [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
        const token = await fetch(`${base}/api/v2/auth/client_token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-key': keyId, 'x-hash': hash },
          body: JSON.stringify({ scope: 'docs_api', content }),
        }).then((r) => r.json() as Promise<{ access_token: string }>);
        const headers = { 'x-access-token': token.access_token, 'content-type': 'application/json' };
        const list = await fetch(`${base}/api/v2/documents?pageNum=1&resultsPerPage=1`, { headers }).then(
          (r) => r.json() as Promise<{ results: Array<{ id: number }> }>,
        );
        const id = list.results[0]?.id;
        const doc = await fetch(`${base}/api/v2/documents/${id}`, { headers }).then(
          (r) => r.json() as Promise<{ templateUid: string }>,
        );
        const keys = Array.from({ length: 20_000 }, (_, i) => `"a-detail-key-no-template-has-${i}":{}`);
        const patch = `{${keys.join(',')}}`;
        const fields = Array.from({ length: 20_000 }, (_, i) => `"unknownField${i}":1`);
        const create = `{"templateUid":"${doc.templateUid}","title":"Flood",${fields.join(',')}}`;
        const statuses: number[] = [];
        for (let i = 0; i < rounds; i++) {
          try {
            const a = await fetch(`${base}/api/v2/documents/${id}`, {
              method: 'PATCH',
              headers,
              body: patch,
            });
            await a.arrayBuffer();
            const b = await fetch(`${base}/api/v2/documents`, { method: 'POST', headers, body: create });
            await b.arrayBuffer();
            statuses.push(a.status, b.status);
          } catch {
            statuses.push(0);
            break;
          }
        }
        return statuses;
      },
      { base: fake, keyId: key.keyId, secret: key.secret, rounds: ROUNDS },
    );
    expect(
      sent.filter((s) => s === 0),
      stderr,
    ).toEqual([]);
    expect(new Set(sent)).toEqual(new Set([400, 200]));
    expect(child.exitCode, stderr).toBeNull();

    const health = (await (await fetch(`${fake}/__admin/health`)).json()) as Health;
    const findings = health.memory.kinds.findings;
    expect(findings?.used).toBeGreaterThan(0);
    expect(findings?.used).toBeLessThanOrEqual(findings?.limit ?? 0);
    const report = (await (await fetch(`${fake}/__admin/report`)).json()) as {
      summary: { violatingRequests: number; requestsWithNotices: number };
    };
    expect(report.summary.violatingRequests).toBe(ROUNDS);
    expect(report.summary.requestsWithNotices).toBe(ROUNDS);
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);
});
