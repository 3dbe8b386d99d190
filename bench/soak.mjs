#!/usr/bin/env node
/**
 * Soak: the fake under a bounded mixed load for a fixed time, its resident memory sampled every
 * second, to show that memory levels off (a plateau) instead of growing with what clients send.
 * The load, from a few concurrent loops on loopback only: lists with ever-new filters
 * (`clientId`, `type`, `searchTxt`), reads, creates, half-megabyte bodies of `[{},{},...]` to
 * any path, malformed JSON, over-long queries, and sessions created with their own fixtures and
 * deleted. Every loop stops at the deadline; the fake is stopped at the end. The memory budget's
 * usage per kind (`GET /__admin/health`) is sampled with the RSS and reported: limit, peak, end.
 *   node bench/soak.mjs [seconds=60]          (after `npm run build`; also run by `npm run bench`)
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const KEY_ID = '375f86c493d3b504cbab9bf6a2f61d3f0b3ac334884bb150d193cfec08077bd0';
const SECRET = 'fake-secret-1-0799cc6103334c167a65e28e';

const freePort = () =>
  new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });

async function rssOf(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** The memory budget's usage per kind, from the root's health call (undefined if it fails). */
async function budgetsOf(base) {
  const res = await fetch(`${base}/__admin/health`).catch(() => undefined);
  const body = res ? await res.json().catch(() => undefined) : undefined;
  return body?.memory;
}

/** Per budget (the whole and each kind): its limit, the option setting it, peak and end usage. */
function budgetSummary(samples, end) {
  const names = ['total', ...Object.keys(end?.kinds ?? {})];
  const usage = (m, name) => (name === 'total' ? m?.total : m?.kinds?.[name]);
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        limit: usage(end, name)?.limit,
        option: usage(end, name)?.option,
        peak: Math.max(0, ...samples.map((m) => usage(m, name)?.used ?? 0)),
        end: usage(end, name)?.used,
      },
    ]),
  );
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** Runs the soak; answers RSS at start, peak and end, the samples, the requests sent and whether memory levelled off. */
export async function soak(seconds = 60, log = () => {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist/start.js'), '--port', String(port), '--log-level', 'silent'],
    {
      stdio: 'ignore',
    },
  );
  const exited = new Promise((done) => child.once('exit', done));
  try {
    for (let i = 0; ; i++) {
      if (i > 1000) throw new Error('the fake did not start');
      const ok = await fetch(`${base}/__admin/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const content = 'soak';
    const tokenRes = await fetch(`${base}/api/v2/auth/client_token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-key': KEY_ID,
        'x-hash': createHmac('sha256', SECRET).update(content).digest('hex'),
      },
      body: JSON.stringify({ scope: 'docs_api', content }),
    });
    const { access_token: token } = await tokenRes.json();
    const auth = { 'x-access-token': token };
    const largeBody = `[${'{},'.repeat(170_000)}{}]`;
    const sessionFixtures = await readFile(join(ROOT, 'test/fixtures/http/small-set.json'), 'utf8');
    const deadline = performance.now() + seconds * 1000;
    let sent = 0;
    let n = 0;
    const send = async (path, init = {}) => {
      sent++;
      const res = await fetch(`${base}${path}`, init).catch(() => undefined);
      await res?.arrayBuffer().catch(() => undefined);
    };
    const loops = [
      async () => {
        const i = n++;
        await send(`/api/v2/documents?pageNum=1&clientId=${40_000 + i}&type=asset&searchTxt=x${i}`, {
          headers: auth,
        });
        await send(`/api/v2/documents?pageNum=${1 + (i % 4)}&resultsPerPage=50`, { headers: auth });
        await send('/api/v2/documents/101101', { headers: auth });
      },
      async () => {
        await send('/api/v2/documents', {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify([{ templateUid: 'tpl-5001', clientId: 41001, title: `Soak ${n++}` }]),
        });
      },
      async () => {
        await send(`/api/v2/any-${n++}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: largeBody,
        });
      },
      async () => {
        await send('/api/v2/documents', {
          method: 'PUT',
          headers: { ...auth, 'content-type': 'application/json' },
          body: '[{"x":',
        });
        await send(`/api/v2/documents?${'searchTxt=a&'.repeat(700)}`, { headers: auth });
      },
      async () => {
        const res = await fetch(`${base}/__admin/sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: `{"fixtures":${sessionFixtures}}`,
        }).catch(() => undefined);
        sent++;
        const body = res ? await res.json().catch(() => undefined) : undefined;
        if (body?.id) await send(`/__admin/sessions/${body.id}`, { method: 'DELETE' });
      },
    ];
    const samples = [];
    const budgetSamples = [];
    const sampler = setInterval(() => {
      void rssOf(child.pid).then(
        (rss) => samples.push(rss),
        () => undefined,
      );
      void budgetsOf(base).then((m) => m && budgetSamples.push(m));
    }, 1000);
    const startRss = await rssOf(child.pid);
    await Promise.all(
      loops.map(async (step) => {
        while (performance.now() < deadline) await step();
      }),
    );
    clearInterval(sampler);
    const endRss = await rssOf(child.pid);
    const endBudgets = await budgetsOf(base);
    const quarter = Math.max(1, Math.floor(samples.length / 4));
    const early = mean(samples.slice(quarter, 2 * quarter));
    const late = mean(samples.slice(-quarter));
    const growth = early > 0 ? late / early - 1 : 0;
    log(`soak: ${sent} requests in ${seconds} s`);
    return {
      seconds,
      requests: sent,
      startRss,
      peakRss: Math.max(startRss, endRss, ...samples),
      endRss,
      samplesRss: samples,
      lateGrowth: growth,
      plateau: growth < 0.1,
      heapLimit: endBudgets?.heapLimit,
      budgets: budgetSummary(budgetSamples, endBudgets),
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await soak(Number(process.argv[2] ?? 60), (line) => console.log(line));
  const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;
  console.log(
    `RSS start ${mb(result.startRss)}, peak ${mb(result.peakRss)}, end ${mb(result.endRss)}; ` +
      `last quarter vs second quarter ${(result.lateGrowth * 100).toFixed(1)}%: ${result.plateau ? 'plateau' : 'still growing'}`,
  );
  for (const [name, b] of Object.entries(result.budgets)) {
    console.log(
      `budget ${name} (${b.option}): limit ${mb(b.limit ?? 0)}, peak ${mb(b.peak)}, end ${mb(b.end ?? 0)}`,
    );
  }
}
