#!/usr/bin/env node
// The quick start: what npm start, the passportal-docs-fake command (the package's bin) and the
// image run. It turns on Node's compile cache where the runtime has it (Node 22.1+; the image runs
// 24) for the files loaded on demand, then runs the CLI from the start-up bundle
// (dist/bundle/fake.cjs, built by scripts/bundle.mjs from the same code as cli.ts), loaded with
// V8's code cache of earlier starts on any Node version (compile-cache.ts).
// The first line makes the file an executable for any shell; this comment holds no backquotes,
// globs or other text a shell would run if the file were ever read as a script.
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { loadBundle } from './compile-cache.js';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const bundle = loadBundle(fileURLToPath(new URL('./bundle/fake.cjs', import.meta.url)));
await (bundle.runCli as () => Promise<unknown>)();
