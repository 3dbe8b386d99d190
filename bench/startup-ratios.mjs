#!/usr/bin/env node
/**
 * Start-up against bare Node, side by side: each round spawns `node -e 0`, then each of the three
 * ways users start the fake, and times spawn to the first 200 from /__admin/health (polled every
 * 2 ms). Reports the median of each and its ratio to bare Node's median (target: at most 2).
 *   node bench/startup-ratios.mjs [rounds=11] [other package root ...]   (after `npm run build`)
 * Each other root (a copy of the package with its own dist/, docker/ and bench/, e.g. an older
 * build) is measured in the same rounds, for a before and after under the same load.
 * Also run by `npm run bench` (BENCH_STARTUP_ROUNDS).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The three starts, as users make them. */
export const STARTS = {
  'npm start (node dist/start.js)': (port, root = ROOT) => [
    join(root, 'dist/start.js'),
    '--port',
    String(port),
    '--log-level',
    'warn',
  ],
  'image entry point (docker/entrypoint.mjs)': (port, root = ROOT) => [
    join(root, 'docker/entrypoint.mjs'),
    '--port',
    String(port),
    '--log-level',
    'warn',
  ],
  'createMockServer() in a fresh process': (port, root = ROOT) => [
    join(root, 'bench/start-in-process.mjs'),
    String(port),
  ],
};

const freePort = () =>
  new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function bareNode() {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((done) => child.once('exit', done));
  return performance.now() - t0;
}

async function toHealthy(args, root = ROOT) {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args(port, root), {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, FIXTURES: '' },
  });
  const exited = new Promise((done) => child.once('exit', done));
  try {
    for (;;) {
      if (performance.now() - t0 > 30_000) throw new Error('no healthy answer within 30 s');
      const ok = await fetch(`http://127.0.0.1:${port}/__admin/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** Medians and ratios over `rounds` interleaved rounds. */
export async function measureStartupRatios(rounds = 11, log = () => {}, otherRoots = []) {
  const bare = [];
  const starts = Object.entries(STARTS).flatMap(([name, args]) => [
    [name, args, ROOT],
    ...otherRoots.map((root) => [`${name} [${root}]`, args, root]),
  ]);
  const runs = Object.fromEntries(starts.map(([name]) => [name, []]));
  for (let round = 1; round <= rounds; round++) {
    log(`start-up ratios: round ${round} of ${rounds}`);
    bare.push(await bareNode());
    for (const [name, args, root] of starts) runs[name].push(await toHealthy(args, root));
  }
  const bareMs = median(bare);
  return {
    node: process.version,
    rounds,
    bareNodeMs: bareMs,
    starts: Object.fromEntries(
      Object.entries(runs).map(([name, ms]) => [
        name,
        { medianMs: median(ms), ratio: median(ms) / bareMs, runsMs: ms },
      ]),
    ),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await measureStartupRatios(Number(process.argv[2] ?? 11), undefined, process.argv.slice(3));
  console.log(
    `node ${result.node}, ${result.rounds} rounds; node -e 0: ${result.bareNodeMs.toFixed(0)} ms (median)`,
  );
  for (const [name, { medianMs, ratio }] of Object.entries(result.starts)) {
    console.log(`${name.padEnd(70)} ${medianMs.toFixed(0).padStart(5)} ms  ${ratio.toFixed(2)}x bare Node`);
  }
}
