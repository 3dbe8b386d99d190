import { nearestName } from '../nearest-name.js';
import type { Operation } from './operations.js';

/**
 * The spec's route nearest to a request that matched none (`GET /api/v2/document`,
 * `POST /api/v2/auth/token`), for the 404 to name: the path by edit distance, a parameter
 * segment taking the request's own segment in its place (so `/api/v2/document/5` is near
 * `/api/v2/documents/{documentId}`), then the request's method when the path has it. A path is
 * near when at most half of it differs; anything further gets no suggestion. A path under
 * `/__admin` is matched with the admin API's routes only, any other with the vendor's only.
 */
export function createRouteSuggester(
  operations: readonly Operation[],
): (method: string, path: string) => string | undefined {
  const byPath = new Map<string, Operation[]>();
  for (const operation of operations) {
    const list = byPath.get(operation.path) ?? [];
    list.push(operation);
    byPath.set(operation.path, list);
  }
  const isAdmin = (path: string) => path === '/__admin' || path.startsWith('/__admin/');
  return (method, path) => {
    const requested = path.split('/');
    const filled = new Map<string, string>();
    // The vendor's routes for a vendor path, the admin API's for an admin path: an older client's
    // `/api/...` path is never pointed at the admin API.
    const admin = isAdmin(path);
    for (const template of byPath.keys()) {
      if (isAdmin(template) !== admin) continue;
      const candidate = template
        .split('/')
        .map((segment, i) => (segment.startsWith('{') ? (requested[i] ?? segment) : segment))
        .join('/');
      if (!filled.has(candidate)) filled.set(candidate, template);
    }
    const near = nearestName(path, filled.keys(), Math.floor(path.length / 2));
    const template = near === undefined ? undefined : filled.get(near);
    const candidates = template === undefined ? undefined : byPath.get(template);
    if (template === undefined || candidates === undefined) return undefined;
    const sameMethod = candidates.find((op) => op.method.toUpperCase() === method.toUpperCase());
    const methods = sameMethod ? [sameMethod.method] : candidates.map((op) => op.method);
    return `${methods.map((m) => m.toUpperCase()).join('|')} ${template}`;
  };
}
