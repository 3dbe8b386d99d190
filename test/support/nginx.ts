import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's nginx and its stream module (`.ci/run` installs both: apt-get install nginx libnginx-mod-stream). */
export const NGINX = '/usr/sbin/nginx';
export const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';

/** Fails with what to install when the machine lacks nginx or its stream module (never skips). */
export function requireNginx(): void {
  const missing = [NGINX, STREAM_MODULE].filter((path) => !existsSync(path));
  if (missing.length > 0)
    throw new Error(
      `${missing.join(' and ')} missing: install Debian's nginx and its stream module (apt-get install nginx libnginx-mod-stream; .ci/run does)`,
    );
}

export interface BalancerConfig {
  /** The loopback ports of the replicas, by ordinal. */
  replicas: ReadonlyMap<number, number>;
  /** Where nginx listens for HTTP (round-robin, or by owner with `ownerMap`). */
  httpPort: number;
  /** Where nginx listens for the forward proxy (TCP round-robin, `stream`). */
  proxyPort: number;
  /** Where nginx listens with deploy/nginx/fleet-owner-map.conf routing by owner, if at all. */
  ownerMapPort?: number;
  /** The map file to include for `ownerMapPort`. */
  ownerMapFile?: string;
}

/** nginx.conf for `config`: every path in nginx's prefix folder, loopback only, in the foreground. */
function configText(config: BalancerConfig): string {
  const servers = [...config.replicas.values()].map((port) => `server 127.0.0.1:${port};`).join(' ');
  const owners = [...config.replicas]
    .map(([ordinal, port]) => `  upstream fleet_${ordinal} { server 127.0.0.1:${port}; }`)
    .join('\n');
  const byOwner =
    config.ownerMapPort === undefined
      ? ''
      : `
  include ${config.ownerMapFile};
${owners}
  server {
    listen 127.0.0.1:${config.ownerMapPort};
    location / {
      proxy_pass http://$fleet_upstream;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      add_header x-test-upstream $upstream_addr always;
    }
  }`;
  return `load_module ${STREAM_MODULE};
daemon off;
master_process on;
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path body;
  proxy_temp_path proxy;
  fastcgi_temp_path fastcgi;
  uwsgi_temp_path uwsgi;
  scgi_temp_path scgi;
  client_max_body_size 0;
  upstream fleet { ${servers} }
  server {
    listen 127.0.0.1:${config.httpPort};
    location / {
      proxy_pass http://fleet;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      add_header x-test-upstream $upstream_addr always;
    }
  }${byOwner}
}
stream {
  upstream fleet_proxy { ${servers} }
  server {
    listen 127.0.0.1:${config.proxyPort};
    proxy_pass fleet_proxy;
  }
}
`;
}

export interface Balancer {
  url: string;
  proxyPort: number;
  /** Rewrites the configuration for `config` and has nginx reload it (SIGHUP), e.g. for a new replica. */
  reload(config: BalancerConfig): Promise<void>;
  stop(): Promise<void>;
  errorLog(): string;
}

/** Starts Debian's nginx in front of a fleet, its configuration, logs and temp files in a temp folder. */
export async function startBalancer(config: BalancerConfig): Promise<Balancer> {
  requireNginx();
  const prefix = mkdtempSync(join(tmpdir(), 'fleet-nginx-'));
  // Started as root, nginx's workers run as `nobody`: they must reach the temp folders it makes.
  chmodSync(prefix, 0o755);
  const confFile = join(prefix, 'nginx.conf');
  writeFileSync(confFile, configText(config));
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', `${prefix}/`, '-c', confFile, '-e', join(prefix, 'error.log')],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const errorLog = () => {
    const file = join(prefix, 'error.log');
    return `${output}${existsSync(file) ? readFileSync(file, 'utf8') : ''}`;
  };
  await waitUntil(async () => {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${errorLog()}`);
    return (
      (await fetch(`http://127.0.0.1:${config.httpPort}/__admin/health?partial=1`).catch(() => null)) !== null
    );
  }, `nginx on ${config.httpPort}`);
  return {
    url: `http://127.0.0.1:${config.httpPort}`,
    proxyPort: config.proxyPort,
    async reload(next) {
      writeFileSync(confFile, configText(next));
      child.kill('SIGHUP');
      // The new workers take over once nginx has read the file; wait until every upstream is named.
      await new Promise((done) => setTimeout(done, 500));
      if (child.exitCode !== null) throw new Error(`nginx exited on reload: ${errorLog()}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(prefix, { recursive: true, force: true });
    },
    errorLog,
  };
}

/** Polls `ready` every 50 ms for up to 10 s. */
export async function waitUntil(ready: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await ready()) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`${what} not ready within 10 s`);
}
