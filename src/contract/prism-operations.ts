import type { OpenApiDocument } from './spec-document.js';

/**
 * The spec's operations as @stoplight/prism-http reads them, for its mocker (`spec-fallback.ts`)
 * and its response validator (`response-validator.ts`). prism-http is loaded on the first call,
 * never at start-up.
 */

/** CommonJS modules reach ESM with `module.exports` as `default`; a bundler may unwrap it once more. */
export function unwrapDefault<T>(module: unknown, pick: (m: Record<string, unknown>) => unknown): T {
  let current = module as Record<string, unknown> | undefined;
  for (let depth = 0; current && depth < 3; depth++) {
    const found = pick(current);
    if (typeof found === 'function') return found as T;
    current = current.default as Record<string, unknown> | undefined;
  }
  throw new Error('unexpected shape of @stoplight/prism-http');
}

/** prism-http's operation objects of `document`, by operationId. */
export async function loadPrismOperations(document: OpenApiDocument): Promise<Map<string, unknown>> {
  const prism = await import('@stoplight/prism-http');
  const getOperations = unwrapDefault<(spec: unknown) => Promise<Array<{ iid?: string }>>>(
    prism,
    (m) => m.getHttpOperationsFromSpec,
  );
  // prism dereferences the document in place: hand it a copy.
  const operations = await getOperations(structuredClone(document));
  const byId = new Map<string, unknown>();
  for (const operation of operations) {
    if (typeof operation.iid === 'string') byId.set(operation.iid, operation);
  }
  return byId;
}
