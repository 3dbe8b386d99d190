/**
 * In-process measurements, run by run.mjs in a child process of their own (so 100,000 loaded
 * documents never share a heap with the load generator). Prints one JSON object on stdout.
 *
 *   node --expose-gc bench/inprocess.mjs load <fixtures.json> <warmRuns>
 *     import time of dist/index.js, `createMockServer` on the file (cold: first in the process),
 *     then the fixture loader alone (`loadFixtureSource`, warm) `warmRuns` times.
 *   node --expose-gc bench/inprocess.mjs second <dist/index.js> <count>
 *     `createMockServer()` with the default fixtures, once (the first in the process), then `count`
 *     more kept alive: the time of each (wall clock and the process's CPU time) and the heap each
 *     one retains (after full GCs).
 *   node --expose-gc bench/inprocess.mjs reset <fixtures.json> <rounds>
 *     `root.fake.reset()` timed `rounds` times, each after an untimed PATCH of one document.
 */
const [mode, file, countArg] = process.argv.slice(2);
const count = Number(countArg);
const gc = () => globalThis.gc?.();

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const percentile = (values, p) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

async function load() {
  const t0 = performance.now();
  const { createMockServer } = await import('../dist/index.js');
  const importMs = performance.now() - t0;
  const t1 = performance.now();
  const mock = await createMockServer({ fixtures: file, logLevel: 'silent' });
  const createMs = performance.now() - t1;
  const documents = mock.root.fake.documentCount();
  const { loadFixtureSource } = await import('../dist/domain/fixtures/load-fixtures.js');
  const warm = [];
  for (let i = 0; i < count; i++) {
    gc();
    const t = performance.now();
    await loadFixtureSource(file);
    warm.push(performance.now() - t);
  }
  return {
    documents,
    importMs,
    createMockServerMs: createMs,
    loaderWarmMs: warm,
    loaderWarmMedianMs: median(warm),
  };
}

async function reset() {
  const { createMockServer, defaultApiKey } = await import('../dist/index.js');
  const mock = await createMockServer({ fixtures: file, logLevel: 'silent' });
  const fake = mock.root.fake;
  const principal = { organizationId: 1, keyId: defaultApiKey(1).keyId };
  const ids = fake.listDocuments(principal, { resultsPerPage: 1000, orderBy: 'id' }).rows.map((d) => d.id);
  const times = [];
  for (let i = 0; i < count; i++) {
    fake.patchDocument(principal, String(ids[i % ids.length]), {});
    const t = performance.now();
    fake.reset();
    times.push(performance.now() - t);
  }
  return {
    via: 'in-process root.fake.reset()',
    documents: fake.documentCount(),
    rounds: count,
    medianMs: median(times),
    p95Ms: percentile(times, 95),
    maxMs: Math.max(...times),
  };
}

async function second() {
  const { createMockServer } = await import(file);
  const t0 = performance.now();
  const first = await createMockServer({ logLevel: 'silent' });
  const firstMs = performance.now() - t0;
  const kept = [first];
  const times = [];
  const cpu = [];
  const heaps = [];
  for (let i = 0; i < count; i++) {
    gc();
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const t = performance.now();
    const c = process.cpuUsage();
    kept.push(await createMockServer({ logLevel: 'silent' }));
    times.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    gc();
    gc();
    heaps.push(process.memoryUsage().heapUsed - heapBefore);
  }
  await Promise.all(kept.map((m) => m.close()));
  return {
    firstMs,
    laterMs: times,
    laterMedianMs: median(times),
    laterCpuMs: cpu,
    laterCpuMedianMs: median(cpu),
    laterHeapBytes: heaps,
    laterHeapMedianBytes: median(heaps),
  };
}

const modes = { load, reset, second };
const result = modes[mode] ? await modes[mode]() : undefined;
if (!result) {
  process.stderr.write(
    'usage: inprocess.mjs load|reset <fixtures.json> <count> | second <dist/index.js> <count>\n',
  );
  process.exit(2);
}
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
