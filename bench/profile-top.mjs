#!/usr/bin/env node
/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions and the files with the most
 * self time. Usage: node bench/profile-top.mjs <file.cpuprofile> [rows=25]
 */
import { readFileSync } from 'node:fs';

const [file, rowsArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/profile-top.mjs <file.cpuprofile> [rows]\n');
  process.exit(2);
}
const rows = Number(rowsArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const shortUrl = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, 'nm:')
    .replace(process.cwd(), '.');
const fnKey = (cf) => `${cf.functionName || '(anonymous)'} ${shortUrl(cf.url)}:${cf.lineNumber + 1}`;
const fileKey = (cf) => {
  const url = shortUrl(cf.url);
  if (!url) return `(${cf.functionName || 'native'})`;
  const m = /^nm:((?:@[^/]+\/)?[^/]+)/.exec(url);
  return m ? `nm:${m[1]}` : url;
};
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
const fns = new Map();
const files = new Map();
for (const [id, us] of selfUs) {
  const cf = byId.get(id).callFrame;
  add(fns, fnKey(cf), us);
  add(files, fileKey(cf), us);
}
// Inclusive time of the project's own functions (dist/ or src/), each counted once per sample.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const seen = new Set();
  for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
    const cf = byId.get(id).callFrame;
    if (!/\/(dist|src)\//.test(cf.url) || cf.url.includes('node_modules')) continue;
    const key = fnKey(cf);
    if (seen.has(key)) continue;
    seen.add(key);
    add(inclusive, key, deltas[i] ?? 0);
  }
}
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(
      `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${key}`,
    );
  }
};
console.log(`total sampled: ${(total / 1000).toFixed(1)} ms`);
print('self time by function', fns);
print('self time by file or package', files);
print('inclusive time of project functions', inclusive);
