/** The benchmark's report: machine description, targets, and the table (Markdown) it prints. */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';

const SERVERS = [
  ['fake', 'fake'],
  ['fakeLogged', 'fake, log info'],
  ['prism', 'Prism'],
  ['prismQuiet', 'Prism -v silent'],
  ['jsonServer', 'json-server'],
  ['jsonServerQuiet', 'json-server --quiet'],
  ['express', 'Express (static)'],
  ['node', 'node:http (static)'],
];
/** Ratio columns: fake ÷ each of these. */
const RATIOS = [
  ['prism', 'Prism'],
  ['prismQuiet', 'Prism -v silent'],
  ['jsonServer', 'json-server'],
  ['jsonServerQuiet', 'json-server --quiet'],
  ['express', 'Express'],
  ['node', 'node'],
];

const MB = 1024 * 1024;

export function machineInfo(root) {
  const version = (pkg) => {
    try {
      return JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
    } catch {
      return undefined;
    }
  };
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${release()}`,
    cpus: cpu.length,
    cpuModel: cpu[0]?.model,
    totalMemoryMb: Math.round(totalmem() / MB),
    /** 1-minute load average when the run started: above ~0.5 something else was busy. */
    loadAverageAtStart: loadavg()[0],
    versions: {
      autocannon: version('autocannon'),
      prism: version('@stoplight/prism-cli'),
      jsonServer: version('json-server'),
      express: version('express'),
    },
  };
}

const ratio = (a, b) => (a > 0 && b > 0 ? a / b : Number.NaN);

/** Every target of the issue, each with the measured value and whether it is met. */
export function evaluateTargets(report) {
  const t = report.throughput;
  const rps = (server, op) => t[server]?.[op]?.requestsPerSecond ?? 0;
  const fakeRuns = [t.fake.list, t.fake.read, report.large.list];
  const failures = fakeRuns.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0);
  const startup = report.startup.fakeToHealthy.medianMs;
  const prismStartup = report.startup.prismToFirstAnswer.medianMs;
  const rows = [
    ['list throughput ÷ Prism', '≥ 3×', ratio(rps('fake', 'list'), rps('prism', 'list')), (v) => v >= 3, 'x'],
    [
      'list throughput ÷ Prism -v silent (supplementary)',
      '≥ 3×',
      ratio(rps('fake', 'list'), rps('prismQuiet', 'list')),
      (v) => v >= 3,
      'x',
    ],
    [
      'list throughput ÷ json-server',
      '≥ 20×',
      ratio(rps('fake', 'list'), rps('jsonServer', 'list')),
      (v) => v >= 20,
      'x',
    ],
    [
      'list throughput ÷ json-server --quiet (supplementary)',
      '≥ 20×',
      ratio(rps('fake', 'list'), rps('jsonServerQuiet', 'list')),
      (v) => v >= 20,
      'x',
    ],
    [
      'list throughput ÷ minimal Express',
      '≥ 0.8×',
      ratio(rps('fake', 'list'), rps('express', 'list')),
      (v) => v >= 0.8,
      'x',
    ],
    [
      'read throughput ÷ minimal Express',
      '≥ 0.8×',
      ratio(rps('fake', 'read'), rps('express', 'read')),
      (v) => v >= 0.8,
      'x',
    ],
    [
      'list CPU per request: Express ÷ fake (supplementary)',
      '≥ 0.8×',
      ratio(t.express.list.serverCpuUsPerRequest, t.fake.list.serverCpuUsPerRequest),
      (v) => v >= 0.8,
      'x',
    ],
    [
      'read CPU per request: Express ÷ fake (supplementary)',
      '≥ 0.8×',
      ratio(t.express.read.serverCpuUsPerRequest, t.fake.read.serverCpuUsPerRequest),
      (v) => v >= 0.8,
      'x',
    ],
    ['start-up to healthy (median)', '≤ 250 ms', startup, (v) => v <= 250, 'ms'],
    ['start-up ÷ Prism start-up', '≤ 0.33×', ratio(startup, prismStartup), (v) => v <= 1 / 3, 'x'],
    ['reset at 10,000 documents (median)', '≤ 20 ms', report.reset.medianMs, (v) => v <= 20, 'ms'],
    [
      'RSS with 100,000 documents (after GC)',
      '≤ 250 MB',
      report.large.memoryAfterLoad.rss / MB,
      (v) => v <= 250,
      'MB',
    ],
    ['list p99 at 100,000 documents', '≤ 25 ms', report.large.list.latencyMs.p99, (v) => v <= 25, 'ms'],
    ['errors under load (fake)', '0', failures, (v) => v === 0, ''],
  ];
  return rows.map(([measure, target, value, ok, unit]) => ({ measure, target, value, unit, met: ok(value) }));
}

const num = (v, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
const fmt = (v, unit) => {
  if (unit === 'x') return `${num(v, 2)}×`;
  if (unit === 'ms') return `${num(v, v < 10 ? 2 : 0)} ms`;
  if (unit === 'MB') return `${num(v, 0)} MB`;
  return num(v);
};

/** The report as Markdown tables (the same text BENCHMARKS.md quotes). */
export function formatReport(report) {
  const t = report.throughput;
  const lines = [];
  const m = report.machine;
  lines.push(
    `Run ${report.timestamp} on ${m.cpus} × ${m.cpuModel}, ${m.platform}, Node ${m.node} ` +
      `(load average ${num(m.loadAverageAtStart, 2)} at start); ` +
      `${report.config.connections} connections, ${report.config.warmupSeconds} s warm-up + ` +
      `${report.config.durationSeconds} s measured per row; the fake with --log-level silent, Prism and json-server as documented (request log on) and with their logging off.`,
    '',
  );
  lines.push(`| requests/s (p99) | ${SERVERS.map(([, label]) => label).join(' | ')} |`);
  lines.push(`|---|${SERVERS.map(() => '---:').join('|')}|`);
  for (const op of ['list', 'read']) {
    const cell = (key) => {
      const r = t[key][op];
      return `${num(r.requestsPerSecond)} (${num(r.latencyMs.p99)} ms)`;
    };
    lines.push(`| ${op} | ${SERVERS.map(([k]) => cell(k)).join(' | ')} |`);
  }
  lines.push('', `| throughput ratio | ${RATIOS.map(([, label]) => `fake ÷ ${label}`).join(' | ')} |`);
  lines.push(`|---|${RATIOS.map(() => '---:').join('|')}|`);
  for (const op of ['list', 'read']) {
    const fake = t.fake[op].requestsPerSecond;
    const cells = RATIOS.map(([k]) => `${num(ratio(fake, t[k][op].requestsPerSecond), 2)}×`);
    lines.push(`| ${op} | ${cells.join(' | ')} |`);
  }
  lines.push(
    '',
    `| server CPU per request (µs, all threads) | ${SERVERS.map(([, label]) => label).join(' | ')} | Express ÷ fake | node ÷ fake |`,
  );
  lines.push(`|---|${SERVERS.map(() => '---:').join('|')}|---:|---:|`);
  for (const op of ['list', 'read']) {
    const cpu = (key) => t[key][op].serverCpuUsPerRequest;
    lines.push(
      `| ${op} | ${SERVERS.map(([k]) => num(cpu(k))).join(' | ')} | ` +
        `${num(ratio(cpu('express'), cpu('fake')), 2)}× | ${num(ratio(cpu('node'), cpu('fake')), 2)}× |`,
    );
  }
  const s = report.startup;
  const large = report.large;
  lines.push('', '| measure | value |', '|---|---:|');
  const row = (label, value) => lines.push(`| ${label} | ${value} |`);
  row('start-up to healthy, default fixtures (median)', fmt(s.fakeToHealthy.medianMs, 'ms'));
  row('start-up to first list answer, default fixtures (median)', fmt(s.fakeToFirstList.medianMs, 'ms'));
  row('start-up to healthy, 10,000 documents (median)', fmt(s.fakeToHealthy10k.medianMs, 'ms'));
  row('Prism start-up to first answer (median)', fmt(s.prismToFirstAnswer.medianMs, 'ms'));
  row(
    `reset at ${num(report.reset.documents)} documents, ${report.reset.via} (median / p95 of ${report.reset.rounds})`,
    `${fmt(report.reset.medianMs, 'ms')} / ${fmt(report.reset.p95Ms, 'ms')}`,
  );
  row(
    `createMockServer on ${num(report.load.documents)} documents (cold process)`,
    fmt(report.load.createMockServerMs, 'ms'),
  );
  row(
    `fixture loader alone on ${num(report.load.documents)} documents (warm, median)`,
    fmt(report.load.loaderWarmMedianMs, 'ms'),
  );
  row('start-up to healthy, 100,000 documents', fmt(large.startupMs, 'ms'));
  row(
    'RSS with 100,000 documents after load + GC (peak during load)',
    `${fmt(large.memoryAfterLoad.rss / MB, 'MB')} (${fmt(large.memoryAfterLoad.peakRss / MB, 'MB')})`,
  );
  row('RSS with 100,000 documents after the load test + GC', fmt(large.memoryAfterLoadTest.rss / MB, 'MB'));
  row(
    'list at 100,000 documents',
    `${num(large.list.requestsPerSecond)} req/s, p50 ${num(large.list.latencyMs.p50)} ms, p99 ${num(large.list.latencyMs.p99)} ms`,
  );
  row(
    'json-server page equals the fake page (ids / whole rows)',
    `${report.checks.jsonServerSameIds ? 'yes' : 'no'} / ${report.checks.jsonServerSameRows ? 'yes' : 'no'}`,
  );
  lines.push('', '| target | wanted | measured | met |', '|---|---|---:|---|');
  for (const x of report.targets)
    lines.push(`| ${x.measure} | ${x.target} | ${fmt(x.value, x.unit)} | ${x.met ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}

export function printReport(report) {
  process.stdout.write(`\n${formatReport(report)}\n\n`);
}
