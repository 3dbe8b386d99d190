#!/usr/bin/env node
/**
 * `npm run bench`: throughput, latency, start-up, reset, load time and memory of the fake against
 * Prism, json-server 0.17, a minimal Express app and a bare node:http server, all measured in one
 * run on this machine. Every server runs alone in its own child process (one at a time); the
 * load generator (autocannon) runs here. Prints the table and writes bench/results/<time>.json
 * and bench/results/latest.json. Method and limits: BENCHMARKS.md.
 *
 * Shorter runs while working on the bench: BENCH_DURATION=2 BENCH_WARMUP=1 npm run bench.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tokenRequest, writeBenchData } from './data.mjs';
import { fleetRows, measureFleet } from './fleet.mjs';
import { measureHttps, printHttps } from './https.mjs';
import { measure } from './lib/load.mjs';
import {
  freePort,
  HOST,
  median,
  memoryOf,
  request,
  startProcess,
  stopProcess,
  waitFor,
} from './lib/proc.mjs';
import { evaluateTargets, machineInfo, printReport } from './lib/report.mjs';
import { measureLightness, printLightness } from './lightness.mjs';
import { soak } from './soak.mjs';
import { measureStartupRatios } from './startup-ratios.mjs';
import { measureStateFile } from './state-file.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NODE = process.execPath;
const env = (name, fallback) => Number(process.env[name] ?? fallback);

const CONFIG = {
  seed: 42,
  documents: 10_000,
  largeDocuments: 100_000,
  connections: 10,
  warmupSeconds: env('BENCH_WARMUP', 2),
  durationSeconds: env('BENCH_DURATION', 6),
  startupRuns: env('BENCH_STARTUP_RUNS', 5),
  startupRounds: env('BENCH_STARTUP_ROUNDS', 11),
  soakSeconds: env('BENCH_SOAK_SECONDS', 60),
  resetRounds: env('BENCH_RESET_ROUNDS', 200),
  loadWarmRuns: 2,
};

const LIST_PATH = '/api/v2/documents?type=asset&orderBy=label&resultsPerPage=20&pageNum=3';
const JSON_SERVER_LIST_PATH = '/documents?type=asset&_sort=label&_order=asc&_page=3&_limit=20';
const readPath = (id) => `/api/v2/documents/${id}`;

const children = new Set();
function spawnTracked(command, args, opts) {
  const child = startProcess(command, args, { cwd: ROOT, ...opts });
  children.add(child);
  child.exited.then(() => children.delete(child));
  return child;
}
async function stopAll() {
  await Promise.all([...children].map(stopProcess));
}

const log = (message) => process.stderr.write(`${message}\n`);

// ---------------------------------------------------------------------------------------------
// The servers under test

const fakeArgs = (port, fixtures, logLevel) => [
  join(ROOT, 'dist/start.js'),
  '--port',
  String(port),
  '--log-level',
  logLevel,
  ...(fixtures ? ['--fixtures', fixtures] : []),
];

/** The fake as `npm start` runs it (dist/start.js, the bundle); logging off unless `logLevel` says otherwise (the log goes to /dev/null). */
async function startFake(fixtures, { preload, logLevel = 'silent' } = {}) {
  const port = await freePort();
  const node = preload ? ['--expose-gc', '--import', preload] : [];
  const since = performance.now();
  const child = spawnTracked(NODE, [...node, ...fakeArgs(port, fixtures, logLevel)]);
  const readyMs = await waitFor(child, port, '/__admin/health', {
    since,
    accept: (s) => s === 200,
    timeoutMs: 180_000,
  });
  return { child, port, readyMs };
}

async function issueToken(port) {
  const { headers, body } = tokenRequest();
  const res = await request(port, '/api/v2/auth/client_token', { method: 'POST', headers, body });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body.toString('utf8')).access_token;
}

/** `prism mock spec/openapi.yaml` as documented (request log at info); `quiet`: `-v silent`. */
async function startPrism({ quiet = false } = {}) {
  const port = await freePort();
  const since = performance.now();
  const bin = join(ROOT, 'bench/node_modules/@stoplight/prism-cli/dist/index.js');
  const args = [bin, 'mock', join(ROOT, 'spec/openapi.yaml'), '-h', HOST, '-p', String(port)];
  if (quiet) args.push('-v', 'silent');
  const child = spawnTracked(NODE, args);
  const readyMs = await waitFor(child, port, LIST_PATH, {
    since,
    accept: () => true,
    headers: { 'x-access-token': 'bench' },
    intervalMs: 5,
  });
  return { child, port, readyMs };
}

/** `json-server db.json` as documented (request log on); `quiet`: `--quiet`. */
async function startJsonServer(db, { quiet = false } = {}) {
  const port = await freePort();
  const bin = join(ROOT, 'bench/node_modules/json-server/lib/cli/bin.js');
  const args = [bin, '--port', String(port), '--host', HOST, ...(quiet ? ['--quiet'] : []), db];
  const child = spawnTracked(NODE, args);
  await waitFor(child, port, '/documents/1', {
    since: performance.now(),
    accept: () => true,
    intervalMs: 20,
  });
  return { child, port };
}

async function startStatic(script, routesFile) {
  const port = await freePort();
  const child = spawnTracked(NODE, [join(ROOT, 'bench/servers', script), String(port), routesFile]);
  await waitFor(child, port, '/', { since: performance.now(), accept: () => true });
  return { child, port };
}

// ---------------------------------------------------------------------------------------------
// Measurements

async function measureServer(name, { port, child }, paths, headers) {
  const out = {};
  for (const [operation, path] of Object.entries(paths)) {
    const check = await request(port, path, { headers });
    if (check.status !== 200) throw new Error(`${name} ${operation}: ${path} answered ${check.status}`);
    log(`  ${name}: ${operation} (${CONFIG.warmupSeconds} s warm-up, ${CONFIG.durationSeconds} s measured)`);
    out[operation] = await measure({
      url: `http://${HOST}:${port}${path}`,
      headers,
      connections: CONFIG.connections,
      warmupSeconds: CONFIG.warmupSeconds,
      durationSeconds: CONFIG.durationSeconds,
      pid: child.pid,
    });
  }
  return out;
}

const ids = (rows) => rows.map((r) => r.id);

async function throughput(data, tmp) {
  const results = {};
  const checks = {};

  log('throughput: the fake (10,000 documents, --log-level silent)');
  const fake = await startFake(data.files[CONFIG.documents]);
  const token = await issueToken(fake.port);
  const headers = { 'x-access-token': token };
  const paths = { list: LIST_PATH, read: readPath(data.readId) };
  const listBody = (await request(fake.port, paths.list, { headers })).body.toString('utf8');
  const readBody = (await request(fake.port, paths.read, { headers })).body.toString('utf8');
  const fakePage = JSON.parse(listBody).results;
  checks.fakeListRows = fakePage.length;
  results.fake = await measureServer('fake', fake, paths, headers);
  await stopProcess(fake.child);

  log('throughput: the fake with its default request log (--log-level info, to /dev/null)');
  const logged = await startFake(data.files[CONFIG.documents], { logLevel: 'info' });
  const loggedHeaders = { 'x-access-token': await issueToken(logged.port) };
  results.fakeLogged = await measureServer('fake (info)', logged, paths, loggedHeaders);
  await stopProcess(logged.child);

  const routesFile = join(tmp, 'static-routes.json');
  await writeFile(routesFile, JSON.stringify({ '/api/v2/documents': listBody, [paths.read]: readBody }));

  for (const quiet of [false, true]) {
    log(`throughput: Prism (prism mock spec/openapi.yaml${quiet ? ' -v silent' : ', request log on'})`);
    const prism = await startPrism({ quiet });
    results[quiet ? 'prismQuiet' : 'prism'] = await measureServer('prism', prism, paths, headers);
    await stopProcess(prism.child);
  }

  const jsPaths = { list: JSON_SERVER_LIST_PATH, read: `/documents/${data.readId}` };
  for (const quiet of [false, true]) {
    log(
      `throughput: json-server 0.17 (${CONFIG.documents} list rows${quiet ? ', --quiet' : ', request log on'})`,
    );
    const js = await startJsonServer(data.jsonServerDb, { quiet });
    const jsPage = JSON.parse((await request(js.port, jsPaths.list, { headers })).body.toString('utf8'));
    checks.jsonServerListRows = jsPage.length;
    checks.jsonServerSameIds = JSON.stringify(ids(jsPage)) === JSON.stringify(ids(fakePage));
    checks.jsonServerSameRows = JSON.stringify(jsPage) === JSON.stringify(fakePage);
    results[quiet ? 'jsonServerQuiet' : 'jsonServer'] = await measureServer(
      'json-server',
      js,
      jsPaths,
      headers,
    );
    await stopProcess(js.child);
  }

  log('throughput: minimal Express app (precomputed bodies)');
  const ex = await startStatic('express-static.mjs', routesFile);
  results.express = await measureServer('express', ex, paths, headers);
  await stopProcess(ex.child);

  log('throughput: bare node:http (precomputed bodies)');
  const bare = await startStatic('node-static.mjs', routesFile);
  results.node = await measureServer('node', bare, paths, headers);
  await stopProcess(bare.child);

  checks.listBodyBytes = Buffer.byteLength(listBody);
  checks.readBodyBytes = Buffer.byteLength(readBody);
  return { results, checks };
}

async function startup(data) {
  const fakeDefault = [];
  const fakeFirstList = [];
  const fakeLarge = [];
  const prism = [];
  for (let i = 0; i < CONFIG.startupRuns; i++) {
    log(`start-up: run ${i + 1} of ${CONFIG.startupRuns}`);
    const since = performance.now();
    const f = await startFake(undefined);
    fakeDefault.push(f.readyMs);
    const token = await issueToken(f.port);
    const list = await request(f.port, LIST_PATH, { headers: { 'x-access-token': token } });
    if (list.status !== 200) throw new Error(`first list answered ${list.status}`);
    fakeFirstList.push(performance.now() - since);
    await stopProcess(f.child);
    const g = await startFake(data.files[CONFIG.documents]);
    fakeLarge.push(g.readyMs);
    await stopProcess(g.child);
    const p = await startPrism();
    prism.push(p.readyMs);
    await stopProcess(p.child);
  }
  const summary = (runs) => ({ medianMs: median(runs), runsMs: runs });
  return {
    fakeToHealthy: summary(fakeDefault),
    fakeToFirstList: summary(fakeFirstList),
    fakeToHealthy10k: summary(fakeLarge),
    prismToFirstAnswer: summary(prism),
  };
}

async function runInProcess(args) {
  const child = spawnTracked(NODE, ['--expose-gc', join(ROOT, 'bench/inprocess.mjs'), ...args], {
    keepStdout: true,
  });
  let stdout = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (s) => {
    stdout += s;
  });
  const { code } = await child.exited;
  if (code !== 0) throw new Error(`inprocess.mjs ${args[0]} failed (${code}): ${child.stderrText()}`);
  return JSON.parse(stdout);
}

async function resetTime(data) {
  const file = data.files[CONFIG.documents];
  const fake = await startFake(file);
  try {
    const probe = await request(fake.port, '/__admin/reset', { method: 'POST' });
    if (probe.status < 200 || probe.status > 299) {
      log(`reset: POST /__admin/reset answered ${probe.status}; measuring in-process instead`);
      return await runInProcess(['reset', file, String(CONFIG.resetRounds)]);
    }
    log(`reset: POST /__admin/reset x ${CONFIG.resetRounds}`);
    const times = [];
    // One kept-alive connection, as a test suite's HTTP client would use: connecting is not timed.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const patch = JSON.stringify({});
    for (let i = 0; i < CONFIG.resetRounds; i++) {
      const token = await issueToken(fake.port);
      const headers = { 'x-access-token': token, 'content-type': 'application/json' };
      const write = await request(fake.port, readPath(data.readId), {
        method: 'PATCH',
        headers,
        body: patch,
      });
      if (write.status !== 200) throw new Error(`PATCH before reset answered ${write.status}`);
      const t = performance.now();
      const res = await request(fake.port, '/__admin/reset', { method: 'POST', agent });
      times.push(performance.now() - t);
      if (res.status < 200 || res.status > 299) throw new Error(`reset answered ${res.status}`);
    }
    agent.destroy();
    const sorted = [...times].sort((a, b) => a - b);
    return {
      via: 'HTTP POST /__admin/reset, timed by the client on a kept-alive connection',
      documents: CONFIG.documents,
      rounds: times.length,
      medianMs: median(times),
      p95Ms: sorted[Math.ceil(0.95 * sorted.length) - 1],
      maxMs: sorted[sorted.length - 1],
    };
  } finally {
    await stopProcess(fake.child);
  }
}

async function largeSet(data) {
  log(`memory: the fake with ${CONFIG.largeDocuments} documents`);
  const preload = join(ROOT, 'bench/servers/gc-hook.mjs');
  const fake = await startFake(data.files[CONFIG.largeDocuments], { preload });
  const gc = async () => {
    const done = new Promise((resolve) => {
      const onLine = (s) => {
        if (s.includes('gc-done')) {
          fake.child.off('stderr-line', onLine);
          resolve();
        }
      };
      fake.child.on('stderr-line', onLine);
    });
    fake.child.kill('SIGUSR2');
    await done;
    return memoryOf(fake.child.pid);
  };
  try {
    const afterLoad = await gc();
    const token = await issueToken(fake.port);
    const headers = { 'x-access-token': token };
    const list = await measureServer('fake 100k', fake, { list: LIST_PATH }, headers);
    const afterLoadTest = await gc();
    return {
      startupMs: fake.readyMs,
      memoryAfterLoad: afterLoad,
      memoryAfterLoadTest: afterLoadTest,
      ...list,
    };
  } finally {
    await stopProcess(fake.child);
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const started = performance.now();
  const machine = machineInfo(ROOT);
  if (machine.loadAverageAtStart > 0.5) {
    log(
      `warning: load average ${machine.loadAverageAtStart.toFixed(2)}: other work shares the CPUs; ratios are noisier`,
    );
  }
  const tmp = await mkdtemp(join(tmpdir(), 'passportal-bench-'));
  const cleanUp = async () => {
    await stopAll();
    await rm(tmp, { recursive: true, force: true });
  };
  process.once('SIGINT', () => cleanUp().then(() => process.exit(130)));
  try {
    log(`data: generating ${CONFIG.largeDocuments} documents (seed ${CONFIG.seed}) into ${tmp}`);
    const data = await writeBenchData({
      dir: tmp,
      sizes: [CONFIG.documents, CONFIG.largeDocuments],
      jsonServerSize: CONFIG.documents,
      seed: CONFIG.seed,
    });
    const { results, checks } = await throughput(data, tmp);
    const startupResult = await startup(data);
    const startupRatios = await measureStartupRatios(CONFIG.startupRounds, log);
    const httpsResult = await measureHttps({
      durationSeconds: CONFIG.durationSeconds,
      startupRounds: CONFIG.startupRounds,
      log,
    });
    log(`soak: ${CONFIG.soakSeconds} s of mixed load`);
    const soakResult = await soak(CONFIG.soakSeconds, log);
    const reset = await resetTime(data);
    log(`load: createMockServer and the fixture loader on ${CONFIG.largeDocuments} documents`);
    const load = await runInProcess(['load', data.files[CONFIG.largeDocuments], String(CONFIG.loadWarmRuns)]);
    const large = await largeSet(data);
    const stateFile = await measureStateFile(data.files[CONFIG.documents], tmp, log);
    // A session read sent to its owner against the same read forwarded once by another replica.
    const fleet = await measureFleet({
      durationSeconds: CONFIG.durationSeconds,
      warmupSeconds: CONFIG.warmupSeconds,
      connections: CONFIG.connections,
      log,
    });
    // The lightness table: CPU per request ÷ static Express, the journal's share, peak RSS,
    // start-up ÷ bare Node, a second instance, the image (bench/lightness.mjs).
    const lightness = await measureLightness(ROOT, { startupRounds: CONFIG.startupRounds });

    const report = {
      timestamp: new Date().toISOString(),
      machine,
      config: {
        ...CONFIG,
        listPath: LIST_PATH,
        jsonServerListPath: JSON_SERVER_LIST_PATH,
        readId: data.readId,
      },
      throughput: results,
      checks,
      startup: startupResult,
      startupRatios,
      https: httpsResult,
      soak: soakResult,
      reset,
      load,
      large,
      stateFile,
      fleet,
      lightness,
      benchSeconds: 0,
    };
    report.targets = evaluateTargets(report);
    report.benchSeconds = Math.round((performance.now() - started) / 1000);
    printReport(report);
    printHttps(report.https);
    printLightness(report.lightness);
    console.log('\nA fleet: a request forwarded once to its owner beside the same request sent to it');
    for (const [label, value] of fleetRows(report.fleet)) console.log(`  ${label}: ${value}`);
    const dir = join(ROOT, 'bench/results');
    await mkdir(dir, { recursive: true });
    const text = `${JSON.stringify(report, null, 2)}\n`;
    await writeFile(join(dir, `${report.timestamp.replace(/[:.]/g, '-')}.json`), text);
    await writeFile(join(dir, 'latest.json'), text);
    log(`written: bench/results/latest.json (${report.benchSeconds} s)`);
  } finally {
    await cleanUp();
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
