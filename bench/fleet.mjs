#!/usr/bin/env node
/**
 * What the fleet's hop costs (docs/fleet.md): two replicas (`node dist/start.js` with
 * --fleet-peers, each in its own process), a session owned by replica 1, and one document read on
 * its session URL, measured with autocannon in one run:
 *   direct     sent to replica 1, its owner
 *   forwarded  sent to replica 0, which forwards it once to replica 1 and relays the answer
 * Both are checked to answer the same document first. Ratios: forwarded ÷ direct.
 *   node bench/fleet.mjs          (after `npm run build`; also run by `npm run bench`)
 */
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tokenRequest } from './data.mjs';
import { measure } from './lib/load.mjs';
import { freePort, HOST, request, startProcess, stopProcess, waitFor } from './lib/proc.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

async function startReplica(ordinal, peers, secret) {
  const port = peers.get(ordinal);
  const child = startProcess(
    process.execPath,
    [
      join(ROOT, 'dist/start.js'),
      '--port',
      String(port),
      '--log-level',
      'silent',
      '--fleet-peers',
      [...peers].map(([n, p]) => `${n}=http://${HOST}:${p}`).join(','),
      '--fleet-ordinal',
      String(ordinal),
      '--fleet-secret',
      secret,
    ],
    { cwd: ROOT },
  );
  await waitFor(child, port, '/__admin/health?partial=1', {
    since: performance.now(),
    accept: (s) => s === 200,
  });
  return child;
}

async function json(port, path, options) {
  const res = await request(port, path, options);
  if (res.status < 200 || res.status > 299) throw new Error(`${path} answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body.toString('utf8'));
}

/** Direct and forwarded reads of one session document, and their ratios. */
export async function measureFleet({
  durationSeconds = 6,
  warmupSeconds = 2,
  connections = 10,
  log = () => {},
} = {}) {
  const peers = new Map([
    [0, await freePort()],
    [1, await freePort()],
  ]);
  const secret = randomBytes(32).toString('hex');
  const replicas = [];
  try {
    for (const ordinal of peers.keys()) replicas.push(await startReplica(ordinal, peers, secret));
    const owner = peers.get(1);
    const other = peers.get(0);
    const session = await json(owner, '/__admin/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    if (!/^f1-/.test(session.id)) throw new Error(`replica 1 made session ${session.id}, not one of its own`);
    const base = `/sessions/${session.id}`;
    const { headers: tokenHeaders, body } = tokenRequest();
    const { access_token: token } = await json(owner, `${base}/api/v2/auth/client_token`, {
      method: 'POST',
      headers: tokenHeaders,
      body,
    });
    const headers = { 'x-access-token': token };
    const list = await json(owner, `${base}/api/v2/documents?resultsPerPage=1`, { headers });
    const path = `${base}/api/v2/documents/${list.results[0].id}`;
    const direct = await request(owner, path, { headers });
    const forwarded = await request(other, path, { headers });
    // The same document either way (the answers differ only in per-request fields such as apiRequestUid).
    const idOf = (res) => (res.status === 200 ? JSON.parse(res.body.toString('utf8')).id : undefined);
    if (idOf(direct) === undefined || idOf(direct) !== idOf(forwarded))
      throw new Error(`the forwarded read (${forwarded.status}) is not the direct one (${direct.status})`);
    const cases = {};
    for (const [name, port] of [
      ['direct', owner],
      ['forwarded', other],
    ]) {
      log(`fleet: ${name} session read (${warmupSeconds} s warm-up, ${durationSeconds} s measured)`);
      cases[name] = await measure({
        url: `http://${HOST}:${port}${path}`,
        headers,
        connections,
        warmupSeconds,
        durationSeconds,
      });
    }
    return {
      path: '/sessions/{id}/api/v2/documents/{id}',
      connections,
      cases,
      latencyP50Ratio: cases.forwarded.latencyMs.p50 / cases.direct.latencyMs.p50,
      throughputRatio: cases.forwarded.requestsPerSecond / cases.direct.requestsPerSecond,
    };
  } finally {
    await Promise.all(replicas.map(stopProcess));
  }
}

/** Rows for the report. */
export function fleetRows(result) {
  const { direct, forwarded } = result.cases;
  return [
    [
      'fleet: session read sent to its owner (direct): requests/s, p50 / p99',
      `${direct.requestsPerSecond.toFixed(0)}/s, ${direct.latencyMs.p50} / ${direct.latencyMs.p99} ms`,
    ],
    [
      'fleet: the same read through another replica (forwarded once): requests/s, p50 / p99',
      `${forwarded.requestsPerSecond.toFixed(0)}/s, ${forwarded.latencyMs.p50} / ${forwarded.latencyMs.p99} ms`,
    ],
    [
      'fleet: forwarded ÷ direct, p50 latency; requests/s',
      `${result.latencyP50Ratio.toFixed(2)}×; ${result.throughputRatio.toFixed(2)}×`,
    ],
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = (name, fallback) => Number(process.env[name] ?? fallback);
  const result = await measureFleet({
    durationSeconds: env('BENCH_DURATION', 6),
    warmupSeconds: env('BENCH_WARMUP', 2),
    log: (m) => process.stderr.write(`${m}\n`),
  });
  for (const [label, value] of fleetRows(result)) process.stdout.write(`${label}: ${value}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
