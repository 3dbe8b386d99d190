/** Child processes and plain HTTP calls for the benchmark (no keep-alive, nothing left open). */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';

export const HOST = '127.0.0.1';

/** A port that was free a moment ago (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * One HTTP request; resolves `{status, headers, body}` or `{status: 0, error}` when it cannot
 * connect. A new connection each time unless an `agent` (keep-alive) is given.
 */
export function request(port, path, { method = 'GET', headers = {}, body, agent = false } = {}) {
  return new Promise((resolve) => {
    const req = http.request({ host: HOST, port, path, method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', (error) => resolve({ status: 0, error }));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A child process whose stderr is kept (last 4 KB) for error messages; stdout is discarded. */
export function startProcess(command, args, { cwd, keepStdout = false } = {}) {
  const child = spawn(command, args, { cwd, stdio: ['ignore', keepStdout ? 'pipe' : 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (s) => {
    stderr = (stderr + s).slice(-4096);
    child.emit('stderr-line', s);
  });
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.stderrText = () => stderr;
  return child;
}

/**
 * Polls `path` every `intervalMs` until `accept(status)`; resolves the time from `since` in ms.
 * Rejects when the child exits or after `timeoutMs`.
 */
export async function waitFor(
  child,
  port,
  path,
  { since, accept, headers, intervalMs = 2, timeoutMs = 60_000 },
) {
  let exited = false;
  child.exited.then(() => {
    exited = true;
  });
  for (;;) {
    const res = await request(port, path, { headers });
    if (res.status !== 0 && accept(res.status)) return performance.now() - since;
    if (exited) throw new Error(`process exited before answering: ${child.stderrText()}`);
    if (performance.now() - since > timeoutMs) throw new Error(`no answer on ${path} after ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/** SIGTERM, then SIGKILL after 3 s; resolves when the process is gone. */
export async function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await child.exited;
  clearTimeout(timer);
}

/** VmRSS and VmHWM (peak) of a process in bytes, from /proc/<pid>/status. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') * 1024, peakRss: kb('VmHWM') * 1024 };
}

/**
 * CPU time (user + system, all threads) a process has used so far, in ms, from /proc/<pid>/stat
 * (clock ticks, assumed 100 per second as on every common Linux build).
 */
export function cpuTimeMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const percentile = (values, p) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** The bench's static Express 5 app (servers/express-static.mjs) on a free port, serving `routesFile`. */
export async function startStaticExpress(routesFile) {
  const port = await freePort();
  const script = new URL('../servers/express-static.mjs', import.meta.url).pathname;
  const child = startProcess(process.execPath, [script, String(port), routesFile]);
  await waitFor(child, port, '/', { since: performance.now(), accept: () => true });
  return { child, port };
}
