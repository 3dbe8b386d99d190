import { emptyList } from '../../deep-freeze.js';
import { type ApiError, ERROR_KINDS, type ErrorKind, type Violation } from '../../errors.js';

/**
 * Which error answers mean the client broke the contract (and so land in
 * `GET /__admin/violations`), and what to list for them: both read from the error's kind in the
 * catalogue (`violation`, `location` in src/errors.ts), never decided here.
 *
 * A violation is a request the contract does not allow, whatever the state of the fake (a body,
 * parameter, id, route or method the spec rejects, a missing x-key or x-hash). Not violations: an
 * unknown, expired or revoked token, an unknown key ID or a hash mismatch (the request was
 * well-formed, the token or key simply is not valid now), a document missing or foreign (state),
 * and the fake's own limits. `invalidToken` counts only when the error names the header that was
 * left out or misused.
 */
export function violationsOf(error: ApiError | undefined): Violation[] {
  if (!error) return emptyList();
  const kind: ErrorKind = ERROR_KINDS[error.kind];
  const listed = error.errors !== undefined && error.errors.length > 0;
  if (kind.violation === false || (kind.violation === 'named' && !listed)) return emptyList();
  if (listed) return [...(error.errors ?? [])];
  return [{ location: kind.location ?? 'request', message: error.message }];
}
