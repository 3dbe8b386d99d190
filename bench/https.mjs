#!/usr/bin/env node
/**
 * HTTPS beside HTTP, on the built fake (`node dist/start.js --https-port`), one server process
 * measured from here:
 * - keep-alive load: the same read (GET one document with a token) over HTTP and over HTTPS, a
 *   few connections each in a closed loop; the server's CPU time per request, and the ratio
 *   HTTPS / HTTP;
 * - the TLS handshake: requests on a new connection each, one after another; the server's CPU
 *   per connection over HTTPS less over HTTP is what a handshake costs it, and the client's
 *   median time per request shows what a client that does not keep connections alive waits;
 * - start-up: spawn to the first healthy answer with HTTPS on (the CA and server certificate
 *   already in --tls-dir, as on every start after the first) against without, interleaved
 *   rounds, medians; target: at most 1.2x.
 *   node bench/https.mjs            (after `npm run build`; also part of `npm run bench`)
 * Environment: BENCH_DURATION (seconds per load run, default 6), BENCH_HANDSHAKES (default 300),
 * BENCH_STARTUP_ROUNDS (default 11).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tokenRequest } from './data.mjs';
import {
  cpuTimeMs,
  freePort,
  HOST,
  median,
  request,
  startProcess,
  stopProcess,
  waitFor,
} from './lib/proc.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const START = join(ROOT, 'dist/start.js');
const READ_PATH = '/api/v2/documents/101001';
const CONNECTIONS = 4;

async function startFake(args) {
  const port = await freePort();
  const child = startProcess(
    process.execPath,
    [START, '--port', String(port), '--log-level', 'warn', ...args],
    {
      cwd: ROOT,
    },
  );
  const since = performance.now();
  const ms = await waitFor(child, port, '/__admin/health', { since, accept: (s) => s === 200 });
  return { child, port, startMs: ms };
}

/** One request on `agent` (keep-alive) or a new connection (`agent: false`); resolves with the status. */
function get(lib, options) {
  return new Promise((resolve, reject) => {
    const req = lib.request({ host: HOST, ...options }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `connections` closed loops for `seconds`; resolves with the requests made. */
async function load(lib, options, seconds) {
  const agent = new lib.Agent({
    keepAlive: true,
    maxSockets: CONNECTIONS,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  const until = performance.now() + seconds * 1000;
  let count = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const status = await get(lib, { ...options, agent });
        if (status !== 200) throw new Error(`status ${status}`);
        count++;
      }
    }),
  );
  agent.destroy();
  return count;
}

async function measured(pid, work) {
  const cpu = cpuTimeMs(pid);
  const t0 = performance.now();
  const count = await work();
  return { count, cpuMs: cpuTimeMs(pid) - cpu, wallMs: performance.now() - t0 };
}

async function handshakes(lib, options, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const status = await get(lib, { ...options, agent: false });
    if (status !== 200) throw new Error(`status ${status}`);
    times.push(performance.now() - t0);
  }
  return { count: n, medianMs: median(times) };
}

export async function measureHttps({
  durationSeconds = Number(process.env.BENCH_DURATION ?? 6),
  handshakeCount = Number(process.env.BENCH_HANDSHAKES ?? 300),
  startupRounds = Number(process.env.BENCH_STARTUP_ROUNDS ?? 11),
  log = () => {},
} = {}) {
  const tlsDir = await mkdtemp(join(tmpdir(), 'passportal-bench-tls-'));
  try {
    // The first start makes the CA and server certificate; every later one reads them.
    log('https: first start (making the CA)');
    const first = await startFake(['--https-port', '0', '--tls-dir', tlsDir]);
    const firstStartMs = first.startMs;
    await stopProcess(first.child);

    const httpsPort = await freePort();
    const fake = await startFake(['--https-port', String(httpsPort), '--tls-dir', tlsDir]);
    try {
      const ca = (await request(fake.port, '/__admin/tls/ca.pem')).body;
      const token = JSON.parse(
        (await request(fake.port, '/api/v2/auth/client_token', { method: 'POST', ...tokenRequest() })).body,
      ).access_token;
      const plain = { port: fake.port, path: READ_PATH, headers: { 'x-access-token': token } };
      const secure = { ...plain, port: httpsPort, ca, servername: 'localhost' };
      const pid = fake.child.pid;
      log(`https: keep-alive load, ${durationSeconds} s each`);
      await load(http, plain, 1);
      await load(https, secure, 1);
      const httpLoad = await measured(pid, () => load(http, plain, durationSeconds));
      const httpsLoad = await measured(pid, () => load(https, secure, durationSeconds));
      log(`https: ${handshakeCount} requests on new connections each`);
      const httpNew = await measured(pid, async () => (await handshakes(http, plain, handshakeCount)).count);
      const httpNewTimes = await handshakes(http, plain, Math.min(100, handshakeCount));
      const httpsNew = await measured(
        pid,
        async () => (await handshakes(https, secure, handshakeCount)).count,
      );
      const httpsNewTimes = await handshakes(https, secure, Math.min(100, handshakeCount));
      const perRequest = (m) => (1000 * m.cpuMs) / m.count;

      log(`https: start-up, ${startupRounds} rounds`);
      const without = [];
      const withTls = [];
      for (let round = 0; round < startupRounds; round++) {
        const a = await startFake([]);
        without.push(a.startMs);
        await stopProcess(a.child);
        const b = await startFake(['--https-port', '0', '--tls-dir', tlsDir]);
        withTls.push(b.startMs);
        await stopProcess(b.child);
      }
      const result = {
        keepAlive: {
          httpRequestsPerSecond: (1000 * httpLoad.count) / httpLoad.wallMs,
          httpsRequestsPerSecond: (1000 * httpsLoad.count) / httpsLoad.wallMs,
          httpCpuUsPerRequest: perRequest(httpLoad),
          httpsCpuUsPerRequest: perRequest(httpsLoad),
          cpuRatio: perRequest(httpsLoad) / perRequest(httpLoad),
        },
        newConnection: {
          httpCpuUsPerRequest: perRequest(httpNew),
          httpsCpuUsPerRequest: perRequest(httpsNew),
          handshakeServerCpuMs: (perRequest(httpsNew) - perRequest(httpNew)) / 1000,
          httpClientMedianMs: httpNewTimes.medianMs,
          httpsClientMedianMs: httpsNewTimes.medianMs,
        },
        startup: {
          firstStartWithCaGenerationMs: firstStartMs,
          withoutHttpsMedianMs: median(without),
          withHttpsMedianMs: median(withTls),
          ratio: median(withTls) / median(without),
          target: 1.2,
          rounds: startupRounds,
        },
      };
      result.startup.met = result.startup.ratio <= result.startup.target;
      return result;
    } finally {
      await stopProcess(fake.child);
    }
  } finally {
    await rm(tlsDir, { recursive: true, force: true });
  }
}

export function printHttps(r) {
  const f = (n, d = 0) => n.toFixed(d);
  console.log('\nHTTPS beside HTTP (GET one document, keep-alive, 4 connections)');
  console.log(
    `  HTTP  ${f(r.keepAlive.httpRequestsPerSecond)} req/s, ${f(r.keepAlive.httpCpuUsPerRequest)} µs CPU/request\n` +
      `  HTTPS ${f(r.keepAlive.httpsRequestsPerSecond)} req/s, ${f(r.keepAlive.httpsCpuUsPerRequest)} µs CPU/request` +
      `  (CPU ratio HTTPS/HTTP ${f(r.keepAlive.cpuRatio, 2)}x)`,
  );
  console.log(
    `  TLS handshake: ${f(r.newConnection.handshakeServerCpuMs, 2)} ms server CPU per new connection; ` +
      `a request on a new connection ${f(r.newConnection.httpsClientMedianMs, 2)} ms over HTTPS, ` +
      `${f(r.newConnection.httpClientMedianMs, 2)} ms over HTTP (client median)`,
  );
  console.log(
    `  start-up to healthy: ${f(r.startup.withHttpsMedianMs)} ms with HTTPS (existing CA), ` +
      `${f(r.startup.withoutHttpsMedianMs)} ms without: ${f(r.startup.ratio, 2)}x ` +
      `(target <= ${r.startup.target}x: ${r.startup.met ? 'met' : 'MISSED'}); ` +
      `first start, making the CA: ${f(r.startup.firstStartWithCaGenerationMs)} ms`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measureHttps({ log: (m) => process.stderr.write(`${m}\n`) });
  printHttps(result);
}
