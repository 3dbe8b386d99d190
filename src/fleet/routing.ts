import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { type Fleet, HOP_HEADER } from './fleet.js';
import { forwardTo } from './forward.js';
import { answerFleetView, isFleetView } from './views.js';

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

/** The first value of a header, when it is a non-empty string. */
function headerText(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

/**
 * The replica a vendor call at the root URL belongs to: the token call's `x-key` names it when it
 * is an own key a replica made, a token (`x-access-token`, else `x-api-token`) when a replica
 * issued it; anything else (default keys, no credentials) belongs to replica 0, the root's.
 */
function ownerAtRoot(fleet: Fleet, req: IncomingMessage): number {
  const key = headerText(req.headers['x-key']);
  if (key !== undefined) return fleet.ownerOfKey(key);
  const token = headerText(req.headers['x-access-token']) ?? headerText(req.headers['x-api-token']);
  return token === undefined ? 0 : fleet.ownerOfToken(token);
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
    const path = pathOfUrl(url);
    if (isFleetView(method, path)) {
      answerFleetView(fleet, req, res, next).catch(next);
      return;
    }
    const id = sessionIdOf(path);
    if (id === undefined) {
      // The vendor API at the root URL: its owner by the key or token it carries.
      if (!path.startsWith('/api/')) {
        next();
        return;
      }
      const owner = ownerAtRoot(fleet, req);
      const peer = fleet.peers.get(owner);
      // A mark naming no replica of this fleet is answered here (an unknown key or token).
      if (owner === fleet.ordinal || peer === undefined) next();
      else forwardTo(fleet, peer, req, res, next);
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
