import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPod } from 'kubernetes-models/v1/Pod';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { BUDGET_SHARES, HEAP_SHARE } from '../../src/memory-budget.js';
import { KUBERNETES, one, podOf, ROOT, render, resolvedEnv } from '../support/kustomize.js';
import { accessToken } from '../support/request-token.js';

/**
 * The Kubernetes base run for real: the pod the StatefulSet's controller would make from
 * `kubectl kustomize deploy/kubernetes` (its name, host name, volume claim), played with
 * `podman kube play` on the suite's engine, as the image the suite built, with the Secrets made
 * as docs/kubernetes.md says (the CA by its OpenSSL command). The kubelet's probes are made from
 * the node to the pod's address, as the kubelet makes them; Podman would instead run them as curl
 * inside the container, which the image does not carry, so they are taken out of the played pod.
 * Then: the admin token and the CA come from the Secrets, the root file system is read-only, the
 * memory limit holds the heap and the budget, and the root's state survives two restarts of the
 * pod: a clean stop (a rollout, a drain) and a SIGKILL (as an OOM kill is), after which the fake
 * takes its lock over at once.
 */

const run = promisify(execFile);
const image = inject('fakeImage');
const MiB = 1024 * 1024;
/** As test/kubernetes/manifests.test.ts and docs/kubernetes.md: Node itself beside the heap. */
const NODE_RESERVE = 128 * MiB;
const NAMESPACE = 'passportal-fake';

/** The engine's API socket, for the podman client (`podman --url`). */
function engineUrl(): string {
  const host = process.env.DOCKER_HOST ?? 'unix:///run/podman/podman.sock';
  if (!host.startsWith('unix://'))
    throw new Error(`DOCKER_HOST ${host}: podman kube play needs the engine's unix socket`);
  return host;
}

async function podman(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('podman', ['--url', engineUrl(), ...args], {
      maxBuffer: 16 * MiB,
      timeout: 120_000,
    });
    return stdout;
  } catch (error) {
    const { code, stderr } = error as NodeJS.ErrnoException & { stderr?: string };
    if (code === 'ENOENT')
      throw new Error(
        'podman is not on PATH: this suite plays the pod with `podman kube play` (the container-engine tool installs it)',
      );
    throw new Error(`podman ${args.join(' ')} failed: ${stderr ?? String(error)}`);
  }
}

/** What the fake wrote, standard output and error together. */
async function logsOf(name: string, tail = 50): Promise<string> {
  const { stdout, stderr } = await run(
    'podman',
    ['--url', engineUrl(), 'logs', '--tail', String(tail), name],
    {
      maxBuffer: 16 * MiB,
    },
  );
  return stdout + stderr;
}

/** A Secret the pod reads by `secretKeyRef`, as Podman reads it: a JSON map of base64 values. */
async function createEnvSecret(name: string, data: Record<string, string>): Promise<void> {
  const encoded = Object.fromEntries(
    Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  );
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify(encoded), { mode: 0o600 });
  await podman('secret', 'create', name, file);
}

/**
 * A Secret the pod mounts, as the kubelet mounts it: its keys as files owned by root and the
 * pod's fsGroup, with the volume's defaultMode, in a folder the pod gets as a host path. (Podman
 * 4.3 would write a Secret's `data` still base64-encoded.)
 */
function secretFolder(name: string, data: Record<string, string>, pod: IPod): string {
  const volume = pod.spec?.volumes?.find((v) => v.secret?.secretName === name);
  const folder = join(work, 'secrets', name);
  mkdirSync(folder, { recursive: true, mode: 0o755 });
  chmodSync(folder, 0o755);
  for (const [key, value] of Object.entries(data)) {
    const file = join(folder, key);
    writeFileSync(file, value);
    chownSync(file, 0, pod.spec?.securityContext?.fsGroup ?? 0);
    chmodSync(file, volume?.secret?.defaultMode ?? 0o644);
  }
  return folder;
}

/** The kubelet's HTTP probe: a GET from the node to the pod's address, 200–399 within timeoutSeconds. */
async function probeOnce(probe: IProbe, ip: string, ports: Record<string, number>): Promise<boolean> {
  const get = probe.httpGet;
  if (get === undefined) throw new Error('only HTTP probes are made here');
  const port = typeof get.port === 'number' ? get.port : ports[get.port];
  try {
    const res = await fetch(`http://${ip}:${port}${get.path ?? '/'}`, {
      headers: { 'user-agent': 'kube-probe/1.32' },
      signal: AbortSignal.timeout((probe.timeoutSeconds ?? 1) * 1000),
    });
    await res.arrayBuffer();
    return res.status >= 200 && res.status < 400;
  } catch {
    return false;
  }
}

/**
 * Probes until the probe succeeds, as often and as many times as it allows. A fake that exits
 * meanwhile (a bad Secret, a refused state file) fails at once, with its last words.
 */
async function probeUntilReady(probe: IProbe, ip: string, ports: Record<string, number>): Promise<void> {
  for (let attempt = 0; attempt < (probe.failureThreshold ?? 3); attempt++) {
    if (await probeOnce(probe, ip, ports)) return;
    const state = JSON.parse(await podman('inspect', containerName))[0] as {
      RestartCount?: number;
      State: { Status: string };
    };
    if ((state.RestartCount ?? 0) > 0 || state.State.Status === 'exited') {
      throw new Error(`the fake stopped before its probe passed:\n${await logsOf(containerName, 20)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, (probe.periodSeconds ?? 10) * 1000));
  }
  throw new Error(
    `the probe of ${probe.httpGet?.path} did not pass within its ${probe.failureThreshold} attempts`,
  );
}

const httpsGet = (url: string, ca: string, servername: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    request(url, { ca, servername }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });

let work = '';
let played: IPod;
let playFile = '';
let adminToken = '';
let caPem = '';
const statefulSet = one<IStatefulSet>(render(KUBERNETES), 'StatefulSet');
const { pod: rendered, claims } = podOf(statefulSet);
const container = rendered.spec?.containers[0];
const podName = rendered.metadata?.name ?? '';
const containerName = `${podName}-${container?.name}`;
const ports = Object.fromEntries((container?.ports ?? []).map((p) => [p.name ?? '', p.containerPort]));
const secretNames = [
  ...new Set((container?.env ?? []).flatMap((e) => e.valueFrom?.secretKeyRef?.name ?? [])),
];

/** Removes what playing the pod made: the pod, its claim's volume, the volumes Podman makes for its emptyDir volumes, the Secrets. */
async function cleanUp(): Promise<void> {
  await podman('pod', 'rm', '--force', '--ignore', podName).catch(() => undefined);
  const volumes = [
    ...claims.map((claim) => claim.metadata?.name ?? ''),
    ...(rendered.spec?.volumes ?? []).flatMap((v) => (v.emptyDir ? v.name : [])),
  ];
  for (const volume of volumes) await podman('volume', 'rm', '--force', volume).catch(() => undefined);
  for (const name of secretNames) await podman('secret', 'rm', name).catch(() => undefined);
}

/** Plays the pod and probes it ready as the kubelet would; its address and the seconds to ready. */
async function play(): Promise<{ ip: string; ready: number }> {
  const started = performance.now();
  // A new pod's emptyDir volumes start empty (Podman 4.3 keeps them as named volumes).
  for (const volume of rendered.spec?.volumes ?? []) {
    if (volume.emptyDir) await podman('volume', 'rm', '--force', volume.name);
  }
  await podman('kube', 'play', playFile);
  const infra = (await podman('pod', 'inspect', '--format', '{{.InfraContainerID}}', podName)).trim();
  const ip = (
    await podman('inspect', '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', infra)
  ).trim();
  expect(ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  const probes = [container?.startupProbe, container?.readinessProbe, container?.livenessProbe];
  await probeUntilReady(probes[0] as IProbe, ip, ports);
  // Once started, readiness and liveness pass on their first try.
  for (const probe of probes.slice(1)) expect(await probeOnce(probe as IProbe, ip, ports)).toBe(true);
  return { ip, ready: (performance.now() - started) / 1000 };
}

/**
 * A GET of the admin API under a host name, as a team in the cluster calls it by the Service's
 * name (fetch would send the address's own Host, whatever it is given).
 */
const adminCall = (
  method: string,
  url: string,
  host: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      host,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    })
      .on('error', reject)
      .end(body === undefined ? undefined : JSON.stringify(body));
  });
const adminGet = (url: string, host: string, token?: string) => adminCall('GET', url, host, token);

describe.skipIf(!image)('the Kubernetes base, played as a pod', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'kubernetes-pod-'));
    await cleanUp();
    // The Secrets as docs/kubernetes.md makes them: a random admin token, the CA by its command.
    const doc = readFileSync(join(ROOT, 'docs/kubernetes.md'), 'utf8');
    const caBlock = /<!-- kubernetes-ca:start -->\n```sh\n([\s\S]*?)```\n<!-- kubernetes-ca:end -->/.exec(
      doc,
    )?.[1];
    expect(caBlock).toBeDefined();
    await run('bash', ['-euc', caBlock as string], { cwd: work });
    caPem = readFileSync(join(work, 'ca.pem'), 'utf8');
    adminToken = randomBytes(32).toString('hex');
    await createEnvSecret('passportal-fake-admin', { token: adminToken });
    const caFolder = secretFolder(
      'passportal-fake-ca',
      { 'tls.crt': caPem, 'tls.key': readFileSync(join(work, 'ca-key.pem'), 'utf8') },
      rendered,
    );
    // The rendered pod, as the suite's image, without the probes Podman would run inside it, with
    // its variables as the kubelet resolves them (Podman 4.3 resolves neither the pod's namespace
    // nor `$(NAME)` references), and the CA's Secret mounted from its folder.
    const { startupProbe, readinessProbe, livenessProbe, ...withoutProbes } = container ?? { name: '' };
    expect([startupProbe, readinessProbe, livenessProbe].every(Boolean)).toBe(true);
    const env = resolvedEnv(withoutProbes, NAMESPACE);
    const volumes = (rendered.spec?.volumes ?? []).map(
      (volume): IVolume =>
        volume.secret?.secretName === 'passportal-fake-ca'
          ? { name: volume.name, hostPath: { path: caFolder, type: 'Directory' } }
          : volume,
    );
    expect(volumes.filter((v) => v.secret)).toEqual([]);
    played = structuredClone({
      ...rendered,
      spec: { ...rendered.spec, volumes, containers: [{ ...withoutProbes, env, image }] },
    }) as IPod;
    // The claims are made once, as the StatefulSet's controller makes them; each start plays the pod.
    const claimFile = join(work, 'claims.yaml');
    writeFileSync(claimFile, claims.map((o) => stringify(o)).join('---\n'));
    await podman('kube', 'play', claimFile);
    playFile = join(work, 'pod.yaml');
    writeFileSync(playFile, stringify(played));
  }, 120_000);

  afterAll(async () => {
    await cleanUp();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('starts with its probes passing, its Secrets, a read-only root and the memory limit; keeps the root state and a session across a clean restart and a kill', async () => {
    const first = await play();
    const base = `http://${first.ip}:${ports.http}`;

    // The admin token from its Secret; the admin API answers to the Service's names in the pod's
    // namespace (ADMIN_HOSTS made from it), and to no other name.
    const service = `passportal-fake.${NAMESPACE}.svc`;
    expect((await adminGet(`${base}/__admin/state`, service)).status).toBe(401);
    expect(
      (await adminGet(`${base}/__admin/state`, 'passportal-fake.elsewhere.example', adminToken)).status,
    ).toBe(403);
    const state = await adminGet(`${base}/__admin/state`, service, adminToken);
    expect(state.status).toBe(200);
    const key = (JSON.parse(state.body) as { apiKeys: Array<{ keyId: string; secret: string }> }).apiKeys[0];
    expect(key).toBeDefined();

    // The CA from its Secret: served to clients, and signing the vendor host's certificate.
    expect(await (await fetch(`${base}/__admin/tls/ca.pem`)).text()).toBe(caPem);
    const tls = await httpsGet(
      `https://${first.ip}:${ports.https}/__admin/health`,
      caPem,
      'us-clover.passportalmsp.com',
    );
    expect(tls.status).toBe(200);

    // As the security context says: uid 1000, nothing written outside the volumes.
    const inspect = JSON.parse(await podman('inspect', containerName))[0] as {
      HostConfig: { ReadonlyRootfs: boolean; Memory: number };
    };
    expect(inspect.HostConfig.ReadonlyRootfs).toBe(true);
    const shell = await podman(
      'exec',
      containerName,
      'sh',
      '-c',
      // /home/node is the node user's own folder in the image: only a read-only root stops a write there.
      'grep ^Uid /proc/1/status; (: > /home/node/written) 2>/dev/null && echo root-writable || echo root-read-only; grep VmRSS /proc/1/status',
    );
    expect(shell).toMatch(/^Uid:\s+1000\s+1000\s+1000\s+1000\nroot-read-only\n/);

    // The memory limit holds the heap (as this image's Node sizes it), the bodies and Node itself.
    const limit = inspect.HostConfig.Memory;
    expect(limit).toBeGreaterThan(0);
    const health = (await (await fetch(`${base}/__admin/health`)).json()) as {
      memory: { heapLimit: number; heapUsed: number; total: { limit: number } };
    };
    const { heapLimit, heapUsed, total } = health.memory;
    expect(String(total.limit)).toBe(container?.env?.find((e) => e.name === 'MEMORY_BUDGET')?.value);
    expect(total.limit).toBeLessThanOrEqual(heapLimit * HEAP_SHARE);
    expect(heapLimit + BUDGET_SHARES.bodies * total.limit + NODE_RESERVE).toBeLessThanOrEqual(limit);
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(shell)?.[1]) * 1024;
    console.log(
      `kubernetes pod: ready in ${first.ready.toFixed(1)} s; limit ${limit / MiB} MiB, heap limit ${(heapLimit / MiB).toFixed(0)} MiB, ` +
        `budget ${total.limit / MiB} MiB; at idle RSS ${(rss / MiB).toFixed(0)} MiB of which heap ${(heapUsed / MiB).toFixed(0)} MiB`,
    );
    expect(rss - heapUsed).toBeLessThan(NODE_RESERVE);

    // A client changes a document, then the pod is replaced after a clean stop.
    const token = await accessToken(base, key as { keyId: string; secret: string });
    const patch = async (url: string, text: string) => {
      const res = await fetch(`${url}/api/v2/documents/101101`, {
        method: 'PATCH',
        headers: { 'x-access-token': token, 'content-type': 'application/json' },
        body: JSON.stringify({ name: { name: 'Name', description: '', value: { type: 'string', text } } }),
      });
      expect(res.status).toBe(200);
    };
    const nameOf = async (url: string) => {
      const res = await fetch(`${url}/api/v2/documents/101101`, { headers: { 'x-access-token': token } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { details: Record<string, { value: { text?: string } }> };
      return body.details.name?.value.text;
    };
    await patch(base, 'Changed before a clean restart');
    // A team's session with keys of its own, used at the root URL as a pinned client uses it.
    const created = await adminCall('POST', `${base}/__admin/sessions`, service, adminToken, { keys: 'own' });
    expect(created.status).toBe(201);
    const session = JSON.parse(created.body) as {
      id: string;
      keys: Array<{ keyId: string; secret: string }>;
    };
    const sessionKey = session.keys[0] as { keyId: string; secret: string };
    const sessionToken = await accessToken(base, sessionKey);
    const sessionDocument = async (url: string, init?: RequestInit) =>
      fetch(`${url}/api/v2/documents/101101`, {
        ...init,
        headers: { 'x-access-token': sessionToken, 'content-type': 'application/json' },
      });
    const sessionText = 'Changed in a session before the restarts';
    const changed = await sessionDocument(base, {
      method: 'PATCH',
      body: JSON.stringify({
        name: { name: 'Name', description: '', value: { type: 'string', text: sessionText } },
      }),
    });
    expect(changed.status).toBe(200);

    const stateDir = (
      await podman('volume', 'inspect', '--format', '{{.Mountpoint}}', claims[0]?.metadata?.name ?? '')
    ).trim();
    const stateFile = container?.env?.find((e) => e.name === 'STATE_FILE')?.value ?? '';
    const lock = join(stateDir, `${stateFile.split('/').pop()}.lock`);
    expect(existsSync(lock)).toBe(true);
    // Stopped as the kubelet stops a pod: SIGTERM, then the pod's grace period (Podman's own stop
    // of a pod played through its API would send SIGKILL at once).
    const grace = String(rendered.spec?.terminationGracePeriodSeconds ?? 30);
    await podman('pod', 'stop', '--time', grace, podName);
    await podman('pod', 'rm', podName);
    // A clean stop gives the lock up.
    expect(existsSync(lock)).toBe(false);
    const second = await play();
    const afterStop = `http://${second.ip}:${ports.http}`;
    // The document, and the token the client already holds.
    expect(await nameOf(afterStop)).toBe('Changed before a clean restart');

    // Killed as the kernel kills for memory: no clean stop, the lock left behind.
    await patch(afterStop, 'Changed before a kill');
    await podman('pod', 'kill', '--signal', 'KILL', podName);
    await podman('pod', 'rm', '--force', podName);
    expect(existsSync(lock)).toBe(true);
    const third = await play();
    expect(await nameOf(`http://${third.ip}:${ports.http}`)).toBe('Changed before a kill');
    // The session came back with its keys, its token and its document, apart from the root's.
    const afterKill = `http://${third.ip}:${ports.http}`;
    const kept = await sessionDocument(afterKill);
    expect(kept.status).toBe(200);
    const keptBody = (await kept.json()) as { details: Record<string, { value: { text?: string } }> };
    expect(keptBody.details.name?.value.text).toBe(sessionText);
    expect(await accessToken(afterKill, sessionKey)).toMatch(/\S/);
    const listed = await adminGet(`${afterKill}/__admin/sessions`, service, adminToken);
    expect(JSON.parse(listed.body).sessions.map((s: { id: string }) => s.id)).toContain(session.id);
    // The same pod name, so the same host name: the fake takes the killed one's lock over at its
    // first start (a lock from another host would stop it with status 2 for 30 s).
    const log = await logsOf(containerName, 1000);
    expect(log).not.toContain('in use by another fake');
    expect(JSON.parse(await podman('inspect', containerName))[0].RestartCount ?? 0).toBe(0);
    console.log(
      `kubernetes pod: ready again in ${second.ready.toFixed(1)} s after a clean stop, ${third.ready.toFixed(1)} s after a kill`,
    );
  }, 300_000);
});
