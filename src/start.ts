/**
 * The quick start: what `npm start`, the `passportal-docs-fake` command and the image run. It
 * turns on Node's compile cache where the runtime has it (Node 22.1+; the image runs 24), so later
 * starts skip compiling the code again, then runs the bundled CLI (`dist/bundle/cli.js`, built by
 * `scripts/bundle.mjs` from the same code as `cli.ts`).
 */
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// A variable, so the type check does not look for a file only the build makes.
const bundledCli = './bundle/cli.js';
await import(bundledCli);
