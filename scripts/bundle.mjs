// Build step: bundles the server's start (the CLI and the programmatic API) into dist/bundle/ with
// esbuild, so a start reads a handful of files instead of resolving and compiling hundreds of
// modules. The same code as dist/*.js, which stays for types and for tools that read it.
// Dependencies that only some starts load (on first use: the fallback mocker, generation, the
// pretty log printer, YAML for an edited spec, Ajv when a validator is not precompiled) stay
// outside the bundle and load from node_modules when asked for.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const LAZY = ['@stoplight/prism-http', 'json-schema-faker', 'pino-pretty', 'yaml', 'ajv', 'ajv-formats'];

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
  // Bundled CommonJS dependencies call `require` for Node's own modules.
  banner: {
    js: "import { createRequire as __fakeRequire } from 'node:module'; const require = __fakeRequire(import.meta.url);",
  },
  legalComments: 'linked',
  logLevel: 'warning',
});
