#!/usr/bin/env node
// The quick start: what npm start, the passportal-docs-fake command (the package's bin) and the
// image run. It turns on Node's compile cache where the runtime has it (Node 22.1+; the image runs
// 24), so later starts skip compiling the code again, then runs the bundled CLI
// (dist/bundle/cli.js, built by scripts/bundle.mjs from the same code as cli.ts).
// The first line makes the file an executable for any shell; this comment holds no backquotes,
// globs or other text a shell would run if the file were ever read as a script.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// A variable, so the type check does not look for a file only the build makes.
const bundledCli = './bundle/cli.js';
await import(bundledCli);
