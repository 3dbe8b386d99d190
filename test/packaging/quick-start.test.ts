import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultApiKey } from '../../src/index.js';
import { accessToken } from '../support/request-token.js';

/**
 * The quick start users get: `npm start`, the `passportal-docs-fake` command and the image run
 * `dist/start.js`, which runs the bundle the build makes (`dist/bundle/`); the package's entry
 * point is the bundle too. Both must be the same fake as the sources: found its spec, fixtures
 * and precompiled validators from the bundle's folder, and answer as the fake does.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });

let child: ChildProcess | undefined;
let base: string;

beforeAll(async () => {
  if (!existsSync(`${ROOT}/dist/bundle/cli.js`)) await run('npm', ['run', 'build'], { cwd: ROOT });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ['dist/start.js', '--port', String(port), '--log-level', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 500; i++) {
    const ok = await fetch(`${base}/__admin/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('dist/start.js never answered its health check');
}, 60_000);

afterAll(async () => {
  if (!child) return;
  const exited = new Promise((done) => child?.once('exit', done));
  child.kill('SIGTERM');
  await exited;
});

const token = (url: string) => accessToken(url, defaultApiKey(1));

describe('the bundled quick start', () => {
  it('serves the default fixtures and the spec like the sources do', async () => {
    const list = await fetch(`${base}/api/v2/documents?pageNum=1&resultsPerPage=5`, {
      headers: { 'x-access-token': await token(base) },
    });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { results: unknown[] }).results).toHaveLength(5);
    const spec = await fetch(`${base}/openapi.json`);
    expect(((await spec.json()) as { paths: Record<string, unknown> }).paths).toHaveProperty([
      '/api/v2/documents/clients',
    ]);
    const bad = await fetch(`${base}/api/v2/documents?pageNum=0`, {
      headers: { 'x-access-token': await token(base) },
    });
    expect(bad.status).toBe(404);
  });

  it('prints the package version', async () => {
    const { stdout } = await run(process.execPath, ['dist/start.js', '--version'], { cwd: ROOT });
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
      version: string;
    };
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('is the package entry point: createMockServer from the bundle answers as the fake', async () => {
    const entry = (await import(`${ROOT}/package.json`, { with: { type: 'json' } })).default as {
      exports: { '.': { default: string } };
    };
    const mod = (await import(
      `${ROOT}/${entry.exports['.'].default}`
    )) as typeof import('../../src/index.js');
    const mock = await mod.createMockServer({ logLevel: 'silent' });
    try {
      const url = await mock.listen(0, '127.0.0.1');
      const res = await fetch(`${url}/api/v2/documents/clients?pageNum=1`, {
        headers: { 'x-access-token': await token(url) },
      });
      expect(res.status).toBe(200);
      expect(await mock.violations()).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});
