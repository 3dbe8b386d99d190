import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { deepFreeze } from '../deep-freeze.js';
import { packagePath } from '../package-root.js';

/** The parts of an OpenAPI 3.1 document the fake reads. */
const require = createRequire(import.meta.url);

/** YAML is parsed only when the build's JSON copy is missing or stale (loaded on demand: start-up). */
function parse(yaml: string): unknown {
  return (require('yaml') as typeof import('yaml')).parse(yaml);
}

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export interface LoadedSpec {
  document: OpenApiDocument;
  /** The YAML text as shipped, served at /openapi.yaml. */
  yaml: string;
  /** The document as JSON text, served at /openapi.json. */
  json: string;
}

/** `spec/openapi.yaml` of this package; the same relative place from `src/contract` and `dist/contract`. */
export const DEFAULT_SPEC_PATH = packagePath('spec/openapi.yaml');

/**
 * The build writes the parsed default spec beside the compiled code, keyed by the SHA-256 of the
 * YAML it came from: parsing YAML costs more start-up time than anything else the server does,
 * and the key makes an edited spec win over a stale copy.
 */
export const SPEC_CACHE_PATH = packagePath('dist/openapi.cache.json');

export function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function parseCached(yaml: string): unknown {
  if (!existsSync(SPEC_CACHE_PATH)) return parse(yaml);
  const cache = JSON.parse(readFileSync(SPEC_CACHE_PATH, 'utf8')) as { sha256?: string; document?: unknown };
  return cache.sha256 === hashText(yaml) ? cache.document : parse(yaml);
}

/**
 * The specs loaded in this process, by path, with the text each was parsed from and the file's
 * stamp when it was last read (size, modification time in nanoseconds, inode): while the stamp
 * reads the same, the file was not written since, and a later server takes the spec without
 * reading it; a file whose text reads the same as last time shares that parse (and, keyed by the
 * document object, everything compiled from it). An edited file is parsed again.
 */
const loaded = new Map<string, { spec: LoadedSpec; stamp: string | undefined }>();

/**
 * Reads and parses a spec file: once per process for each text (see `loaded`). The document is
 * deep-frozen once a second server shares it.
 */
export function loadSpec(path: string = DEFAULT_SPEC_PATH): LoadedSpec {
  const stamp = stampOf(path);
  const known = loaded.get(path);
  if (known !== undefined && stamp !== undefined && known.stamp === stamp) return shared(known.spec);
  const yaml = readFileSync(path, 'utf8');
  if (known?.spec.yaml === yaml) {
    loaded.set(path, { spec: known.spec, stamp });
    return shared(known.spec);
  }
  const document = parseCached(yaml) as OpenApiDocument;
  if (!document || typeof document !== 'object' || typeof document.paths !== 'object') {
    throw new Error(`${path}: not an OpenAPI document (no paths)`);
  }
  const spec: LoadedSpec = Object.freeze({
    document,
    yaml,
    json: JSON.stringify(document),
  });
  loaded.set(path, { spec, stamp });
  return spec;
}

/** Frozen when a second server shares it: a process with one server pays nothing for it. */
function shared(spec: LoadedSpec): LoadedSpec {
  deepFreeze(spec.document);
  return spec;
}

function stampOf(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.size}\0${s.mtimeNs}\0${s.ino}`;
  } catch {
    return undefined;
  }
}

/** Resolves a local `$ref` (`#/components/...`) once; other values are returned as they are. */
export function resolveRef<T = unknown>(document: OpenApiDocument, value: unknown): T {
  let current = value;
  for (let depth = 0; depth < 20; depth++) {
    if (!current || typeof current !== 'object' || !('$ref' in current)) return current as T;
    const ref = (current as { $ref: unknown }).$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current as T;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>(
        (node, part) =>
          node && typeof node === 'object' && Object.hasOwn(node, part)
            ? (node as Record<string, unknown>)[part]
            : undefined,
        document,
      );
  }
  throw new Error(`$ref chain too deep in the spec`);
}
