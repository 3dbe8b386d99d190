// Build step: bundles the server's start (the CLI and the programmatic API) into dist/bundle/ with
// esbuild, so a start reads a handful of files instead of resolving and compiling hundreds of
// modules. The same code as dist/*.js, which stays for types and for tools that read it.
// Dependencies that only some starts load (on first use: the fallback mocker, generation, certificates, the
// pretty log printer, YAML for an edited spec, Ajv when a validator is not precompiled) stay
// outside the bundle and load from node_modules when asked for.
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

const LAZY = [
  '@stoplight/prism-http',
  'json-schema-faker',
  'pino-pretty',
  'yaml',
  'ajv',
  'ajv-formats',
  // Loaded only when a certificate has to be made (HTTPS on, first start or a new host name).
  'node-forge',
  // The report writers: ctrf reads its JSON schemas from its own folder, so it must stay there.
  'ctrf',
  'xmlbuilder',
  // check-live and capture reach the live service through undici's proxy agent.
  'undici',
  // The MCP server (the mcp command, --mcp-http) and what it loads: zod, hono and the rest.
  '@modelcontextprotocol/sdk',
];

// Express, body-parser, send and type-is each get their own copy of the same mime-types and
// mime-db versions from npm (another version is hoisted for a lazily loaded dependency), and each
// copy builds its extension tables at start-up. Within the bundle they all resolve to Express's.
const fromExpress = createRequire(createRequire(import.meta.url).resolve('express'));
const oneMimeTable = {
  name: 'one-mime-table',
  setup(build) {
    build.onResolve({ filter: /^mime-(types|db)$/ }, (args) => ({ path: fromExpress.resolve(args.path) }));
  },
};

// Bundled, but not loaded at start: modules that only some requests need and that cost a start
// much (mime-types builds its tables from mime-db, iconv-lite is half a megabyte of code page
// tables, qs and what it requires). Each is bundled into a file of its own in
// dist/bundle/deferred/ (the very copy its importers resolve to, as the bundle would hold it);
// the start-up bundle holds a stand-in that loads that file on its first use.
const DEFERRED = /^(mime-types|qs|iconv-lite)$/;
/** Resolved path of each deferred module: its file name in dist/bundle/deferred/. */
const deferred = new Map();
const deferredName = (path) => {
  let name = deferred.get(path);
  if (name === undefined) {
    const base = /node_modules\/((?:@[^/]+\/)?[^/]+)\/[^/]*$/.exec(
      path.replace(/\/(lib\/)?index\.js$/, '/x'),
    )?.[1];
    const taken = new Set(deferred.values());
    name = (base ?? 'module').replace('/', '+');
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    deferred.set(path, name);
  }
  return name;
};
const deferModules = {
  name: 'defer-modules',
  setup(build) {
    build.onResolve({ filter: DEFERRED }, (args) => {
      const from = args.path === 'mime-types' ? fromExpress : createRequire(args.importer);
      return { path: from.resolve(args.path), namespace: 'deferred' };
    });
    build.onResolve({ filter: /^\.\/deferred\// }, (args) =>
      args.namespace === 'deferred' ? { path: args.path, external: true } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'deferred' }, (args) => ({
      loader: 'js',
      contents: `// Stand-in for ${relative(process.cwd(), args.path)}: loaded on first use.
let loaded;
const load = () => (loaded ??= require('./deferred/${deferredName(args.path)}.cjs'));
module.exports = new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => {
    const found = Reflect.getOwnPropertyDescriptor(load(), key);
    return found && { ...found, configurable: true };
  },
});
`,
    }));
  },
};

// This build's id, compiled into both bundles: the default fixture set's copy (written last) is
// read only by code of the build that wrote it (src/domain/fixtures/load-fixtures.ts).
const BUILD_ID = randomUUID();

rmSync('dist/bundle', { recursive: true, force: true });

// One CommonJS file for both starts (the CLI and the programmatic API): Node loads it through
// dist/compile-cache.js, which keeps V8's code cache between starts on every Node version. The
// CLI runs when `runCli()` is called; the programmatic API is its other exports.
await build({
  stdin: {
    contents: "export * from './dist/index.js';\nexport const runCli = () => import('./dist/cli.js');\n",
    resolveDir: process.cwd(),
    sourcefile: 'start-bundle.js',
    loader: 'js',
  },
  outfile: 'dist/bundle/fake.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  external: LAZY.flatMap((name) => [name, `${name}/*`]),
  define: { 'import.meta.url': '__fakeImportMetaUrl', __FAKE_BUILD_ID__: JSON.stringify(BUILD_ID) },
  plugins: [deferModules, oneMimeTable],
  banner: { js: "const __fakeImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  legalComments: 'linked',
  logLevel: 'warning',
});
// The script is compiled without a module loader for `import()`: the lazily loaded dependencies it
// imports dynamically (all CommonJS; the code reads them either way) are required instead.
{
  const file = 'dist/bundle/fake.cjs';
  const lazy = new RegExp(`(?<![\\w.$])import\\(("(?:${LAZY.join('|')})(?:/[^"]*)?")\\)`, 'g');
  const text = readFileSync(file, 'utf8').replace(lazy, 'Promise.resolve().then(() => require($1))');
  const left = /(?<![\w.$])import\(/.exec(text);
  if (left) throw new Error(`${file}: import() left at ${text.slice(left.index, left.index + 80)}`);
  writeFileSync(file, text);
}
// The ES module entries: the package's main (the programmatic API's names, taken from the compiled
// index) and the CLI that dist/start.js runs, each loading the bundle above.
const names = Object.keys(await import('../dist/index.js')).sort();
const load =
  "import { fileURLToPath } from 'node:url';\nimport { loadBundle } from '../compile-cache.js';\n" +
  "const fake = loadBundle(fileURLToPath(new URL('./fake.cjs', import.meta.url)));\n";
writeFileSync(
  'dist/bundle/index.js',
  `// Generated by scripts/bundle.mjs: the programmatic API, from the start-up bundle.\n${load}export const {\n${names.map((n) => `  ${n},\n`).join('')}} = fake;\n`,
);
writeFileSync(
  'dist/bundle/cli.js',
  `// Generated by scripts/bundle.mjs: the command line, from the start-up bundle.\n${load}await fake.runCli();\n`,
);
for (const [path, name] of deferred) {
  await build({
    entryPoints: [path],
    outfile: `dist/bundle/deferred/${name}.cjs`,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.19',
    plugins: [oneMimeTable],
    legalComments: 'linked',
    logLevel: 'warning',
  });
}

// CommonJS builds of the package's entries (`require('passportal-docs-fake')`, Jest, tools that
// load CommonJS only): the same compiled code bundled into one file each, in dist/cjs, which a
// package.json of its own marks CommonJS. `import.meta.url` becomes this file's URL. The type
// declarations are copied beside them, so TypeScript reads them as CommonJS for a `require`.
rmSync('dist/cjs', { recursive: true, force: true });
await build({
  entryPoints: { index: 'dist/index.js', testcontainers: 'dist/testcontainers/index.js' },
  outdir: 'dist/cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  external: [...LAZY, 'testcontainers'].flatMap((name) => [name, `${name}/*`]),
  define: { 'import.meta.url': '__fakeImportMetaUrl', __FAKE_BUILD_ID__: JSON.stringify(BUILD_ID) },
  plugins: [oneMimeTable],
  // Minified (names kept): a second copy of the code, kept small in the package.
  minify: true,
  keepNames: true,
  banner: { js: "const __fakeImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  legalComments: 'linked',
  logLevel: 'warning',
});
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
for (const file of readdirSync('dist', { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.d.ts') || /^(cjs|bundle|ui)\//.test(file)) continue;
  mkdirSync(dirname(join('dist/cjs', file)), { recursive: true });
  copyFileSync(join('dist', file), join('dist/cjs', file));
}

// The default fixture set, validated and completed as the bundled code does it at a start, for
// starts of this build to read instead (keyed by this build's id and the files' contents).
const { DEFAULT_SET_CACHE_PATH, defaultSetCacheText } = await import(
  '../dist/domain/fixtures/load-fixtures.js'
);
const cached = await defaultSetCacheText(BUILD_ID);
rmSync(DEFAULT_SET_CACHE_PATH, { force: true });
if (cached === undefined)
  console.warn('bundle: the default fixture set cannot be kept; starts will validate it');
else writeFileSync(DEFAULT_SET_CACHE_PATH, cached);
