import type { ApiError, ErrorKindName, Violation } from '../errors.js';

/**
 * Which error responses mean the client broke the contract (and so land in
 * `GET /__admin/violations`), and what to list for them.
 *
 * A violation is a request the contract does not allow, whatever the state of the fake:
 * - every 400 (a body, parameter or id the spec rejects, or a batch/detail rule it states);
 * - 401 `missingCredentials` (x-key or x-hash header absent);
 * - 401 `invalidToken` when no token header was sent at all, or the token behind a `Bearer `
 *   prefix the header does not take (the spec router names the header in `errors` in exactly
 *   those cases);
 * - 404 `invalidQuery` (a query value out of range) and `routeNotFound` (no such route);
 * - 405, 413 and 414.
 *
 * Not violations: an unknown, expired or revoked token, an unknown key ID or a hash mismatch
 * (credentials or state: the request was well-formed, the token or key simply is not valid
 * now), and 403 `not found.` (the document is missing or foreign: a state issue).
 */
const CONTRACT_KINDS: ReadonlySet<ErrorKindName> = new Set<ErrorKindName>([
  'missingCredentials',
  'invalidQuery',
  'routeNotFound',
  'methodNotAllowed',
  'payloadTooLarge',
  'uriTooLong',
]);

/** Where to point when the error itself lists no `errors`. */
const DEFAULT_LOCATION: Partial<Record<ErrorKindName, string>> = {
  routeNotFound: 'path',
  methodNotAllowed: 'method',
  payloadTooLarge: 'body',
  uriTooLong: 'query',
  invalidQuery: 'query',
  invalidId: 'path.documentId',
};

function isContractViolation(error: ApiError): boolean {
  if (error.status === 400 || CONTRACT_KINDS.has(error.kind)) return true;
  return error.kind === 'invalidToken' && error.errors !== undefined && error.errors.length > 0;
}

/** The violations an error response stands for; empty when the error is not the client's contract breach. */
export function violationsOf(error: ApiError | undefined): Violation[] {
  if (!error || !isContractViolation(error)) return [];
  if (error.errors && error.errors.length > 0) return [...error.errors];
  return [{ location: DEFAULT_LOCATION[error.kind] ?? 'request', message: error.message }];
}
