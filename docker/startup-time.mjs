// Start-up time of the built CLI: spawns `node dist/cli.js --port N` and measures the time from
// spawn to the first 200 from /__admin/health (polled every 5 ms); prints each run and the median.
//   node docker/startup-time.mjs [runs=5] [package dir=.]   (after `npm run build`)
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

const runs = Number(process.argv[2] ?? 5);
const dir = resolve(process.argv[3] ?? '.');

const freePort = () =>
  new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });

async function once() {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ['dist/cli.js', '--port', String(port), '--log-level', 'warn'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
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
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const times = [];
for (let i = 0; i < runs; i++) {
  const ms = await once();
  times.push(ms);
  console.log(`run ${i + 1}: ${ms.toFixed(0)} ms`);
}
times.sort((a, b) => a - b);
console.log(`median of ${runs}: ${times[Math.floor(runs / 2)].toFixed(0)} ms (node ${process.version})`);
