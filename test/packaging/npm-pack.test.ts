/**
 * What `npm publish` would ship: `npm pack --dry-run --json` on the project itself. The package is
 * an allow-list (package.json `files`): the built code and pages (dist/ui), the spec, the default fixtures, README,
 * licence and what builds the image from the package (docker/package.Dockerfile and the two scripts
 * it copies), and the pages and examples the docs link to (docs/images, BENCHMARKS.md, examples/);
 * nothing else (no sources, tests, test fixtures, bench, the repository's Dockerfile or local state). Builds dist/ first when it is missing (as `prepare` does before a real pack).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface PackResult {
  files: Array<{ path: string; size: number }>;
  size: number;
  unpackedSize: number;
}

const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as {
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports?: Record<string, unknown>;
};

/** Every top-level entry a published package may hold. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  // The pages the README links to, so its links work in node_modules too.
  /^docs\/[a-z-]+\.md$/,
  /^docs\/images\/[a-z-]+\.png$/,
  /^BENCHMARKS\.md$/,
  // The examples the docs link to (Compose, CI, the frontend page, the Testcontainers suite, a fixture set).
  /^examples\//,
  /^LICENSE$/,
  /^dist\//,
  /^spec\//,
  /^fixtures\/default\//,
  // What docker/package.Dockerfile builds the image from the installed package with.
  /^docker\/(entrypoint\.mjs|healthcheck\.mjs|healthcheck\.sh|package\.Dockerfile)$/,
];

let files: string[];
let result: PackResult;

beforeAll(async () => {
  const built = ['dist/index.js', 'dist/index.d.ts', 'dist/cli.js'].every((f) => existsSync(`${ROOT}/${f}`));
  if (!built) await run(npm, ['run', 'build'], { cwd: ROOT });
  // --ignore-scripts: report on dist/ as it is, without rebuilding it under other tests' feet.
  const { stdout } = await run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  result = (JSON.parse(stdout) as PackResult[])[0] as PackResult;
  files = result.files.map((f) => f.path).sort();
}, 120_000);

describe('the npm package', () => {
  it('ships the built code with its type declarations', () => {
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/cli.js']));
  });

  it('ships every file package.json points at (main, types, bin, exports)', () => {
    const targets = new Set<string>();
    const collect = (value: unknown): void => {
      if (typeof value === 'string') targets.add(value.replace(/^\.\//, ''));
      else if (value && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect([pkg.main, pkg.types, pkg.bin, pkg.exports]);
    for (const target of targets) {
      if (target.includes('*')) {
        const prefix = target.slice(0, target.indexOf('*'));
        expect(
          files.some((f) => f.startsWith(prefix)),
          target,
        ).toBe(true);
      } else {
        expect(files, target).toContain(target);
      }
    }
  });

  it('ships the spec and the whole default fixture set', () => {
    expect(files).toEqual(expect.arrayContaining(['spec/openapi.yaml', 'spec/fixtures.schema.json']));
    const fixtures = readdirSync(`${ROOT}/fixtures/default`).map((f) => `fixtures/default/${f}`);
    expect(fixtures.length).toBeGreaterThan(0);
    expect(files).toEqual(expect.arrayContaining(fixtures));
  });

  it('ships the built pages: the inspector and the docs page, with their scripts and styles', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/ui/inspector.html',
        'dist/ui/assets/inspector.js',
        'dist/ui/assets/inspector.css',
        'dist/ui/docs.html',
        'dist/ui/assets/docs.js',
        // Swagger UI's files the docs page loads, with its licence and notice (the build copies
        // them: swagger-ui-dist is no dependency of the installed fake).
        'dist/ui/swagger-ui/swagger-ui.css',
        'dist/ui/swagger-ui/swagger-ui-bundle.js',
        'dist/ui/swagger-ui/favicon-16x16.png',
        'dist/ui/swagger-ui/favicon-32x32.png',
        'dist/ui/swagger-ui/LICENSE',
        'dist/ui/swagger-ui/NOTICE',
        // The signing helper pages import from the fake (/passportal-signing.js).
        'dist/ui/assets/passportal-signing.js',
      ]),
    );
  });

  it('installs no dependency with an install script (npm would announce it to every project installing the fake)', () => {
    // What `npm install passportal-docs-fake` installs is what the lock file holds for production:
    // no entry of it may have a preinstall, install or postinstall script.
    const lock = JSON.parse(readFileSync(`${ROOT}/package-lock.json`, 'utf8')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true && entry.dev !== true)
      .map(([path]) => path);
    expect(withScripts).toEqual([]);
  });

  it('ships README, licence and package.json', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json']));
  });

  it('ships every docs/ page the README links to', () => {
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const pages = [...readme.matchAll(/\]\((docs\/[a-z-]+\.md)[#)]/g)].map((m) => m[1] ?? '');
    expect(pages.length).toBeGreaterThan(5);
    expect(files).toEqual(expect.arrayContaining(pages));
  });

  it('ships nothing else: no sources, tests, test fixtures, bench or local files', () => {
    const unexpected = files.filter((f) => !ALLOWED.some((pattern) => pattern.test(f)));
    expect(unexpected).toEqual([]);
    // The example suites (examples/testcontainers) are for reading and copying, not the project's tests.
    const ownFiles = files.filter((f) => !f.startsWith('examples/'));
    expect(ownFiles.filter((f) => /\.test\.|(^|\/)test\/|\.tsbuildinfo$/.test(f))).toEqual([]);
  });

  it('ships no source maps that point at sources it does not ship', () => {
    const maps = files.filter((f) => f.endsWith('.map'));
    const dangling = maps.filter((map) => {
      const { sources = [] } = JSON.parse(readFileSync(`${ROOT}/${map}`, 'utf8')) as { sources?: string[] };
      const dir = map.slice(0, map.lastIndexOf('/') + 1);
      return sources.some((s) => !files.includes(new URL(s, `file:///${dir}`).pathname.slice(1)));
    });
    expect(dangling).toEqual([]);
  });

  it('ships no key or certificate: a CA is generated where the fake runs, never shipped', () => {
    expect(files.filter((f) => /\.(pem|key|crt|p12|pfx)$/.test(f))).toEqual([]);
    const withKey = files.filter((f) => readFileSync(`${ROOT}/${f}`, 'latin1').includes('PRIVATE KEY-----'));
    expect(withKey).toEqual([]);
  });

  it('stays small', () => {
    // About 0.9 MB packed with the ESM build alone; the minified CommonJS build adds about 0.3 MB,
    // and the examples and pictures the docs link to (so a user's copy of the docs has no broken
    // link) about 0.3 MB more, and the Swagger UI files of the docs page about 0.5 MB (in place of
    // the swagger-ui-dist package a user would otherwise install: 3.4 MB packed).
    expect(result.size).toBeLessThan(2.5 * 1024 * 1024);
  });
});
