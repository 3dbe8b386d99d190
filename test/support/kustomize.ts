import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPod } from 'kubernetes-models/v1/Pod';
import { parseAllDocuments } from 'yaml';

/**
 * The Kubernetes manifests of deploy/kubernetes as a cluster would receive them: rendered by
 * `kubectl kustomize` (offline; nothing here talks to a cluster), parsed into objects, and the
 * StatefulSet's pod as its controller would make it.
 */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const KUBERNETES = 'deploy/kubernetes';

/** A rendered object: every one has these; the rest depends on its kind. */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The kustomizations a user applies: the folder itself and every overlay under it. */
export function kustomizations(): string[] {
  const overlays = join(ROOT, KUBERNETES, 'overlays');
  return [
    KUBERNETES,
    ...readdirSync(overlays)
      .filter((name) => existsSync(join(overlays, name, 'kustomization.yaml')))
      .map((name) => `${KUBERNETES}/overlays/${name}`),
  ];
}

/** The Kustomize components under deploy/kubernetes/components. */
export function components(): string[] {
  const folder = join(ROOT, KUBERNETES, 'components');
  return readdirSync(folder).map((name) => `${KUBERNETES}/components/${name}`);
}

function kustomize(folder: string): string {
  try {
    return execFileSync('kubectl', ['kustomize', folder], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { code, stderr } = error as NodeJS.ErrnoException & { stderr?: string };
    if (code === 'ENOENT') {
      throw new Error(
        'kubectl is not on PATH: these tests render the manifests with `kubectl kustomize` (kubectl 1.27 or later; it renders offline)',
      );
    }
    throw new Error(`kubectl kustomize ${folder} failed: ${stderr ?? String(error)}`);
  }
}

/** `kubectl kustomize <folder>` (relative to the repository), as objects. */
export function render(folder: string): RenderedObject[] {
  return parseAllDocuments(kustomize(join(ROOT, folder)))
    .map((doc) => doc.toJS() as RenderedObject | null)
    .filter((object): object is RenderedObject => object !== null);
}

/**
 * A kustomization of the user's own, as docs/kubernetes.md shows one: `resources` and
 * `components` (repository paths) with `extra` lines, rendered from a temporary folder.
 * Kustomize takes relative paths only, so they are written relative to that folder.
 */
export function renderComposed(resources: string[], componentPaths: string[], extra = ''): RenderedObject[] {
  const folder = mkdtempSync(join(tmpdir(), 'kustomization-'));
  try {
    const rel = (path: string) => relative(folder, join(ROOT, path));
    writeFileSync(
      join(folder, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        `resources: [${resources.map(rel).join(', ')}]`,
        `components: [${componentPaths.map(rel).join(', ')}]`,
        extra,
      ].join('\n'),
    );
    return parseAllDocuments(kustomize(folder))
      .map((doc) => doc.toJS() as RenderedObject | null)
      .filter((object): object is RenderedObject => object !== null);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * A kustomization a user keeps beside a checkout of this repository (`text`, in a folder `name`
 * next to a checkout named `checkout`), rendered as `kubectl kustomize <name>` would render it.
 */
export function renderBesideCheckout(name: string, checkout: string, text: string): RenderedObject[] {
  const folder = mkdtempSync(join(tmpdir(), 'kustomization-'));
  try {
    symlinkSync(ROOT, join(folder, checkout), 'dir');
    mkdirSync(join(folder, name));
    writeFileSync(join(folder, name, 'kustomization.yaml'), text);
    return parseAllDocuments(kustomize(join(folder, name)))
      .map((doc) => doc.toJS() as RenderedObject | null)
      .filter((object): object is RenderedObject => object !== null);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The one object of `kind` (and `name`, when given); throws when there is not exactly one. */
export function one<T = RenderedObject>(objects: RenderedObject[], kind: string, name?: string): T {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) {
    throw new Error(`expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  }
  return found[0] as T;
}

/**
 * The pod a StatefulSet's controller makes for `ordinal`, with the claims its volume claim
 * templates make for it (`<template>-<statefulset>-<ordinal>`), as the controller names them.
 */
export function podOf(
  statefulSet: IStatefulSet,
  ordinal = 0,
): { pod: IPod; claims: IPersistentVolumeClaim[] } {
  const spec = statefulSet.spec;
  if (spec === undefined) throw new Error('the StatefulSet has no spec');
  const name = `${statefulSet.metadata?.name}-${ordinal}`;
  const claims: IPersistentVolumeClaim[] = (spec.volumeClaimTemplates ?? []).map((template) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { ...template.metadata, name: `${template.metadata?.name}-${name}` },
    spec: template.spec ?? {},
  }));
  const templateSpec = spec.template.spec;
  if (templateSpec === undefined) throw new Error('the StatefulSet has no pod template spec');
  const pod: IPod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...spec.template.metadata,
      name,
      labels: { ...spec.template.metadata?.labels, 'statefulset.kubernetes.io/pod-name': name },
    },
    spec: {
      ...templateSpec,
      hostname: name,
      ...(spec.serviceName === undefined ? {} : { subdomain: spec.serviceName }),
      volumes: [
        ...(templateSpec.volumes ?? []),
        ...(spec.volumeClaimTemplates ?? []).map((template, i) => ({
          name: template.metadata?.name ?? '',
          persistentVolumeClaim: { claimName: claims[i]?.metadata?.name ?? '' },
        })),
      ],
    },
  };
  return { pod, claims };
}

/** A variable's value as the kubelet makes it: `$(NAME)` of a variable defined before it replaced, `$$` an escaped `$`. */
export function expandReferences(value: string, earlier: Readonly<Record<string, string>>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name?: string) =>
    name === undefined ? '$' : (earlier[name] ?? whole),
  );
}

/**
 * The container's variables with what the API server and the kubelet resolve before the
 * container starts: `metadata.namespace` fields as `namespace`, `$(NAME)` references expanded.
 * References to Secrets stay references.
 */
export function resolvedEnv(container: IContainer, namespace: string): IEnvVar[] {
  const known: Record<string, string> = {};
  return (container.env ?? []).map((entry) => {
    let value = entry.value;
    if (entry.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') value = namespace;
    else if (value !== undefined) value = expandReferences(value, known);
    if (value === undefined) return entry;
    known[entry.name] = value;
    return { name: entry.name, value };
  });
}
