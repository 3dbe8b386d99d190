// Build step: the browser pages' own files into dist/ui/ (served by src/http/ui-assets.ts):
//   inspector.html, assets/inspector.js + .css   the inspector (Preact, JSX compiled by esbuild)
//   docs.html, assets/docs.js                    the docs page's Swagger UI set-up
//   assets/passportal-signing.js + .d.ts         the signing helper pages import (ES module), also
//                                                the package's `passportal-docs-fake/signing` export
//   swagger-ui/                                  Swagger UI's files the docs page loads, with its
//                                                LICENSE and NOTICE, copied from swagger-ui-dist
// swagger-ui-dist is a development dependency only: an installed fake carries these few files, not
// the package (whose dependency announces an install script to every project installing the fake).
// Also run by the browser tests when dist/ui is missing or older than src/ui (`ensureUiBuilt`).
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src/ui');
const OUT = join(ROOT, 'dist/ui');

/** The files of swagger-ui-dist the docs page loads (src/http/front-pages.ts serves only these). */
export const SWAGGER_UI_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-16x16.png',
  'favicon-32x32.png',
];
/** Swagger UI's licence and notice, which go wherever its files go. */
const SWAGGER_UI_LEGAL = ['LICENSE', 'NOTICE'];

/**
 * Builds into a folder of its own, then swaps it in for dist/ui: a server already serving the
 * pages (a test run beside this one) never sees a half-written build.
 */
export async function buildUi() {
  const tmp = `${OUT}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'assets'), { recursive: true });
  await build({
    entryPoints: { inspector: join(SRC, 'inspector.tsx'), docs: join(SRC, 'docs.ts') },
    outdir: join(tmp, 'assets'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome109', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: ROOT,
  });
  // The signing helper pages import (served at /passportal-signing.js): readable, not minified.
  await build({
    entryPoints: { 'passportal-signing': join(SRC, 'signing.ts') },
    outdir: join(tmp, 'assets'),
    format: 'esm',
    platform: 'browser',
    target: ['chrome109', 'firefox115', 'safari16'],
    legalComments: 'inline',
    logLevel: 'warning',
    absWorkingDir: ROOT,
  });
  signingDeclarations(join(tmp, 'assets'));
  copyFileSync(join(SRC, 'inspector.css'), join(tmp, 'assets/inspector.css'));
  for (const page of ['inspector.html', 'docs.html']) copyFileSync(join(SRC, page), join(tmp, page));
  const swagger = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  mkdirSync(join(tmp, 'swagger-ui'));
  for (const file of [...SWAGGER_UI_FILES, ...SWAGGER_UI_LEGAL])
    copyFileSync(join(swagger, file), join(tmp, 'swagger-ui', file));
  rmSync(OUT, { recursive: true, force: true });
  renameSync(tmp, OUT);
}

const newest = (dir) =>
  Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );

/** Builds dist/ui unless it is there and newer than every file of src/ui. */
export async function ensureUiBuilt() {
  const marker = join(OUT, 'assets/inspector.js');
  const fresh =
    existsSync(marker) &&
    statSync(marker).mtimeMs >= newest(SRC) &&
    SWAGGER_UI_FILES.every((file) => existsSync(join(OUT, 'swagger-ui', file)));
  if (fresh) return false;
  await buildUi();
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildUi();

/**
 * The signing helper's declarations beside it (`passportal-signing.d.ts`), for projects that import
 * it as `passportal-docs-fake/signing`: written by the compiler from src/ui/signing.ts, so the
 * types are the source's own.
 */
function signingDeclarations(outDir) {
  const program = ts.createProgram([join(SRC, 'signing.ts')], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
  });
  const written = [];
  const result = program.emit(undefined, (name, text) => {
    if (name.endsWith('signing.d.ts')) written.push(text);
  });
  const problems = ts.getPreEmitDiagnostics(program).concat(result.diagnostics);
  if (problems.length > 0 || written.length !== 1) {
    const text = ts.formatDiagnostics(problems, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    });
    throw new Error(`src/ui/signing.ts: its declarations could not be written\n${text}`);
  }
  writeFileSync(join(outDir, 'passportal-signing.d.ts'), written[0]);
}
