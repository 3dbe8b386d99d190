#!/usr/bin/env node
/**
 * Profiles the fake under load: starts `node --cpu-prof dist/cli.js --log-level silent` on a
 * generated fixture file, drives one request with autocannon, stops the fake and prints the top
 * self-time functions (bench/profile-top.mjs). Needs a build (`npm run build`).
 *
 *   node bench/profile.mjs [list|read|startup] [documents=10000] [seconds=8]
 *
 * PROFILE_OUT=<file.cpuprofile> keeps the profile.
 *
 * `startup` profiles only the start-up (spawn to healthy) with the default fixtures.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tokenRequest, writeBenchData } from './data.mjs';
import { measure } from './lib/load.mjs';
import { freePort, HOST, request, startProcess, stopProcess, waitFor } from './lib/proc.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const [what = 'list', sizeArg = '10000', secondsArg = '8'] = process.argv.slice(2);
const size = Number(sizeArg);
const tmp = await mkdtemp(join(tmpdir(), 'passportal-profile-'));
try {
  const data =
    what === 'startup'
      ? undefined
      : await writeBenchData({ dir: tmp, sizes: [size], jsonServerSize: size, seed: 42 });
  const port = await freePort();
  const args = [
    '--cpu-prof',
    '--cpu-prof-dir',
    tmp,
    join(ROOT, 'dist/cli.js'),
    '--port',
    String(port),
    '--log-level',
    'silent',
  ];
  if (data) args.push('--fixtures', data.files[size]);
  const since = performance.now();
  const child = startProcess(process.execPath, args, { cwd: ROOT });
  const readyMs = await waitFor(child, port, '/__admin/health', {
    since,
    accept: (s) => s === 200,
    timeoutMs: 180_000,
  });
  process.stderr.write(`healthy after ${readyMs.toFixed(0)} ms\n`);
  if (data) {
    const { headers, body } = tokenRequest();
    const token = JSON.parse(
      (await request(port, '/api/v2/auth/client_token', { method: 'POST', headers, body })).body,
    ).access_token;
    const path =
      what === 'read'
        ? `/api/v2/documents/${data.readId}`
        : '/api/v2/documents?type=asset&orderBy=label&resultsPerPage=20&pageNum=3';
    const r = await measure({
      url: `http://${HOST}:${port}${path}`,
      headers: { 'x-access-token': token },
      connections: 10,
      warmupSeconds: 0,
      durationSeconds: Number(secondsArg),
    });
    process.stderr.write(`${r.requestsPerSecond} req/s, p99 ${r.latencyMs.p99} ms, non2xx ${r.non2xx}\n`);
  }
  await stopProcess(child);
  const file = (await readdir(tmp)).find((f) => f.endsWith('.cpuprofile'));
  // PROFILE_OUT=<path> keeps the profile (for a flame graph in DevTools or speedscope).
  if (process.env.PROFILE_OUT) await copyFile(join(tmp, file), process.env.PROFILE_OUT);
  spawnSync(process.execPath, [join(ROOT, 'bench/profile-top.mjs'), join(tmp, file), '30'], {
    stdio: 'inherit',
  });
} finally {
  await rm(tmp, { recursive: true, force: true });
}
