// Image build step, after scripts/image-files.mjs: starts the server once in the image's file
// tree (chroot ROOT, as the `node` user, with the image's environment but a throwaway TLS
// folder), waits for its health endpoint, runs the image's health check against it, and stops it
// with SIGTERM. That proves the FROM-scratch tree runs (its libraries, users, the traced
// node_modules, HTTPS with a generated CA), and leaves Node's compile cache of every module the
// start loaded in ROOT/app/.compile-cache (NODE_COMPILE_CACHE in the Dockerfile), so a container's
// start reads compiled code instead of compiling it again. The cache is then made read-only (root's,
// readable by all): a start that finds it valid uses it, and writes nothing.
//
//   node scripts/warm-image.mjs ROOT        (as root: chroot and chown)
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

const ROOT = resolve(process.argv[2] ?? '');
if (!process.argv[2]) {
  process.stderr.write('usage: node scripts/warm-image.mjs ROOT\n');
  process.exit(2);
}
const CHROOT = '/usr/sbin/chroot';
const CACHE = '/app/.compile-cache';
const TLS = '/tmp/warm-image-tls';

const fail = (message) => {
  process.stderr.write(`warm-image: ${message}\n`);
  process.exit(1);
};
const [, , uid, gid] = (
  readFileSync(join(ROOT, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((line) => line.startsWith('node:')) ?? fail('no node user in etc/passwd')
).split(':');

const freePort = () =>
  new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
const [port, httpsPort] = [await freePort(), await freePort()];

mkdirSync(join(ROOT, CACHE), { recursive: true });
chownSync(join(ROOT, CACHE), Number(uid), Number(gid));

const env = {
  PATH: '/usr/local/bin',
  NODE_ENV: 'production',
  NODE_COMPILE_CACHE: CACHE,
  HOST: '127.0.0.1',
  PORT: String(port),
  HTTPS_PORT: String(httpsPort),
  TLS_DIR: TLS,
  LOG_LEVEL: 'warn',
};
const inImage = (args) => ['--userspec=node:node', ROOT, '/usr/local/bin/node', ...args];

const server = spawn(CHROOT, inImage(['/app/docker/entrypoint.mjs']), { env, stdio: 'inherit' });
const exited = new Promise((done) => server.on('exit', (code, signal) => done({ code, signal })));
const started = Date.now();
for (;;) {
  if (server.exitCode !== null) fail(`the server exited with status ${server.exitCode} before answering`);
  if (Date.now() - started > 120_000) fail('the server did not answer within 120 s');
  const ok = await fetch(`http://127.0.0.1:${port}/__admin/health`).then(
    (res) => res.ok,
    () => false,
  );
  if (ok) break;
  await new Promise((done) => setTimeout(done, 100));
}
const check = spawnSync(CHROOT, inImage(['/app/docker/healthcheck.mjs']), { env, stdio: 'inherit' });
if (check.status !== 0) fail(`the health check failed (status ${check.status})`);
// The HTTPS port answers too (its certificate from the throwaway CA).
const https = spawnSync(
  CHROOT,
  inImage([
    '-e',
    `require('node:https').get({ host: '127.0.0.1', port: ${httpsPort}, path: '/__admin/health', rejectUnauthorized: false },
      (res) => process.exit(res.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1));`,
  ]),
  { env, stdio: 'inherit' },
);
if (https.status !== 0) fail(`HTTPS did not answer (status ${https.status})`);

server.kill('SIGTERM');
const { code, signal } = await exited;
if (code !== 0) fail(`the server stopped with ${signal ?? `status ${code}`} on SIGTERM`);

// Nothing of the run stays but the cache: not the CA (no key is ever in the image).
rmSync(join(ROOT, TLS), { recursive: true, force: true });
if (readdirSync(join(ROOT, 'tmp')).length > 0 || readdirSync(join(ROOT, 'tls')).length > 0)
  fail('the run left files in /tmp or /tls');
const lockDown = (path) => {
  chownSync(path, 0, 0);
  const directory = statSync(path).isDirectory();
  chmodSync(path, directory ? 0o755 : 0o644);
  if (directory) for (const name of readdirSync(path)) lockDown(join(path, name));
};
lockDown(join(ROOT, CACHE));
let files = 0;
for (const dir of readdirSync(join(ROOT, CACHE))) files += readdirSync(join(ROOT, CACHE, dir)).length;
if (files === 0) fail('no compile cache was written');
process.stdout.write(
  `warm-image: started, answered HTTP and HTTPS, stopped; ${files} modules in the compile cache\n`,
);
