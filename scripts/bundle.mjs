// Build step: bundles the server's start (the CLI and the programmatic API) into dist/bundle/ with
// esbuild, so a start reads a handful of files instead of resolving and compiling hundreds of
// modules. The same code as dist/*.js, which stays for types and for tools that read it.
// Dependencies that only some starts load (on first use: the fallback mocker, generation, certificates, the
// pretty log printer, YAML for an edited spec, Ajv when a validator is not precompiled) stay
// outside the bundle and load from node_modules when asked for.
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
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
  'junit-report-builder',
  // check-live and capture reach the live service through undici's proxy agent.
  'undici',
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

rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: { cli: 'dist/cli.js', index: 'dist/index.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: LAZY.flatMap((name) => [name, `${name}/*`]),
  plugins: [oneMimeTable],
  // Bundled CommonJS dependencies call `require` for Node's own modules.
  banner: {
    js: "import { createRequire as __fakeRequire } from 'node:module'; const require = __fakeRequire(import.meta.url);",
  },
  legalComments: 'linked',
  logLevel: 'warning',
});

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
  define: { 'import.meta.url': '__fakeImportMetaUrl' },
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
