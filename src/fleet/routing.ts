import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { type Fleet, HOP_HEADER } from './fleet.js';
import { forwardTo } from './forward.js';

const SESSION_PREFIX = '/sessions/';
const ADMIN_SESSION_PREFIX = '/__admin/sessions/';

/** The session id a path names (`/sessions/{id}/...`, `/__admin/sessions/{id}...`), if any. */
function sessionIdOf(path: string): string | undefined {
  const prefix = path.startsWith(SESSION_PREFIX)
    ? SESSION_PREFIX
    : path.startsWith(ADMIN_SESSION_PREFIX)
      ? ADMIN_SESSION_PREFIX
      : undefined;
  if (prefix === undefined) return undefined;
  const end = path.indexOf('/', prefix.length);
  const id = path.slice(prefix.length, end < 0 ? path.length : end);
  return id === '' ? undefined : id;
}

/** The path of a request URL without its query. */
function pathOfUrl(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * The fleet's step before a request is served: a request from a peer (a valid hop marker) is
 * served here whatever it names, its marker taken off before anything journals it; a marker that
 * is not signed with the fleet secret, or stale, is refused (403); a request naming a session
 * another replica owns goes once to that replica, its answer relayed unchanged.
 */
export function createFleetRouting(
  fleet: Fleet,
): (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void {
  return (req, res, next) => {
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const marker = req.headers[HOP_HEADER];
    if (marker !== undefined) {
      const text = Array.isArray(marker) ? '' : marker;
      delete req.headers[HOP_HEADER];
      if (!fleet.verifyHop(text, method, url)) {
        next(
          new ApiError(
            'fleetHopRefused',
            'fleet hop marker refused: not signed with the fleet secret, or stale',
          ),
        );
        return;
      }
      next();
      return;
    }
    const id = sessionIdOf(pathOfUrl(url));
    if (id === undefined) {
      next();
      return;
    }
    const owner = fleet.ownerOfSession(id);
    if (owner === fleet.ordinal) {
      next();
      return;
    }
    const peer = fleet.peers.get(owner);
    if (peer === undefined) {
      next(
        new ApiError('sessionNotFound', `Session not found: "${id}" (replica ${owner} is not in this fleet)`),
      );
      return;
    }
    forwardTo(fleet, peer, req, res, next);
  };
}
