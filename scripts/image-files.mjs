// Image build step (run by the Dockerfile after `npm run build`, from the package folder with its
// full node_modules): copies into OUT only the files the image's server runs, so the image does
// not carry a production node_modules (about 85 MB, of which prism's tree is most).
//
//   node scripts/image-files.mjs OUT
//
// - the package: package.json, LICENSE, spec/, fixtures/default/, docker/entrypoint.mjs and
//   docker/healthcheck.mjs, and dist/ without the CommonJS entries (dist/cjs, for `require()` of
//   the package, which a container never does), type declarations and source maps;
// - node_modules, traced: every bare specifier the start-up bundle (dist/bundle) and the
//   precompiled validators (dist/*.cjs) leave to node_modules is followed through its imports and
//   requires with esbuild's metafile (resolving as Node does), and also loaded once to record
//   what it requires at run time (a UMD wrapper's require escapes a static trace). Nothing is
//   bundled: each file is copied to its own path, so modules load, resolve and share state
//   exactly as from a full install. With them go each package's package.json files and licence,
//   and what packages read as files rather than import: ctrf's JSON schemas. (The Swagger UI files
//   the docs page serves are in dist/ui/swagger-ui, copied there by the build.) Every entry point
//   is then loaded from the copy alone, or the step fails.
// Only packages the lock file installs for production are copied: an optional require that a
// development install happens to satisfy stays unsatisfied, as in `npm ci --omit=dev`.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

const OUT = process.argv[2];
if (!OUT) {
  process.stderr.write('usage: node scripts/image-files.mjs OUT\n');
  process.exit(2);
}
const ROOT = resolve(import.meta.dirname, '..');
const out = resolve(OUT);

// Files packages read from their own folder (not through import or require), by package.
const READ_AS_FILES = {
  ctrf: (file) => file.endsWith('.json'),
};
// Loaded by code the validators' generator writes (`require("ajv-formats/dist/formats")`) and by
// Ajv's standalone runtime helpers, whichever a rebuilt validator module names.
const ALWAYS = [
  'ajv-formats/dist/formats',
  'ajv/dist/runtime/equal',
  'ajv/dist/runtime/ucs2length',
  'ajv/dist/runtime/uri',
  'ajv/dist/runtime/validation_error',
];

// node_modules may be a link to another checkout's: paths in it are named as from this package.
const MODULES = realpathSync(join(ROOT, 'node_modules'));
const packagePathOf = (file) =>
  file.startsWith(MODULES + sep) ? join('node_modules', relative(MODULES, file)) : relative(ROOT, file);

const copy = (from) => {
  const target = join(out, packagePathOf(from));
  mkdirSync(dirname(target), { recursive: true });
  cpSync(from, target, { dereference: true, recursive: true });
};

// --- the package's own files ----------------------------------------------------------------
rmSync(out, { recursive: true, force: true });
for (const path of [
  'package.json',
  'LICENSE',
  'spec',
  'fixtures/default',
  'docker/entrypoint.mjs',
  'docker/healthcheck.mjs',
  'docker/healthcheck.sh',
])
  copy(join(ROOT, path));
cpSync(join(ROOT, 'dist'), join(out, 'dist'), {
  recursive: true,
  filter: (from) => {
    const rel = relative(join(ROOT, 'dist'), from);
    return rel !== 'cjs' && !/\.(?:d\.ts|map)$/.test(rel);
  },
});

// --- what node_modules must hold -------------------------------------------------------------
const bareSpecifiers = new Set(ALWAYS);
const scan = (dir, test) => {
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!test(name)) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    for (const [, spec] of text.matchAll(
      /(?:\bfrom|\bimport|\brequire\w*)\s*\(?\s*["']([^"'.\s/][^"'\s]*)["']/g,
    ))
      if (!spec.startsWith('node:')) bareSpecifiers.add(spec);
  }
};
scan(join(ROOT, 'dist/bundle'), (name) => /\.c?js$/.test(name));
scan(join(ROOT, 'dist'), (name) => !name.includes(sep) && name.endsWith('.cjs'));
// Only names of installed production packages (not Node's own modules, nor text that merely
// looks like a specifier).
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;
const fromBundle = createRequire(join(ROOT, 'dist/bundle/cli.js'));
const specifiers = [...bareSpecifiers].sort().filter((spec) => {
  const installed = lock[`node_modules/${spec.split('/', spec.startsWith('@') ? 2 : 1).join('/')}`];
  return installed && !installed.dev;
});
const entryPoints = specifiers.map((spec) => fromBundle.resolve(spec));
const packageDir = (file) => {
  const parts = packagePathOf(file).split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  return parts.slice(0, at + (parts[at + 1]?.startsWith('@') ? 3 : 2)).join('/');
};

const { metafile } = await build({
  entryPoints,
  bundle: true,
  write: false,
  metafile: true,
  absWorkingDir: ROOT,
  platform: 'node',
  // Resolve as Node does: no "module" condition or field (esbuild's defaults would pick, e.g.,
  // tslib's ES module build where Node's require loads tslib.js).
  conditions: [],
  mainFields: ['main'],
  format: 'cjs',
  outdir: join(out, '.trace'),
  logLevel: 'error',
});

// Plus what loading each entry point actually requires: UMD wrappers (jsonc-parser's) call a
// \`require\` passed to them as an argument, which no static trace follows.
const loading = spawnSync(
  process.execPath,
  [
    '--input-type=commonjs',
    '-e',
    `const load = require('node:module').createRequire(${JSON.stringify(join(ROOT, 'dist/bundle/cli.js'))});
     for (const spec of ${JSON.stringify(specifiers)}) load(spec);
     process.stdout.write(JSON.stringify(Object.keys(require.cache)));`,
  ],
  { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 },
);
if (loading.status !== 0) {
  process.stderr.write(loading.stderr);
  process.exit(1);
}
const loaded = JSON.parse(loading.stdout).map((file) => relative(ROOT, file));

const files = new Set();
const leftOut = new Set();
const packages = new Set(Object.keys(READ_AS_FILES).map((name) => `node_modules/${name}`));
for (const input of [...Object.keys(metafile.inputs), ...loaded]) {
  const file = join(ROOT, packagePathOf(resolve(ROOT, input)));
  const pkg = packageDir(file);
  if (!pkg) continue; // the package's own code: already in dist
  if (!lock[pkg] || lock[pkg].dev) {
    leftOut.add(pkg);
    continue;
  }
  packages.add(pkg);
  files.add(file);
}
for (const pkg of packages) {
  const dir = join(ROOT, pkg);
  const name = pkg.slice(pkg.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const readAsFile = READ_AS_FILES[name];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const top = !entry.includes(sep);
    if (entry.split(sep).includes('node_modules')) continue;
    const base = entry.slice(entry.lastIndexOf(sep) + 1);
    // Every package.json: besides the package's own, folder stubs such as fp-ts/Either/package.json
    // ("main": "../lib/Either.js") resolve subpaths, and nested ones set "type".
    if (
      base === 'package.json' ||
      (top && /^(?:licen[cs]e|notice|copying)/i.test(base)) ||
      readAsFile?.(base, entry)
    )
      files.add(join(dir, entry));
  }
  files.add(join(dir, 'package.json'));
}
for (const file of files) copy(file);
for (const pkg of leftOut)
  process.stderr.write(`image-files: ${pkg} is not a production dependency: left out\n`);

// Each entry point loads from the copy alone (Node's own resolution, every require it makes).
const check = spawnSync(
  process.execPath,
  [
    '--input-type=commonjs',
    '-e',
    `const load = require('node:module').createRequire(${JSON.stringify(join(out, 'dist/bundle/cli.js'))});
     for (const spec of ${JSON.stringify(specifiers)}) load(spec);`,
  ],
  { cwd: out, stdio: 'inherit' },
);
if (check.status !== 0) {
  process.stderr.write('image-files: an entry point does not load from the copied files\n');
  process.exit(1);
}

let bytes = 0;
for (const file of files) bytes += readFileSync(file).length;
process.stdout.write(
  `image-files: ${out}: node_modules ${files.size} files (${(bytes / 1e6).toFixed(1)} MB) in ${packages.size} packages, from ${entryPoints.length} entry points\n`,
);
