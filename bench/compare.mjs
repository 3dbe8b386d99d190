#!/usr/bin/env node
/**
 * A/B throughput of the fake from two (or more) package roots, e.g. this checkout and a scratch
 * copy with a change to try: each root's `dist/cli.js` is started in turn (`--log-level silent`,
 * the bench's 10,000-document fixture) and measured on list and read, `rounds` times
 * alternately, so drifting machine load hits every root alike. The minimal Express app of the
 * bench is measured in every round too, as the reference.
 *
 *   node bench/compare.mjs <root> [<root> ...] [--rounds 2] [--seconds 5] [--args "--flag value"]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tokenRequest, writeBenchData } from './data.mjs';
import { measure } from './lib/load.mjs';
import {
  freePort,
  HOST,
  median,
  request,
  startProcess,
  startStaticExpress,
  stopProcess,
  waitFor,
} from './lib/proc.mjs';

const LIST = '/api/v2/documents?type=asset&orderBy=label&resultsPerPage=20&pageNum=3';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const [value] = argv.splice(i, 2).slice(1);
  return value;
};
const rounds = Number(option('--rounds', '2'));
const seconds = Number(option('--seconds', '5'));
const extraArgs = option('--args', '').split(' ').filter(Boolean);
const roots = argv.map((r) => resolve(r));
if (roots.length === 0) {
  process.stderr.write('usage: node bench/compare.mjs <root> [<root> ...] [--rounds n] [--seconds s]\n');
  process.exit(2);
}

const tmp = await mkdtemp(join(tmpdir(), 'passportal-compare-'));
const results = new Map(
  [...roots, 'express'].map((r) => [r, { list: [], read: [], listCpu: [], readCpu: [] }]),
);
try {
  const data = await writeBenchData({ dir: tmp, sizes: [10_000], jsonServerSize: 10_000, seed: 42 });
  const paths = { list: LIST, read: `/api/v2/documents/${data.readId}` };
  const run = async (port, pid, headers, into) => {
    for (const [op, path] of Object.entries(paths)) {
      const r = await measure({
        url: `http://${HOST}:${port}${path}`,
        headers,
        connections: 10,
        warmupSeconds: 1,
        durationSeconds: seconds,
        pid,
      });
      if (r.non2xx + r.errors > 0) throw new Error(`${op}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      into[op].push(r.requestsPerSecond);
      into[`${op}Cpu`].push(r.serverCpuUsPerRequest);
    }
  };
  let routesFile;
  for (let round = 0; round < rounds; round++) {
    for (const root of roots) {
      const port = await freePort();
      const args = [join(root, 'dist/cli.js'), '--port', String(port), '--log-level', 'silent'];
      const child = startProcess(process.execPath, [...args, '--fixtures', data.files[10_000], ...extraArgs]);
      await waitFor(child, port, '/__admin/health', { since: performance.now(), accept: (s) => s === 200 });
      const { headers, body } = tokenRequest();
      const token = JSON.parse(
        (await request(port, '/api/v2/auth/client_token', { method: 'POST', headers, body })).body,
      ).access_token;
      const auth = { 'x-access-token': token };
      if (!routesFile) {
        routesFile = join(tmp, 'routes.json');
        const bodies = {};
        bodies['/api/v2/documents'] = (await request(port, paths.list, { headers: auth })).body.toString();
        bodies[paths.read] = (await request(port, paths.read, { headers: auth })).body.toString();
        await writeFile(routesFile, JSON.stringify(bodies));
      }
      await run(port, child.pid, auth, results.get(root));
      await stopProcess(child);
    }
    const { child, port } = await startStaticExpress(routesFile);
    await run(port, child.pid, {}, results.get('express'));
    await stopProcess(child);
  }
  const express = results.get('express');
  for (const [root, r] of results) {
    const list = median(r.list);
    const read = median(r.read);
    const vs = (a, b) => (a / b).toFixed(2);
    const cpu = (op) => median(r[`${op}Cpu`]);
    const cpuVs = (op) => vs(median(express[`${op}Cpu`]), cpu(op));
    process.stdout.write(
      `${root}: list ${list.toFixed(0)} req/s (${vs(list, median(express.list))}× Express), ` +
        `${cpu('list').toFixed(0)} µs CPU/req (Express ÷ this ${cpuVs('list')}); ` +
        `read ${read.toFixed(0)} req/s (${vs(read, median(express.read))}× Express), ` +
        `${cpu('read').toFixed(0)} µs CPU/req (Express ÷ this ${cpuVs('read')})  ` +
        `[runs: ${r.list.map((x) => x.toFixed(0)).join(', ')} / ${r.read.map((x) => x.toFixed(0)).join(', ')}]\n`,
    );
  }
} finally {
  await rm(tmp, { recursive: true, force: true });
}
