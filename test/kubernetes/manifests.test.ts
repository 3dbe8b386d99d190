import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IHTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IService } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { OPTION_SET, OPTION_SPECS } from '../../src/config.js';
import { BUDGET_SHARES, HEAP_SHARE } from '../../src/memory-budget.js';
import { misspeltEnvNames, optionsFromEnv } from '../../src/options/env.js';
import { PASSPORTAL_FAKE_IMAGE } from '../../src/testcontainers/index.js';
import {
  components,
  expandReferences,
  KUBERNETES,
  kustomizations,
  one,
  podOf,
  type RenderedObject,
  ROOT,
  render,
  renderBesideCheckout,
  renderComposed,
} from '../support/kustomize.js';
import { createTestServer } from '../support/test-server.js';

/**
 * deploy/kubernetes as a cluster receives it: `kubectl kustomize` of the folder, of each overlay
 * and of each with each component renders, and every object passes the Kubernetes schema of its
 * kind (kubernetes-models, the Gateway API's from @kubernetes-models/gateway-api, both validating
 * with Ajv). Then what an operator relies on: one pod on the state file, Services that reach it,
 * probes the fake answers, a restricted security context with a writable volume wherever the fake
 * writes, Secrets for the admin token, the CA and the tenants file, a memory limit that holds
 * the heap and the budget, and the admin API answering to the names teams call it by.
 */

const MiB = 1024 * 1024;
/** Node itself beside V8's heap (code, TLS, buffers): about 70 MB at idle in the pod test (docs/kubernetes.md). */
const NODE_RESERVE = 128 * MiB;
const NAMESPACE = 'team-platform';
const ADMIN_TOKEN = 'token-from-the-secret';
const FLEET_SECRET = 'fleet-secret-from-the-secret';
/** Variables the pod sets that are not the fake's options, and who reads them. */
const NOT_OPTIONS: Record<string, string> = {
  NODE_OPTIONS: 'Node (the heap limit)',
  POD_NAMESPACE: 'the pod itself: ADMIN_HOSTS names the Service in its namespace',
};

type Validatable = new (data: unknown) => { validate(): void };

/** The schema of `apiVersion` and `kind`: the model module of its group and version. */
async function schemaErrors(object: RenderedObject): Promise<string[]> {
  const { apiVersion, kind } = object;
  const module = !apiVersion.includes('/')
    ? `kubernetes-models/${apiVersion}`
    : apiVersion.startsWith('gateway.networking.k8s.io/')
      ? `@kubernetes-models/gateway-api/${apiVersion}`
      : `kubernetes-models/${apiVersion}`;
  let models: Record<string, Validatable | undefined>;
  try {
    models = (await import(module)) as Record<string, Validatable | undefined>;
  } catch {
    return [`${kind} ${object.metadata.name}: no schemas for ${apiVersion}`];
  }
  const Model = models[kind];
  if (Model === undefined) return [`${kind} ${object.metadata.name}: no schema for ${apiVersion} ${kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [`${kind} ${object.metadata.name}: ${(error as Error).message}`];
  }
}

/** The environment the container sees, as the kubelet builds it: references resolved, `$(VAR)` expanded from earlier entries. */
function environmentOf(
  container: IContainer,
  secrets: Record<string, string>,
  podIndex = 0,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) {
      env[entry.name] = expandReferences(entry.value, env);
    } else if (entry.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') {
      env[entry.name] = NAMESPACE;
    } else if (entry.valueFrom?.fieldRef?.fieldPath === "metadata.labels['apps.kubernetes.io/pod-index']") {
      env[entry.name] = String(podIndex);
    } else if (entry.valueFrom?.secretKeyRef) {
      const ref = entry.valueFrom.secretKeyRef;
      const value = secrets[`${ref.name}/${ref.key}`];
      if (value === undefined)
        throw new Error(`${entry.name}: no test value for Secret ${ref.name} key ${ref.key}`);
      env[entry.name] = value;
    } else {
      throw new Error(`${entry.name}: a kind of variable this test does not resolve`);
    }
  }
  return env;
}

/** The StatefulSet's container, its pod, and its environment. */
function fakeOf(objects: RenderedObject[], podIndex = 0) {
  const statefulSet = one<IStatefulSet>(objects, 'StatefulSet');
  const { pod, claims } = podOf(statefulSet);
  const container = pod.spec?.containers[0];
  if (container === undefined) throw new Error('the pod has no container');
  const env = environmentOf(
    container,
    { 'passportal-fake-admin/token': ADMIN_TOKEN, 'passportal-fake-fleet/secret': FLEET_SECRET },
    podIndex,
  );
  return { statefulSet, pod, claims, container, env };
}

/** A quantity such as 1Gi or 512Mi in bytes. */
function bytesOf(quantity: string | number | undefined): number {
  const match = /^(\d+)(Ki|Mi|Gi)?$/.exec(String(quantity));
  if (match === null) throw new Error(`not a quantity this test reads: ${String(quantity)}`);
  const unit = { Ki: 1024, Mi: MiB, Gi: 1024 * MiB }[match[2] as 'Ki' | 'Mi' | 'Gi'] ?? 1;
  return Number(match[1]) * unit;
}

/** V8's heap limit for an old space of `mebibytes` (the young generation added), as this Node reports it. */
function heapLimitOf(mebibytes: number): number {
  const printed = spawnSync(
    process.execPath,
    [`--max-old-space-size=${mebibytes}`, '-p', 'v8.getHeapStatistics().heap_size_limit'],
    {
      encoding: 'utf8',
    },
  ).stdout;
  return Number(printed);
}

/** ENV values of the project's Dockerfile (the image's defaults). */
function imageEnv(): Record<string, string> {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  return Object.fromEntries(
    [...dockerfile.matchAll(/^\s*(?:ENV\s+)?([A-Z_]+)=(\S+?)\s*\\?$/gm)].map((m) => [m[1], m[2]]),
  );
}

/** The mount a file path lies in, and the volume behind it. */
function mountOf(objects: RenderedObject[], path: string) {
  const { pod, container } = fakeOf(objects);
  const mount = (container.volumeMounts ?? [])
    .filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  const volume = pod.spec?.volumes?.find((v) => v.name === mount?.name);
  return { mount, volume };
}

const base = render(KUBERNETES);
const composed = kustomizations().flatMap((folder) =>
  components().map((component) => ({
    name: `${folder} with ${component}`,
    objects: renderComposed([folder], [component]),
  })),
);
const renders = [
  ...kustomizations().map((folder) => ({ name: folder, objects: render(folder) })),
  ...composed,
];

describe('deploy/kubernetes renders with kubectl kustomize', () => {
  it('renders the folder, every overlay and each with every component', () => {
    expect(kustomizations()).toEqual(
      expect.arrayContaining([
        KUBERNETES,
        `${KUBERNETES}/overlays/ingress`,
        `${KUBERNETES}/overlays/gateway-api`,
      ]),
    );
    expect(components()).toContain(`${KUBERNETES}/components/tenants`);
    for (const { name, objects } of renders) {
      expect(objects.map((o) => o.kind).sort(), name).toEqual(
        expect.arrayContaining(['Service', 'StatefulSet']),
      );
    }
  });

  it.each(renders.map((r) => [r.name, r.objects] as const))(
    '%s: every object passes the Kubernetes schema of its kind; no Secret and no Deployment ships',
    async (_name, objects) => {
      const errors = (await Promise.all(objects.map(schemaErrors))).flat();
      expect(errors).toEqual([]);
      expect(objects.map((o) => o.kind)).not.toContain('Secret');
      expect(objects.map((o) => o.kind)).not.toContain('Deployment');
    },
  );

  it('the schemas refuse a malformed object (so a pass means something)', async () => {
    const statefulSet = structuredClone(one<IStatefulSet & RenderedObject>(base, 'StatefulSet'));
    const container = statefulSet.spec?.template.spec?.containers[0] as unknown as Record<string, unknown>;
    container.ports = [{ name: 'http', containerPort: '4010' }];
    expect(await schemaErrors(statefulSet)).toEqual([expect.stringMatching(/containerPort must be integer/)]);
  });
});

describe("docs/kubernetes.md's kustomization of your own", () => {
  it('renders beside a checkout: valid objects in its namespace, its image, the tenants file and the Ingress', async () => {
    const doc = readFileSync(join(ROOT, 'docs/kubernetes.md'), 'utf8');
    const block = /```yaml\n# (\S+)\/kustomization\.yaml\n([\s\S]*?)```/.exec(doc);
    expect(block).not.toBeNull();
    const checkout = /- \.\.\/([\w-]+)\/deploy\/kubernetes/.exec(block?.[2] ?? '')?.[1];
    expect(checkout).toBeDefined();
    const objects = renderBesideCheckout(block?.[1] as string, checkout as string, block?.[2] as string);
    expect((await Promise.all(objects.map(schemaErrors))).flat()).toEqual([]);
    const namespace = /^namespace: (\S+)$/m.exec(block?.[2] ?? '')?.[1];
    expect(objects.map((o) => (o.metadata as { namespace?: string }).namespace)).toEqual(
      objects.map(() => namespace),
    );
    const { container, env } = fakeOf(objects);
    expect(container.image).toMatch(/^registry\.example\.com\/passportal-docs-fake:/);
    expect(env.TENANTS_FILE).toBeDefined();
    expect(objects.map((o) => o.kind)).toContain('Ingress');
  });
});

describe('the base: one fake, its state and its Secrets', () => {
  it('is a StatefulSet of one replica, governed by a headless Service, its state claim kept on scale-down', () => {
    const { statefulSet, claims } = fakeOf(base);
    expect(statefulSet.spec?.replicas).toBe(1);
    const governing = one<IService>(base, 'Service', statefulSet.spec?.serviceName);
    expect(governing.spec?.clusterIP).toBe('None');
    expect(statefulSet.spec?.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
    expect(claims.map((c) => c.spec?.accessModes)).toEqual([['ReadWriteOnce']]);
  });

  it('keeps the state file on the claimed volume', () => {
    const { env, claims } = fakeOf(base);
    const state = optionsFromEnv(OPTION_SET, env).stateFile;
    expect(state).toMatch(/^\/.+\.json$/);
    const { mount, volume } = mountOf(base, state as string);
    expect(mount?.readOnly).not.toBe(true);
    expect(volume?.persistentVolumeClaim?.claimName).toBe(claims[0]?.metadata?.name);
  });

  it('its Services reach the pod on the ports the image listens on', () => {
    const { pod, container } = fakeOf(base);
    const image = imageEnv();
    const ports = Object.fromEntries((container.ports ?? []).map((p) => [p.name, p.containerPort]));
    expect(ports).toEqual({ http: Number(image.PORT), https: Number(image.HTTPS_PORT) });
    const services = base.filter((o) => o.kind === 'Service') as unknown as IService[];
    expect(services.length).toBe(2);
    for (const service of services) {
      for (const [key, value] of Object.entries(service.spec?.selector ?? {})) {
        expect(pod.metadata?.labels?.[key], `${service.metadata?.name} selects ${key}`).toBe(value);
      }
      expect(Object.keys(service.spec?.selector ?? {}).length).toBeGreaterThan(0);
      for (const port of service.spec?.ports ?? []) expect(Object.keys(ports)).toContain(port.targetPort);
    }
  });

  it('probes /__admin/health on the HTTP port, which the fake answers 200 to the kubelet without the admin token', async () => {
    const { container, env } = fakeOf(base);
    const probes = [container.startupProbe, container.readinessProbe, container.livenessProbe];
    for (const probe of probes) {
      expect(probe?.httpGet?.path).toBe('/__admin/health');
      expect(probe?.httpGet?.port).toBe('http');
      expect(probe?.httpGet?.scheme ?? 'HTTP').toBe('HTTP');
    }
    // Liveness gives up later than readiness: a slow moment takes the pod out of the Service
    // before it is restarted. The start (a large state file read) has at least a minute.
    const window = (p: (typeof probes)[number]) => (p?.periodSeconds ?? 10) * (p?.failureThreshold ?? 3);
    expect(window(container.livenessProbe)).toBeGreaterThan(window(container.readinessProbe));
    expect(window(container.startupProbe)).toBeGreaterThanOrEqual(60);

    const { mock, http } = await createTestServer(
      optionsFromEnv(OPTION_SET, { ADMIN_TOKEN: env.ADMIN_TOKEN, ADMIN_HOSTS: env.ADMIN_HOSTS }),
    );
    try {
      // As the kubelet asks: the pod's IP and port as Host, its own user agent, no token.
      const res = await http
        .get('/__admin/health')
        .set('Host', '10.244.1.17:4010')
        .set('User-Agent', 'kube-probe/1.32');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('ok');
    } finally {
      await mock.close();
    }
  });

  it('runs as the image user, non-root, read-only root, no privilege escalation or capability (restricted profile)', () => {
    const { pod, container } = fakeOf(base);
    const podSecurity = pod.spec?.securityContext;
    expect(podSecurity?.runAsNonRoot).toBe(true);
    expect(podSecurity?.runAsUser).toBe(1000);
    expect(podSecurity?.runAsGroup).toBe(1000);
    expect(podSecurity?.fsGroup).toBe(1000);
    expect(podSecurity?.seccompProfile?.type).toBe('RuntimeDefault');
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    // Service links would add variables such as HTTPS_PORT=tcp://..., which the fake reads as options.
    expect(pod.spec?.enableServiceLinks).toBe(false);
    // The image's user is uid 1000 (`node`): its files and /state, /tls are that user's.
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^USER node$/m);
  });

  it('gives a writable volume to every folder the fake writes to; the Secrets are mounted read-only', () => {
    const { env, container } = fakeOf(base);
    const options = optionsFromEnv(OPTION_SET, { ...imageEnv(), ...env });
    for (const path of [options.stateFile, `${options.tlsDir}/server.pem`, '/tmp/x']) {
      const { mount, volume } = mountOf(base, path as string);
      expect(mount, path).toBeDefined();
      expect(mount?.readOnly, path).not.toBe(true);
      expect(volume?.secret, path).toBeUndefined();
    }
    for (const mount of container.volumeMounts ?? []) {
      const { volume } = mountOf(base, `${mount.mountPath}/x`);
      if (volume?.secret) expect(mount.readOnly, mount.mountPath).toBe(true);
    }
  });

  it('takes the admin token and the CA from Secrets, in files the fake reads as valid options', () => {
    const { container, env } = fakeOf(base);
    const adminToken = container.env?.find((e) => e.name === 'ADMIN_TOKEN');
    expect(adminToken?.value).toBeUndefined();
    expect(adminToken?.valueFrom?.secretKeyRef).toEqual({ name: 'passportal-fake-admin', key: 'token' });
    const options = optionsFromEnv(OPTION_SET, env);
    expect(options.adminToken).toBe(ADMIN_TOKEN);
    // The CA: the two keys of a kubernetes.io/tls Secret, as files of its mount.
    for (const [path, key] of [
      [options.tlsCaCert, 'tls.crt'],
      [options.tlsCaKey, 'tls.key'],
    ] as const) {
      const { mount, volume } = mountOf(base, path as string);
      expect(volume?.secret?.secretName).toBe('passportal-fake-ca');
      expect(path).toBe(`${mount?.mountPath}/${key}`);
      // Read by the `node` group (fsGroup), never written.
      expect((volume?.secret?.defaultMode ?? 0o644) & 0o040).toBe(0o040);
    }
    // Every variable is an option of the fake (or named here), none misspelt, every value valid.
    const optionNames = new Set(OPTION_SPECS.map((s) => s.env));
    expect(Object.keys(env).filter((name) => !optionNames.has(name) && !(name in NOT_OPTIONS))).toEqual([]);
    expect(misspeltEnvNames(OPTION_SET, env)).toEqual([]);
  });

  it('sizes the memory limit to hold the heap, the bodies in flight and Node itself; the budget is under a fifth of the heap', () => {
    const { container, env } = fakeOf(base);
    const limit = bytesOf(container.resources?.limits?.memory);
    // Requested as much as the limit: the scheduler places it where the memory is, and the pod
    // is not the first one evicted when a node runs short.
    expect(bytesOf(container.resources?.requests?.memory)).toBe(limit);
    const oldSpace = /--max-old-space-size=(\d+)/.exec(env.NODE_OPTIONS ?? '')?.[1];
    expect(oldSpace).toBeDefined();
    const heapLimit = heapLimitOf(Number(oldSpace));
    expect(heapLimit).toBeGreaterThanOrEqual(Number(oldSpace) * MiB);
    const budget = optionsFromEnv(OPTION_SET, env).memoryBudget ?? 0;
    expect(budget).toBeGreaterThan(0);
    expect(budget).toBeLessThanOrEqual(heapLimit * HEAP_SHARE);
    // Bodies in flight are buffers outside the heap, up to their share of the budget.
    expect(heapLimit + BUDGET_SHARES.bodies * budget + NODE_RESERVE).toBeLessThanOrEqual(limit);
  });

  it('runs the image the container suite builds, named by the package version', () => {
    const { container } = fakeOf(base);
    expect(container.image).toBe(PASSPORTAL_FAKE_IMAGE);
    expect(container.imagePullPolicy).toBe('IfNotPresent');
  });

  it('lets the admin API answer to the Service by its DNS names, with the admin token', async () => {
    const { env } = fakeOf(base);
    const service = one<IService>(base, 'Service', 'passportal-fake');
    const names = [
      service.metadata?.name,
      `${service.metadata?.name}.${NAMESPACE}`,
      `${service.metadata?.name}.${NAMESPACE}.svc`,
      `${service.metadata?.name}.${NAMESPACE}.svc.cluster.local`,
    ];
    const { mock, http } = await createTestServer(
      optionsFromEnv(OPTION_SET, { ADMIN_TOKEN: env.ADMIN_TOKEN, ADMIN_HOSTS: env.ADMIN_HOSTS }),
    );
    try {
      for (const name of names) {
        const host = `${name}:4010`;
        expect((await http.get('/__admin/state').set('Host', host)).status, host).toBe(401);
        const res = await http
          .get('/__admin/state')
          .set('Host', host)
          .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
        expect(res.status, host).toBe(200);
      }
      // Any other name is refused (DNS rebinding), even with the token.
      const other = await http
        .get('/__admin/state')
        .set('Host', 'passportal-fake.attacker.example')
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      expect(other.status).toBe(403);
    } finally {
      await mock.close();
    }
  });
});

describe('the overlays: reaching the fake from outside the cluster', () => {
  // The overlays that route traffic into the cluster (others, such as a fleet's, add no route).
  const routing = kustomizations().filter((folder) =>
    render(folder).some((o) => o.kind === 'Ingress' || o.kind === 'HTTPRoute'),
  );

  it('are the Ingress and the Gateway API overlays', () => {
    expect(routing).toEqual(
      expect.arrayContaining([`${KUBERNETES}/overlays/ingress`, `${KUBERNETES}/overlays/gateway-api`]),
    );
  });

  it.each(routing)(
    '%s: its routes lead to the Service, and the admin API answers to their host names',
    (folder) => {
      const objects = render(folder);
      const { env } = fakeOf(objects);
      const adminHosts = (env.ADMIN_HOSTS ?? '').split(',');
      const service = one<IService>(objects, 'Service', 'passportal-fake');
      const servicePorts = service.spec?.ports ?? [];
      const routes: Array<{ host: string; service: string; port: string | number | undefined }> = [];
      for (const ingress of objects.filter((o) => o.kind === 'Ingress') as unknown as IIngress[]) {
        for (const rule of ingress.spec?.rules ?? []) {
          for (const path of rule.http?.paths ?? []) {
            const backend = path.backend.service;
            routes.push({
              host: rule.host ?? '',
              service: backend?.name ?? '',
              port: backend?.port?.name ?? backend?.port?.number,
            });
          }
        }
        // TLS ends at the ingress for every host it serves: the admin token never crosses the network in clear.
        expect(ingress.spec?.tls?.flatMap((t) => t.hosts ?? []).sort()).toEqual(
          (ingress.spec?.rules ?? []).map((r) => r.host).sort(),
        );
      }
      for (const route of objects.filter((o) => o.kind === 'HTTPRoute') as unknown as IHTTPRoute[]) {
        for (const rule of route.spec?.rules ?? []) {
          for (const ref of rule.backendRefs ?? []) {
            for (const host of route.spec?.hostnames ?? [])
              routes.push({ host, service: ref.name, port: ref.port });
          }
        }
      }
      expect(routes.length).toBeGreaterThan(0);
      for (const route of routes) {
        expect(route.service).toBe(service.metadata?.name);
        // The HTTP port: the vendor API, the sessions and the admin API.
        expect(servicePorts.find((p) => p.name === route.port || p.port === route.port)?.targetPort).toBe(
          'http',
        );
        expect(adminHosts).toContain(route.host);
      }
    },
  );
});

describe('the tenants component', () => {
  it('mounts the tenants file from its Secret, read-only, where TENANTS_FILE names it; the base needs no such Secret', () => {
    const objects = renderComposed([KUBERNETES], [`${KUBERNETES}/components/tenants`]);
    const { env } = fakeOf(objects);
    const file = env.TENANTS_FILE;
    expect(file).toMatch(/^\/.+\.json$/);
    const { mount, volume } = mountOf(objects, file as string);
    expect(mount?.readOnly).toBe(true);
    expect(volume?.secret?.secretName).toBe('passportal-fake-tenants');
    expect(volume?.secret?.items).toEqual([
      { key: 'tenants.json', path: (file as string).slice((mount?.mountPath.length ?? 0) + 1) },
    ]);
    expect(fakeOf(base).env.TENANTS_FILE).toBeUndefined();
    const secretsOfBase = (fakeOf(base).pod.spec?.volumes ?? []).flatMap((v) => v.secret?.secretName ?? []);
    expect(secretsOfBase).not.toContain('passportal-fake-tenants');
  });

  it('docs/kubernetes.md has a command that makes every Secret the pod names, with the keys the pod reads', () => {
    const objects = renderComposed([KUBERNETES], components());
    const { pod, container } = fakeOf(objects);
    const keysOf = new Map<string, Set<string>>();
    const reads = (name: string, keys: string[]) =>
      keysOf.set(name, new Set([...(keysOf.get(name) ?? []), ...keys]));
    for (const volume of pod.spec?.volumes ?? []) {
      if (volume.secret?.secretName)
        reads(
          volume.secret.secretName,
          (volume.secret.items ?? []).map((i) => i.key),
        );
    }
    for (const entry of container.env ?? []) {
      const ref = entry.valueFrom?.secretKeyRef;
      if (ref) reads(ref.name ?? '', [ref.key]);
    }
    // The CA's files are the keys of a kubernetes.io/tls Secret.
    for (const path of [
      container.env?.find((e) => e.name === 'TLS_CA_CERT')?.value,
      container.env?.find((e) => e.name === 'TLS_CA_KEY')?.value,
    ]) {
      const { volume } = mountOf(objects, path as string);
      reads(volume?.secret?.secretName ?? '', [(path as string).split('/').pop() as string]);
    }
    expect([...keysOf.keys()].sort()).toEqual([
      'passportal-fake-admin',
      'passportal-fake-ca',
      'passportal-fake-tenants',
    ]);
    const doc = readFileSync(join(ROOT, 'docs/kubernetes.md'), 'utf8');
    for (const [name, keys] of keysOf) {
      const command = new RegExp(`kubectl(?: -n \\S+)? create secret (\\w+) ${name} (.*)`).exec(doc);
      expect(command, name).not.toBeNull();
      for (const key of keys) {
        if (key === 'tls.crt' || key === 'tls.key') expect(command?.[1], `${name} ${key}`).toBe('tls');
        else
          expect(command?.[2], `${name} ${key}`).toMatch(
            new RegExp(`--from-(?:literal|file)=${key.replace('.', '\\.')}=`),
          );
      }
    }
  });

  it("docs/kubernetes.md's memory table keeps the rule the base keeps, row by row", () => {
    const doc = readFileSync(join(ROOT, 'docs/kubernetes.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| (\d+) (MiB|GiB)(?: \(base\))? \| (\d+) \(.*?\) \| (\d+) \(/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const { container, env } = fakeOf(base);
    const baseRow = rows.find((r) => r[0].includes('(base)'));
    expect(bytesOf(`${baseRow?.[1]}${baseRow?.[2] === 'GiB' ? 'Gi' : 'Mi'}`)).toBe(
      bytesOf(container.resources?.limits?.memory),
    );
    expect(env.NODE_OPTIONS).toBe(`--max-old-space-size=${baseRow?.[3]}`);
    expect(env.MEMORY_BUDGET).toBe(baseRow?.[4]);
    for (const [, size, unit, oldSpace, budget] of rows) {
      const limit = bytesOf(`${size}${unit === 'GiB' ? 'Gi' : 'Mi'}`);
      const heapLimit = heapLimitOf(Number(oldSpace));
      expect(Number(budget), `${size} ${unit}`).toBeLessThanOrEqual(heapLimit * HEAP_SHARE);
      expect(
        heapLimit + BUDGET_SHARES.bodies * Number(budget) + NODE_RESERVE,
        `${size} ${unit}`,
      ).toBeLessThanOrEqual(limit);
    }
  });
});

describe('the fleet overlay: replicas that own their sessions', () => {
  const fleet = render(`${KUBERNETES}/overlays/fleet`);

  it('runs three replicas at once, each with its own state claim (its own state file lock), under the headless Service', () => {
    const { statefulSet, claims, env } = fakeOf(fleet);
    expect(statefulSet.spec?.replicas).toBe(3);
    expect(statefulSet.spec?.podManagementPolicy).toBe('Parallel');
    const governing = one<IService>(fleet, 'Service', statefulSet.spec?.serviceName);
    expect(governing.spec?.clusterIP).toBe('None');
    // A volume claim template: one claim per pod, ReadWriteOnce, kept on scale-down.
    expect(claims.map((c) => c.spec?.accessModes)).toEqual([['ReadWriteOnce']]);
    expect(statefulSet.spec?.persistentVolumeClaimRetentionPolicy?.whenScaled).toBe('Retain');
    const { volume } = mountOf(fleet, optionsFromEnv(OPTION_SET, env).stateFile as string);
    expect(volume?.persistentVolumeClaim?.claimName).toBe(claims[0]?.metadata?.name);
  });

  it('gives every pod its ordinal from its pod index and the same peers: every replica by its stable DNS name, to which the admin API answers', () => {
    const { statefulSet, container } = fakeOf(fleet);
    const governing = one<IService>(fleet, 'Service', statefulSet.spec?.serviceName);
    const port = (container.ports ?? []).find((p) => p.name === 'http')?.containerPort;
    const replicas = statefulSet.spec?.replicas ?? 0;
    const expected = Array.from(
      { length: replicas },
      (_, n) =>
        `${n}=http://${statefulSet.metadata?.name}-${n}.${governing.metadata?.name}.${NAMESPACE}.svc:${port}`,
    ).join(',');
    for (let index = 0; index < replicas; index++) {
      const { env } = fakeOf(fleet, index);
      expect(env.FLEET_ORDINAL).toBe(String(index));
      expect(env.FLEET_PEERS).toBe(expected);
      expect(env.FLEET_SECRET).toBe(FLEET_SECRET);
      const adminHosts = (env.ADMIN_HOSTS ?? '').split(',');
      for (const peer of expected.split(',')) expect(adminHosts).toContain(new URL(peer.slice(2)).hostname);
      // The Service's own names stay.
      for (const host of (fakeOf(base).env.ADMIN_HOSTS ?? '').split(',')) expect(adminHosts).toContain(host);
    }
    // Every variable is an option of the fake (or named here), none misspelt, the fleet's read as such.
    const { env } = fakeOf(fleet, 2);
    const optionNames = new Set(OPTION_SPECS.map((s) => s.env));
    expect(Object.keys(env).filter((name) => !optionNames.has(name) && !(name in NOT_OPTIONS))).toEqual([]);
    expect(misspeltEnvNames(OPTION_SET, env)).toEqual([]);
    const options = optionsFromEnv(OPTION_SET, env);
    expect(options.fleetOrdinal).toBe(2);
    expect(options.fleetPeers).toBe(expected);
    const secret = container.env?.find((e) => e.name === 'FLEET_SECRET');
    expect(secret?.value).toBeUndefined();
    expect(secret?.valueFrom?.secretKeyRef).toEqual({ name: 'passportal-fake-fleet', key: 'secret' });
  });

  it('probes each replica by itself: a dead peer does not take the live ones out of the Service', () => {
    const { container } = fakeOf(fleet);
    for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) {
      expect(probe?.httpGet?.path).toBe('/__admin/health?partial=1');
      expect(probe?.httpGet?.port).toBe('http');
    }
  });

  it("docs/kubernetes.md has the command that makes the fleet's Secret", () => {
    const doc = readFileSync(join(ROOT, 'docs/kubernetes.md'), 'utf8');
    expect(doc).toMatch(
      /kubectl(?: -n \S+)? create secret generic passportal-fake-fleet --from-(?:literal|file)=secret=/,
    );
  });
});
