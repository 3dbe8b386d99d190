/** Load generation with autocannon's programmatic API: a warm-up run, then the measured run. */
import autocannon from 'autocannon';
import { cpuTimeMs } from './proc.mjs';

function run(opts) {
  return new Promise((resolve, reject) => {
    autocannon(opts, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * Warms up for `warmupSeconds`, then measures for `durationSeconds` with `connections`
 * connections (no pipelining). Returns requests per second, latency percentiles (ms) and every
 * kind of failure autocannon counts. With the server's `pid`, also the server's CPU time per
 * request (µs, all its threads): less sensitive than requests per second to other work on the
 * machine, since time the server waits for a CPU is not counted.
 */
export async function measure({
  url,
  headers,
  method = 'GET',
  body,
  connections,
  warmupSeconds,
  durationSeconds,
  pid,
}) {
  const base = { url, headers, method, body, connections, pipelining: 1, timeout: 10 };
  if (warmupSeconds > 0) await run({ ...base, duration: warmupSeconds });
  const cpuBefore = pid ? cpuTimeMs(pid) : 0;
  const r = await run({ ...base, duration: durationSeconds });
  const cpuMs = pid ? cpuTimeMs(pid) - cpuBefore : Number.NaN;
  return {
    requestsPerSecond: r.requests.average,
    serverCpuUsPerRequest: r.requests.total > 0 ? (1000 * cpuMs) / r.requests.total : Number.NaN,
    requestsTotal: r.requests.total,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    bytesPerResponse: r.requests.total > 0 ? Math.round(r.throughput.total / r.requests.total) : 0,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
  };
}
