#!/usr/bin/env node
/**
 * The state file's cost: a one-document batch PATCH (`--state-file`) answered on a fresh file,
 * after 50,000 token calls, after 10,000 edited documents, and after both; and how long a health
 * check waits while those writes (and the background compaction they start) run, which is how
 * long the event loop was held. Each case runs in its own `node dist/start.js` on the bench's
 * 10,000-document set; the state a case starts from is written beforehand by the fake's own state
 * file module (dist/) in one process, which is much faster than 50,000 fsynced calls over HTTP
 * and leaves the same log (grouped into fewer commits). Ratios are to the fresh file, one run.
 *   node bench/state-file.mjs            (after `npm run build`; also run by `npm run bench`)
 * Target: every ratio at most 2.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_OPTIONS, pickSettings } from '../dist/config.js';
import { loadFixtureSource } from '../dist/domain/fixtures/load-fixtures.js';
import { createInstance } from '../dist/harness/instance/instance.js';
import { StateFile } from '../dist/harness/persistence/state-file.js';
import { ORGANIZATION_ID, tokenRequest, writeBenchData } from './data.mjs';
import { freePort, median, percentile, request, startProcess, stopProcess, waitFor } from './lib/proc.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOKEN_CALLS = 50_000;
const EDITED = 10_000;
const PATCHES = Number(process.env.BENCH_STATE_PATCHES ?? 300);
const HEALTH_EVERY_MS = 5;

/** Writes the state a case starts from: `tokenCalls` token calls and `edits` edited documents. */
async function prepare(file, fixtures, { tokenCalls, edits }) {
  const { dataset } = await loadFixtureSource(fixtures);
  const instance = createInstance(undefined, dataset, DEFAULT_OPTIONS, pickSettings(DEFAULT_OPTIONS));
  const state = new StateFile(file);
  state.open(instance);
  const { fake } = instance;
  const { headers, body } = tokenRequest();
  const call = { keyId: headers['x-key'], hash: headers['x-hash'], ...JSON.parse(body) };
  for (let i = 1; i <= tokenCalls; i++) {
    fake.issueToken(call);
    if (i % 1000 === 0) state.commit();
  }
  const docs = fake.snapshot().documents.slice(0, edits);
  docs.forEach((doc, i) => {
    const item = { templateUid: String(doc.templateId), id: doc.id, title: `${doc.label} (edited)` };
    fake.batchUpdate({ organizationId: doc.organization_id, keyId: call.keyId }, [item], 'merge');
    if (i % 500 === 499) state.commit();
  });
  state.commit();
  await state.closeAsync();
}

/** One case: a fake on `file`; PATCH latencies and health waits while they run. */
async function measureCase(file, fixtures) {
  const port = await freePort();
  const child = startProcess(
    process.execPath,
    [
      join(ROOT, 'dist/start.js'),
      '--port',
      String(port),
      '--log-level',
      'warn',
      '--fixtures',
      fixtures,
      '--state-file',
      file,
    ],
    { cwd: ROOT },
  );
  try {
    await waitFor(child, port, '/__admin/health', { since: performance.now(), accept: (s) => s === 200 });
    const { headers, body } = tokenRequest();
    const token = JSON.parse(
      (await request(port, '/api/v2/auth/client_token', { method: 'POST', headers, body })).body,
    ).access_token;
    const list = await request(port, '/api/v2/documents?resultsPerPage=1', {
      headers: { 'x-access-token': token },
    });
    const [first] = JSON.parse(list.body).results;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const patch = (i) =>
      request(port, '/api/v2/documents', {
        method: 'PATCH',
        agent,
        headers: { 'x-access-token': token, 'content-type': 'application/json' },
        body: JSON.stringify([
          {
            templateUid: String(first.templateUid ?? first.templateId).replace(/^tpl-/, ''),
            id: first.id,
            title: `bench ${i}`,
          },
        ]),
      });
    for (let i = 0; i < 20; i++) await patch(i); // warm-up
    let writing = true;
    const waits = [];
    const healthAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const poller = (async () => {
      while (writing) {
        const t0 = performance.now();
        await request(port, '/__admin/health', { agent: healthAgent });
        waits.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, HEALTH_EVERY_MS));
      }
    })();
    const latencies = [];
    let failures = 0;
    for (let i = 0; i < PATCHES; i++) {
      const t0 = performance.now();
      const res = await patch(i);
      latencies.push(performance.now() - t0);
      if (res.status !== 200) failures++;
    }
    writing = false;
    await poller;
    agent.destroy();
    healthAgent.destroy();
    return {
      patchMs: { median: median(latencies), p95: percentile(latencies, 95), max: Math.max(...latencies) },
      healthWaitMs: { median: median(waits), p99: percentile(waits, 99), max: Math.max(...waits) },
      failures,
    };
  } finally {
    await stopProcess(child);
  }
}

const CASES = {
  fresh: { tokenCalls: 0, edits: 0 },
  [`after ${TOKEN_CALLS.toLocaleString('en-US')} token calls`]: { tokenCalls: TOKEN_CALLS, edits: 0 },
  [`after ${EDITED.toLocaleString('en-US')} edited documents`]: { tokenCalls: 0, edits: EDITED },
  both: { tokenCalls: TOKEN_CALLS, edits: EDITED },
};

/** Every case in one run, with its ratio to the fresh file's median PATCH. */
export async function measureStateFile(fixtures, dir, log = () => {}) {
  const cases = {};
  for (const [name, shape] of Object.entries(CASES)) {
    const file = join(dir, `state-${Object.keys(cases).length}.log`);
    log(`state file: preparing "${name}"`);
    await prepare(file, fixtures, shape);
    log(`state file: ${PATCHES} PATCHes, ${name}`);
    cases[name] = await measureCase(file, fixtures);
  }
  const fresh = cases.fresh.patchMs.median;
  for (const c of Object.values(cases)) c.ratioToFresh = c.patchMs.median / fresh;
  return { patches: PATCHES, organizationId: ORGANIZATION_ID, cases };
}

/** Rows for the report: one per case. */
export function stateFileRows(result) {
  return Object.entries(result.cases).map(([name, c]) => [
    `state file, one-document PATCH ${name}: median / p95 / max (÷ fresh); health wait p99 / max`,
    `${c.patchMs.median.toFixed(2)} / ${c.patchMs.p95.toFixed(2)} / ${c.patchMs.max.toFixed(1)} ms (${c.ratioToFresh.toFixed(2)}×); ${c.healthWaitMs.p99.toFixed(1)} / ${c.healthWaitMs.max.toFixed(1)} ms`,
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = await mkdtemp(join(tmpdir(), 'passportal-state-bench-'));
  try {
    const data = await writeBenchData({ dir, sizes: [EDITED], jsonServerSize: EDITED, seed: 42 });
    const result = await measureStateFile(data.files[EDITED], dir, (m) => process.stderr.write(`${m}\n`));
    for (const [label, value] of stateFileRows(result)) process.stdout.write(`${label}: ${value}\n`);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
