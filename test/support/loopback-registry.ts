import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import semver from 'semver';

/**
 * An npm registry on 127.0.0.1, for running `npm install <name>` as printed without the network:
 * it serves one package from a tarball (its packument's only version, integrity and shasum of that
 * file) and every other package from a package-lock.json's entries, their tarballs read from npm's
 * cache by integrity (cacache, npm's own cache library). A tarball the cache lacks is answered 404
 * and named in `missing`. Beside it a trap stands as the proxy for every other host: whatever would
 * leave the machine lands there, is refused and is named in `escapes`.
 */

/** The part of cacache (CommonJS, no types of its own) read here. */
interface Cacache {
  get: {
    hasContent(cache: string, integrity: string): Promise<false | { sri: unknown; size: number }>;
    byDigest(cache: string, integrity: string, options?: { memoize?: boolean }): Promise<Buffer>;
  };
}
const cacache = createRequire(import.meta.url)('cacache') as Cacache;

/** The fields of a package-lock.json entry a packument's version carries. */
const LOCKED_FIELDS = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bin',
  'engines',
  'os',
  'cpu',
  'libc',
  'hasInstallScript',
  'deprecated',
  'license',
  'funding',
] as const;

interface LockEntry {
  name?: string;
  version?: string;
  integrity?: string;
  link?: boolean;
  [field: string]: unknown;
}

type Version = Record<string, unknown> & { version: string; dist: Record<string, string> };

export interface LoopbackRegistry {
  /** The registry's address, as `npm_config_registry` takes it (with its final slash). */
  url: string;
  /** Every request the registry answered, as `METHOD /path`. */
  requests: string[];
  /** `name@version` of every tarball asked for that npm's cache does not hold. */
  missing: string[];
  /** Every request that tried to leave the machine through the proxy. */
  escapes: string[];
  /** The environment npm runs in against this registry: its own cache and user config, the trap
   * as the proxy of every host but 127.0.0.1, and no other npm setting of the caller's. */
  npmEnv(scratch: string): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export interface RegistryOptions {
  /** The tarball served as its package's only version. */
  tarball: string;
  /** The package-lock.json whose entries make every other package. */
  lockFile: string;
  /** npm's cache folder (`npm config get cache`): its `_cacache` holds the locked tarballs. */
  npmCache: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A packument: every version, `latest` the highest release. */
function packument(name: string, versions: Map<string, Version>): Record<string, unknown> {
  const sorted = [...versions.keys()].sort(semver.rcompare);
  const latest = sorted.find((v) => semver.prerelease(v) === null) ?? sorted[0];
  return {
    name,
    'dist-tags': { latest },
    modified: new Date(0).toISOString(),
    versions: Object.fromEntries(sorted.map((v) => [v, versions.get(v)])),
  };
}

export async function startLoopbackRegistry(options: RegistryOptions): Promise<LoopbackRegistry> {
  const cache = join(options.npmCache, '_cacache');
  const requests: string[] = [];
  const missing: string[] = [];
  const escapes: string[] = [];
  const packages = new Map<string, Map<string, Version>>();
  /** Tarball path -> where its bytes come from. */
  const tarballs = new Map<string, { id: string; integrity: string; file?: string }>();

  const registry = createServer((req, res) => void answer(req, res));
  const port = await listen(registry);
  const url = `http://127.0.0.1:${port}/`;
  const trap = createServer((req, res) => {
    escapes.push(`${req.method} ${req.url}`);
    send(res, 502, 'this test allows no network: the request went to a host other than 127.0.0.1');
  });
  trap.on('connect', (req: IncomingMessage, socket) => {
    escapes.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 502 No network in this test\r\n\r\n');
  });
  const trapUrl = `http://127.0.0.1:${await listen(trap)}/`;

  function add(
    name: string,
    fields: Record<string, unknown>,
    version: string,
    integrity: string,
    shasum?: string,
  ) {
    const basename = name.split('/').at(-1);
    const path = `/${name}/-/${basename}-${version}.tgz`;
    const dist: Record<string, string> = { tarball: `${url}${path.slice(1)}`, integrity };
    if (shasum) dist.shasum = shasum;
    const versions = packages.get(name) ?? new Map<string, Version>();
    versions.set(version, { ...fields, name, version, dist });
    packages.set(name, versions);
    return path;
  }

  const lock = JSON.parse(readFileSync(options.lockFile, 'utf8')) as { packages: Record<string, LockEntry> };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const at = path.lastIndexOf('node_modules/');
    if (at < 0 || entry.link || !entry.version || !entry.integrity) continue;
    const name = entry.name ?? path.slice(at + 'node_modules/'.length);
    const fields = Object.fromEntries(LOCKED_FIELDS.filter((f) => f in entry).map((f) => [f, entry[f]]));
    const tarball = add(name, fields, entry.version, entry.integrity);
    tarballs.set(tarball, { id: `${name}@${entry.version}`, integrity: entry.integrity });
  }

  // The served package, from its tarball: its package.json's fields, the file's own checksums.
  const bytes = readFileSync(options.tarball);
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', options.tarball, 'package/package.json'], { encoding: 'utf8' }),
  ) as Record<string, unknown> & { name: string; version: string };
  const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  const shasum = createHash('sha1').update(bytes).digest('hex');
  packages.delete(manifest.name);
  const own = add(manifest.name, manifest, manifest.version, integrity, shasum);
  tarballs.set(own, { id: `${manifest.name}@${manifest.version}`, integrity, file: options.tarball });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(`${req.method} ${path}`);
    req.resume();
    if (req.method === 'POST' && path === '/-/npm/v1/security/advisories/bulk') {
      send(res, 200, {}); // no advisory for any of them
      return;
    }
    const tarball = tarballs.get(path);
    if (req.method === 'GET' && tarball) {
      try {
        if (tarball.file) {
          const data = readFileSync(tarball.file);
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': data.length });
          res.end(data);
          return;
        }
        if ((await cacache.get.hasContent(cache, tarball.integrity)) === false) {
          missing.push(tarball.id);
          send(res, 404, `${tarball.id} is not in npm's cache (${cache})`);
          return;
        }
        const data = await cacache.get.byDigest(cache, tarball.integrity, { memoize: false });
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': data.length });
        res.end(data);
      } catch (error) {
        send(res, 500, String(error));
      }
      return;
    }
    const name = decodeURIComponent(path.slice(1));
    const versions = req.method === 'GET' ? packages.get(name) : undefined;
    if (versions) send(res, 200, packument(name, versions));
    else send(res, 404, { error: 'Not found' });
  }

  return {
    url,
    requests,
    missing,
    escapes,
    npmEnv(scratch) {
      const env = Object.fromEntries(
        Object.entries(process.env).filter(([key]) => !/^npm_config_|^(https?|no|all)_proxy$/i.test(key)),
      );
      return {
        ...env,
        npm_config_registry: url,
        npm_config_cache: join(scratch, 'npm-cache'),
        npm_config_userconfig: join(scratch, 'npmrc'),
        npm_config_proxy: trapUrl,
        npm_config_https_proxy: trapUrl,
        npm_config_noproxy: '127.0.0.1',
        npm_config_update_notifier: 'false',
        // A refused or missing request fails at once rather than after npm's retries.
        npm_config_fetch_retries: '0',
      };
    },
    async close() {
      await Promise.all([close(registry), close(trap)]);
    },
  };
}
