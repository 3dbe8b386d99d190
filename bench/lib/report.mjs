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

const bound = (v, unit) => (unit === 'x' ? `${v}×` : `${v} ${unit}`);
/** A target row met when `value` is at least `min`. */
const atLeast = (measure, min, value, unit = 'x') => ({
  measure,
  target: `≥ ${bound(min, unit)}`,
  value,
  unit,
  met: value >= min,
});
/** A target row met when `value` is at most `max` (`shown` is how the target writes it). */
const atMost = (measure, max, value, unit, shown = max) => ({
  measure,
  target: `≤ ${bound(shown, unit)}`,
  value,
  unit,
  met: value <= max,
});

/** Every target of the issue, each with the measured value and whether it is met. */
export function evaluateTargets(report) {
  const t = report.throughput;
  const rps = (server, op) => t[server]?.[op]?.requestsPerSecond ?? 0;
  /** Throughput of the fake ÷ that of `server`. */
  const vs = (server, op) => ratio(rps('fake', op), rps(server, op));
  /** CPU per request of Express ÷ that of the fake. */
  const cpuVsExpress = (op) => ratio(t.express[op].serverCpuUsPerRequest, t.fake[op].serverCpuUsPerRequest);
  const fakeRuns = [t.fake.list, t.fake.read, report.large.list];
  const failures = fakeRuns.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0);
  const startup = report.startup.fakeToHealthy.medianMs;
  const prismStartup = report.startup.prismToFirstAnswer.medianMs;
  return [
    atLeast('list throughput ÷ Prism', 3, vs('prism', 'list')),
    atLeast('list throughput ÷ Prism -v silent (supplementary)', 3, vs('prismQuiet', 'list')),
    atLeast('list throughput ÷ json-server', 20, vs('jsonServer', 'list')),
    atLeast('list throughput ÷ json-server --quiet (supplementary)', 20, vs('jsonServerQuiet', 'list')),
    atLeast('list throughput ÷ minimal Express', 0.8, vs('express', 'list')),
    atLeast('read throughput ÷ minimal Express', 0.8, vs('express', 'read')),
    atLeast('list CPU per request: Express ÷ fake (supplementary)', 0.8, cpuVsExpress('list')),
    atLeast('read CPU per request: Express ÷ fake (supplementary)', 0.8, cpuVsExpress('read')),
    atMost('start-up to healthy (median)', 250, startup, 'ms'),
    atMost('start-up ÷ Prism start-up', 1 / 3, ratio(startup, prismStartup), 'x', 0.33),
    ...(report.soak
      ? [
          {
            measure: `soak: RSS levels off (last quarter vs second quarter of ${report.soak.seconds} s)`,
            target: '< 10 % growth',
            value: report.soak.lateGrowth * 100,
            unit: '%',
            met: report.soak.plateau,
          },
        ]
      : []),
    ...Object.entries(report.startupRatios?.starts ?? {}).map(([name, s]) =>
      atMost(`start-up ÷ node -e 0: ${name}`, 2, s.ratio, 'x'),
    ),
    atMost('reset at 10,000 documents (median)', 20, report.reset.medianMs, 'ms'),
    ...Object.entries(report.stateFile?.cases ?? {})
      .filter(([name]) => name !== 'fresh')
      .map(([name, c]) =>
        atMost(`state file: one-document PATCH ${name} ÷ fresh file (median)`, 2, c.ratioToFresh, 'x'),
      ),
    atMost('RSS with 100,000 documents (after GC)', 250, report.large.memoryAfterLoad.rss / MB, 'MB'),
    atMost('list p99 at 100,000 documents', 25, report.large.list.latencyMs.p99, 'ms'),
    { measure: 'errors under load (fake)', target: '0', value: failures, unit: '', met: failures === 0 },
  ];
}

const num = (v, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
const fmt = (v, unit) => {
  if (unit === 'x') return `${num(v, 2)}×`;
  if (unit === 'ms') return `${num(v, v < 10 ? 2 : 0)} ms`;
  if (unit === 'MB') return `${num(v, 0)} MB`;
  if (unit === '%') return `${num(v, 1)} %`;
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
  if (report.soak) {
    const k = report.soak;
    row(
      `soak, ${k.seconds} s of mixed load (${num(k.requests)} requests): RSS start / peak / end`,
      `${fmt(k.startRss / MB, 'MB')} / ${fmt(k.peakRss / MB, 'MB')} / ${fmt(k.endRss / MB, 'MB')}`,
    );
    for (const [name, b] of Object.entries(k.budgets ?? {})) {
      row(
        `soak: memory budget ${name} (${b.option}): peak / end of limit`,
        `${fmt(b.peak / MB, 'MB')} / ${fmt((b.end ?? 0) / MB, 'MB')} of ${fmt((b.limit ?? 0) / MB, 'MB')}`,
      );
    }
  }
  const r = report.startupRatios;
  if (r) {
    row(`node -e 0, side by side (median of ${r.rounds})`, fmt(r.bareNodeMs, 'ms'));
    for (const [name, x] of Object.entries(r.starts)) {
      row(
        `start-up to healthy: ${name} (median; ÷ node -e 0)`,
        `${fmt(x.medianMs, 'ms')} (${num(x.ratio, 2)}×)`,
      );
    }
  }
  for (const [name, c] of Object.entries(report.stateFile?.cases ?? {})) {
    row(
      `state file, one-document PATCH, ${name}: median / p95 (÷ fresh); health-check wait meanwhile p99 / max`,
      `${fmt(c.patchMs.median, 'ms')} / ${fmt(c.patchMs.p95, 'ms')} (${num(c.ratioToFresh, 2)}×); ${fmt(c.healthWaitMs.p99, 'ms')} / ${fmt(c.healthWaitMs.max, 'ms')}`,
    );
  }
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
