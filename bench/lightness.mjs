#!/usr/bin/env node
/**
 * What the fake costs beyond its floor, each row measured beside its reference in one run:
 *
 * - list, read and PATCH: the fake's CPU per request (all threads, /proc) ÷ a static Express 5
 *   app answering the same bytes, over `rounds` interleaved rounds (median of each);
 * - the journal's share of list CPU: the same list with `--journal-limit 0` (nothing kept);
 * - peak RSS (VmHWM) under `rssSeconds` of list load on the default fixtures, and Express's;
 * - spawn to healthy ÷ `node -e 0` (`startup-ratios.mjs`);
 * - a second `createMockServer()` in one process: time and retained heap (`inprocess.mjs second`);
 * - the image's size and `docker run` to healthy, when a Docker-API engine answers
 *   (`DOCKER_HOST`); skipped with a note otherwise.
 *
 *   node bench/lightness.mjs [--root DIR] [--before DIR]   (after `npm run build`; also run by `npm run bench`)
 *   node bench/lightness.mjs --image-only      (the image rows alone)
 *
 * `--before DIR`: another package root (a build of an earlier commit, with its node_modules)
 * measured in the same interleaved rounds (CPU, RSS, start-up, second instance), so a change's
 * gain is a ratio of one run; the table gets a column for it. The image rows are the root's only.
 *   env: BENCH_LIGHT_ROUNDS (2), BENCH_DURATION (6), BENCH_WARMUP (2), BENCH_RSS_SECONDS (60),
 *        BENCH_STARTUP_ROUNDS (11), BENCH_IMAGE=0 to skip the image rows, BENCH_IMAGE_RUNS (3),
 *        BENCH_IMAGE_COMPARE=<tag>: an image built before (e.g. from an older commit) measured
 *        the same way, its runs interleaved with the new image's
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { tokenRequest, writeBenchData } from './data.mjs';
import { measure } from './lib/load.mjs';
import {
  freePort,
  HOST,
  median,
  memoryOf,
  request,
  startProcess,
  startStaticExpress,
  stopProcess,
  waitFor,
} from './lib/proc.mjs';
import { measureStartupRatios } from './startup-ratios.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const LIST = '/api/v2/documents?type=asset&orderBy=label&resultsPerPage=20&pageNum=3';
const PATCH_BODY = JSON.stringify({
  notes: { name: 'Notes', description: 'bench', value: { type: 'text', text: 'patched by the bench' } },
});
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const run = promisify(execFile);

const log = (message) => process.stderr.write(`${message}\n`);

async function startFake(root, args) {
  const port = await freePort();
  const child = startProcess(process.execPath, [
    join(root, 'dist/start.js'),
    '--port',
    String(port),
    '--log-level',
    'silent',
    ...args,
  ]);
  await waitFor(child, port, '/__admin/health', {
    since: performance.now(),
    accept: (s) => s === 200,
    timeoutMs: 120_000,
  });
  const { headers, body } = tokenRequest();
  const res = await request(port, '/api/v2/auth/client_token', { method: 'POST', headers, body });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}: ${res.body}`);
  const token = JSON.parse(res.body.toString('utf8')).access_token;
  return { child, port, token };
}

async function load(server, operation, paths, headers, opts, extra = {}) {
  const r = await measure({
    url: `http://${HOST}:${server.port}${paths[operation]}`,
    headers: { ...headers, ...(operation === 'patch' ? { 'content-type': 'application/json' } : {}) },
    ...(operation === 'patch' ? { method: 'PATCH', body: PATCH_BODY } : {}),
    connections: 10,
    warmupSeconds: opts.warmupSeconds,
    durationSeconds: opts.durationSeconds,
    pid: server.child.pid,
    ...extra,
  });
  if (r.non2xx + r.errors + r.timeouts > 0) {
    throw new Error(`${operation}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
  }
  return r;
}

/**
 * CPU per request of the fake (journal on and off) from each root and of static Express,
 * interleaved rounds; by root label.
 */
async function cpuRows(roots, data, tmp, opts) {
  const paths = {
    list: LIST,
    read: `/api/v2/documents/${data.readId}`,
    patch: `/api/v2/documents/${data.readId}`,
  };
  const cpu = { express: {} };
  for (const label of Object.keys(roots)) cpu[label] = { fake: {}, fakeNoJournal: {} };
  const push = (into, op, r) => {
    into[op] ??= [];
    into[op].push(r.serverCpuUsPerRequest);
  };
  let routesFile;
  for (let round = 1; round <= opts.rounds; round++) {
    log(`lightness: CPU round ${round} of ${opts.rounds}`);
    for (const [label, root] of Object.entries(roots)) {
      const fake = await startFake(root, ['--fixtures', data.files[10_000]]);
      try {
        const headers = { 'x-access-token': fake.token };
        if (!routesFile) routesFile = await staticRoutes(fake, paths, headers, tmp);
        for (const op of ['list', 'read', 'patch'])
          push(cpu[label].fake, op, await load(fake, op, paths, headers, opts));
      } finally {
        await stopProcess(fake.child);
      }
      const off = await startFake(root, ['--fixtures', data.files[10_000], '--journal-limit', '0']);
      try {
        push(
          cpu[label].fakeNoJournal,
          'list',
          await load(off, 'list', paths, { 'x-access-token': off.token }, opts),
        );
      } finally {
        await stopProcess(off.child);
      }
    }
    const ex = await startStaticExpress(routesFile);
    try {
      for (const op of ['list', 'read', 'patch']) push(cpu.express, op, await load(ex, op, paths, {}, opts));
    } finally {
      await stopProcess(ex.child);
    }
  }
  const med = (into) => Object.fromEntries(Object.entries(into).map(([op, v]) => [op, median(v)]));
  const byRoot = Object.fromEntries(
    Object.keys(roots).map((label) => [
      label,
      { fakeUs: med(cpu[label].fake), fakeNoJournalUs: med(cpu[label].fakeNoJournal) },
    ]),
  );
  return { rounds: opts.rounds, expressUs: med(cpu.express), ...byRoot, runs: cpu };
}

/** The static Express app's routes: the bytes the fake answered on each benchmarked path. */
async function staticRoutes(fake, paths, headers, tmp) {
  const bodies = {};
  for (const op of ['list', 'read', 'patch']) {
    const res = await request(fake.port, paths[op], {
      method: op === 'patch' ? 'PATCH' : 'GET',
      headers: { ...headers, 'content-type': 'application/json' },
      body: op === 'patch' ? PATCH_BODY : undefined,
    });
    if (res.status !== 200) throw new Error(`${op} answered ${res.status}: ${res.body}`);
    const key = op === 'list' ? '/api/v2/documents' : op === 'patch' ? `PATCH ${paths[op]}` : paths[op];
    bodies[key] = res.body.toString('utf8');
  }
  const file = join(tmp, 'lightness-routes.json');
  await writeFile(file, JSON.stringify(bodies));
  return file;
}

/** Peak RSS over `seconds` of list load: the fake from each root on its default fixtures, then static Express. */
async function rssRows(roots, tmp, opts) {
  const out = { seconds: opts.rssSeconds };
  let listBody;
  for (const [label, root] of Object.entries(roots)) {
    log(`lightness: RSS under ${opts.rssSeconds} s of list load (default fixtures), ${label}`);
    const fake = await startFake(root, []);
    try {
      const headers = { 'x-access-token': fake.token };
      const res = await request(fake.port, LIST, { headers });
      if (res.status !== 200) throw new Error(`list on the default fixtures answered ${res.status}`);
      listBody ??= res.body.toString('utf8');
      const atStart = memoryOf(fake.child.pid);
      await load(fake, 'list', { list: LIST }, headers, {
        warmupSeconds: 0,
        durationSeconds: opts.rssSeconds,
      });
      out[label] = { atStart, ...memoryOf(fake.child.pid) };
    } finally {
      await stopProcess(fake.child);
    }
  }
  const routesFile = join(tmp, 'lightness-rss-routes.json');
  await writeFile(routesFile, JSON.stringify({ '/api/v2/documents': listBody }));
  const ex = await startStaticExpress(routesFile);
  try {
    await load(ex, 'list', { list: LIST }, {}, { warmupSeconds: 0, durationSeconds: opts.rssSeconds });
    out.express = memoryOf(ex.child.pid);
  } finally {
    await stopProcess(ex.child);
  }
  return out;
}

/** A second (and third) createMockServer() in one process, in a child of its own. */
async function secondInstance(root) {
  log(`lightness: a second createMockServer() in one process (${root})`);
  const { stdout } = await run(process.execPath, [
    '--expose-gc',
    join(BENCH, 'inprocess.mjs'),
    'second',
    // What `import 'passportal-docs-fake'` loads: the package's main entry.
    join(root, JSON.parse(await readFile(join(root, 'package.json'), 'utf8')).main),
    '9',
  ]);
  return JSON.parse(stdout);
}

const docker = (args, opts = {}) => run('docker', args, { maxBuffer: 64 << 20, ...opts });

/** `docker run` of an image to the first 200 from /__admin/health and to the health check's healthy. */
async function runToHealthy(tag, name) {
  const since = performance.now();
  await docker(['run', '-d', '--name', name, '-p', `${HOST}::4010`, tag]);
  try {
    let answeredMs;
    let hostPort;
    for (;;) {
      const elapsed = performance.now() - since;
      if (elapsed > 60_000) throw new Error('the container was not healthy within 60 s');
      if (answeredMs === undefined) {
        hostPort ??= (await docker(['port', name, '4010']).catch(() => ({ stdout: '' }))).stdout
          .split('\n')[0]
          ?.trim();
        if (hostPort) {
          const ok = await fetch(`http://${hostPort}/__admin/health`).then(
            (r) => r.ok,
            () => false,
          );
          if (ok) answeredMs = performance.now() - since;
        }
      }
      const status = (await docker(['inspect', '-f', '{{.State.Health.Status}}', name])).stdout.trim();
      if (status === 'healthy') return { answeredMs, healthyMs: performance.now() - since };
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await docker(['rm', '-f', name]).catch(() => {});
  }
}

const summary = (runs) => ({
  answeredMs: median(runs.map((r) => r.answeredMs ?? Number.NaN)),
  healthyMs: median(runs.map((r) => r.healthyMs)),
  runs,
});

/**
 * Image size and `docker run` to healthy; undefined (with the reason) when no engine answers.
 * With `opts.imageCompare` (a tag), that image is measured too, each of its runs right after one
 * of the new image's, so both meet the same machine load.
 */
export async function imageRows(root, opts) {
  if (!opts.image) return { skipped: 'BENCH_IMAGE=0' };
  try {
    await docker(['info', '--format', '{{.ServerVersion}}'], { timeout: 20_000 });
  } catch {
    return { skipped: `no Docker-API engine answers (DOCKER_HOST=${process.env.DOCKER_HOST ?? 'unset'})` };
  }
  const tag = 'passportal-docs-fake:bench';
  log('lightness: docker build (as the cache stands)');
  const t0 = performance.now();
  await docker(['build', '-q', '-t', tag, root], { timeout: 1_800_000 });
  const buildMs = performance.now() - t0;
  const sizeOf = async (image) =>
    Number((await docker(['image', 'inspect', '-f', '{{.Size}}', image])).stdout.trim());
  const size = await sizeOf(tag);
  const other = opts.imageCompare;
  const compareSize = other ? await sizeOf(other) : undefined;
  const runs = [];
  const compareRuns = [];
  for (let i = 0; i < opts.imageRuns; i++) {
    log(`lightness: docker run to healthy, ${i + 1} of ${opts.imageRuns}${other ? ` (and ${other})` : ''}`);
    runs.push(await runToHealthy(tag, `passportal-bench-${process.pid}-${i}`));
    if (other) compareRuns.push(await runToHealthy(other, `passportal-bench-${process.pid}-${i}-compare`));
  }
  return {
    tag,
    buildMs,
    sizeBytes: size,
    ...summary(runs),
    ...(other && { compare: { tag: other, sizeBytes: compareSize, ...summary(compareRuns) } }),
  };
}

export async function measureLightness(root, options = {}) {
  const opts = {
    rounds: env('BENCH_LIGHT_ROUNDS', 2),
    warmupSeconds: env('BENCH_WARMUP', 2),
    durationSeconds: env('BENCH_DURATION', 6),
    rssSeconds: env('BENCH_RSS_SECONDS', 60),
    startupRounds: env('BENCH_STARTUP_ROUNDS', 11),
    image: process.env.BENCH_IMAGE !== '0',
    imageRuns: env('BENCH_IMAGE_RUNS', 3),
    imageCompare: process.env.BENCH_IMAGE_COMPARE || undefined,
    ...options,
  };
  const tmp = await mkdtemp(join(tmpdir(), 'passportal-lightness-'));
  try {
    const data = await writeBenchData({ dir: tmp, sizes: [10_000], jsonServerSize: 10, seed: 42 });
    const roots = { after: root, ...(opts.before ? { before: opts.before } : {}) };
    const cpu = await cpuRows(roots, data, tmp, opts);
    const rss = await rssRows(roots, tmp, opts);
    const startup = await measureStartupRatios(opts.startupRounds, log, opts.before ? [opts.before] : []);
    const second = { after: await secondInstance(root) };
    if (opts.before) second.before = await secondInstance(opts.before);
    const image = await imageRows(root, opts);
    return { root, before: opts.before, node: process.version, cpu, rss, startup, second, image };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

const x = (a, b) => `${(a / b).toFixed(2)}×`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
const ms = (v) => `${v.toFixed(v < 10 ? 2 : 0)} ms`;

/** The issue's table, as measured: one row per measure, its reference, its target, and the same measure of `label`'s root. */
function rowsOf(r, label) {
  const { cpu, rss, startup, image } = r;
  const fake = cpu[label];
  const second = r.second[label];
  const rows = [];
  for (const [op, target] of [
    ['list', 1.3],
    ['read', 1.15],
    ['patch', 1.25],
  ]) {
    const ratio = fake.fakeUs[op] / cpu.expressUs[op];
    rows.push([
      `${op === 'patch' ? 'PATCH' : op} CPU per request ÷ static Express 5 (same bytes)`,
      `${x(fake.fakeUs[op], cpu.expressUs[op])} (${fake.fakeUs[op].toFixed(0)} vs ${cpu.expressUs[op].toFixed(0)} µs)`,
      `≤ ${target}×`,
      ratio <= target,
    ]);
  }
  const share = 1 - fake.fakeNoJournalUs.list / fake.fakeUs.list;
  rows.push([
    "the journal's share of list CPU (vs --journal-limit 0)",
    `${(100 * share).toFixed(0)} % (${fake.fakeUs.list.toFixed(0)} → ${fake.fakeNoJournalUs.list.toFixed(0)} µs)`,
    '≤ 10 %',
    share <= 0.1,
  ]);
  rows.push([
    `peak RSS under ${rss.seconds} s of list load, default fixtures`,
    `${mb(rss[label].peakRss)} (${mb(rss[label].rss)} at the end; Express ${mb(rss.express.peakRss)})`,
    '≤ 150 MB',
    rss[label].peakRss <= 150e6,
  ]);
  for (const [name, s] of Object.entries(startup.starts)) {
    const ofBefore = name.endsWith(']');
    if (ofBefore !== (label === 'before')) continue;
    rows.push([
      `spawn to healthy ÷ node -e 0: ${name.replace(/ \[.*\]$/, '')}`,
      `${s.ratio.toFixed(2)}× (${ms(s.medianMs)} vs ${ms(startup.bareNodeMs)})`,
      '≤ 2.0×',
      s.ratio <= 2,
    ]);
  }
  rows.push([
    'a second createMockServer() in one process (median of the later ones)',
    `${ms(second.laterMedianMs)} (${ms(second.laterCpuMedianMs)} CPU), ${(second.laterHeapMedianBytes / 1e6).toFixed(2)} MB heap (first: ${ms(second.firstMs)})`,
    '≤ 3 ms, ≤ 0.3 MB',
    second.laterMedianMs <= 3 && second.laterHeapMedianBytes <= 0.3e6,
  ]);
  // The image rows are measured once (an earlier image is compared by BENCH_IMAGE_COMPARE).
  const imageRowsOf = imageTable(image);
  rows.push(
    ...(label === 'before'
      ? imageRowsOf.map(([m, , t]) => [m, 'see the image rows', t, undefined])
      : imageRowsOf),
  );
  return rows;
}

/** The image's rows (and, measured beside it, the compared image's). */
export function imageTable(image) {
  if (image.skipped)
    return [
      ['image size', `skipped: ${image.skipped}`, '≤ 150 MB', undefined],
      ['docker run to healthy', `skipped: ${image.skipped}`, '≤ 2 s', undefined],
    ];
  const rows = [];
  for (const [label, m] of [
    ['', image],
    [` (${image.compare?.tag}, interleaved)`, image.compare],
  ]) {
    if (!m) continue;
    rows.push([`image size${label}`, mb(m.sizeBytes), '≤ 150 MB', m.sizeBytes <= 150e6]);
    rows.push([
      `docker run to healthy (median of ${m.runs.length})${label}`,
      `${(m.healthyMs / 1000).toFixed(2)} s (port answers at ${(m.answeredMs / 1000).toFixed(2)} s; ` +
        `runs ${m.runs.map((r) => (r.healthyMs / 1000).toFixed(2)).join(', ')} s)`,
      '≤ 2 s',
      m.healthyMs <= 2000,
    ]);
  }
  return rows;
}

/** The table's rows: measure, measured, target, met, and (with a before root) what it measured. */
export function lightnessTable(r) {
  const after = rowsOf(r, 'after');
  if (!r.before) return after;
  const before = rowsOf(r, 'before');
  return after.map((row, i) => [...row, before[i]?.[1]]);
}

export function printLightness(r) {
  const rows = lightnessTable(r);
  const lines = [
    '',
    `### Lighter and faster (${r.node}; ${r.cpu.rounds} interleaved rounds for CPU)`,
    '',
    r.before
      ? '| measure | measured | target | met | before (same run) |'
      : '| measure | measured | target | met |',
    r.before ? '|---|---|---|---|---|' : '|---|---|---|---|',
    ...rows.map(
      ([m, v, t, ok, before]) =>
        `| ${m} | ${v} | ${t} | ${ok === undefined ? '–' : ok ? 'yes' : 'no'} |${r.before ? ` ${before} |` : ''}`,
    ),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? resolve(process.argv[i + 1]) : undefined;
  };
  const root = arg('--root') ?? resolve(join(BENCH, '..'));
  if (process.argv.includes('--image-only')) {
    const image = await imageRows(root, {
      image: true,
      imageRuns: env('BENCH_IMAGE_RUNS', 3),
      imageCompare: process.env.BENCH_IMAGE_COMPARE || undefined,
    });
    const rows = imageTable(image);
    process.stdout.write(
      `${['| measure | measured | target | met |', '|---|---|---|---|', ...rows.map(([m, v, t, ok]) => `| ${m} | ${v} | ${t} | ${ok === undefined ? '–' : ok ? 'yes' : 'no'} |`)].join('\n')}\n`,
    );
    process.exit(0);
  }
  const result = await measureLightness(root, { before: arg('--before') });
  printLightness(result);
  const out = process.env.BENCH_LIGHT_OUT;
  if (out) await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
}
