import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { type Fleet, HOP_HEADER } from './fleet.js';
import { forwardTo } from './forward.js';
import { pathOfUrl, queryOf } from './request-url.js';
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

/** The 403 of a hop marker that is not signed with the fleet secret, or stale. */
export function hopRefused(): ApiError {
  return new ApiError(
    'fleetHopRefused',
    'fleet hop marker refused: not signed with the fleet secret, or stale',
  );
}

/** The replica where the root instance lives. */
const ROOT_REPLICA = 0;

/**
 * The admin calls at the root URL that every replica answers itself, because they are its own or
 * fleet-wide by design; every other root admin call (the root's journal, violations, notices,
 * report, reset, fixtures, state, faults, settings, clock...) goes to replica 0, where the root
 * instance lives. Calls naming a session are routed by its owner before this list is read.
 */
const ANSWERED_BY_EVERY_REPLICA: ReadonlyArray<{
  what: string;
  matches: (path: string, url: string) => boolean;
}> = [
  { what: "this replica's health and which peers answer", matches: (path) => path === '/__admin/health' },
  {
    what: 'the session list (fleet-wide) and session creation (sessions are created where received)',
    matches: (path) => path === '/__admin/sessions',
  },
  {
    what: "a run's report (fleet-wide)",
    matches: (path, url) => path === '/__admin/report' && queryOf(url).has('run'),
  },
  {
    what: 'the fleet itself (drain, fleet views)',
    matches: (path) => path === '/__admin/fleet' || path.startsWith('/__admin/fleet/'),
  },
  {
    what: "this replica's CA certificate (the same CA on every replica)",
    matches: (path) => path === '/__admin/tls' || path.startsWith('/__admin/tls/'),
  },
  {
    what: 'the inspector pages (their API calls are routed like any other)',
    matches: (path) =>
      path === '/__admin' ||
      path === '/__admin/' ||
      path === '/__admin/journal' ||
      path === '/__admin/ui' ||
      path.startsWith('/__admin/ui/'),
  },
  {
    what: "the MCP endpoint (its tool calls reach this replica's port and are routed from there)",
    matches: (path) => path === '/__admin/mcp',
  },
];

const isAdminPath = (path: string): boolean => path === '/__admin' || path.startsWith('/__admin/');

/** Whether a root admin call is served by the root instance, so on replica 0. */
function isRootAdminCall(path: string, url: string): boolean {
  if (!isAdminPath(path)) return false;
  return !ANSWERED_BY_EVERY_REPLICA.some((exception) => exception.matches(path, url));
}

/**
 * The fleet's step before a request is served: a request from a peer (a valid hop marker) is
 * served here whatever it names, its marker taken off before anything journals it; a marker that
 * is not signed with the fleet secret, or stale, is refused (403); a request naming a session
 * another replica owns (by its path, its W3C `baggage` at the root URL, or its key or token) goes
 * once to that replica, its answer relayed unchanged. `baggageSession` reads the session a
 * request's baggage names (undefined when baggage routing is off).
 */
export function createFleetRouting(
  fleet: Fleet,
  baggageSession?: (req: IncomingMessage) => string | undefined,
): (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void {
  return (req, res, next) => {
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const marker = req.headers[HOP_HEADER];
    if (marker !== undefined) {
      const text = Array.isArray(marker) ? '' : marker;
      delete req.headers[HOP_HEADER];
      if (!fleet.verifyHop(text, method, url)) {
        next(hopRefused());
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
      // The root's admin API: the root instance lives on replica 0.
      if (isRootAdminCall(path, url)) {
        const root = fleet.peers.get(ROOT_REPLICA);
        if (fleet.ordinal === ROOT_REPLICA || root === undefined) next();
        else forwardTo(fleet, root, req, res, next);
        return;
      }
      // A session named by the request's baggage (an app's backend carrying a browser test's
      // session): its owner serves it, and reads the baggage again there.
      const carried = isAdminPath(path) ? undefined : baggageSession?.(req);
      if (carried !== undefined) {
        const owner = fleet.ownerOfSession(carried);
        const peer = fleet.peers.get(owner);
        if (owner === fleet.ordinal || peer === undefined) next();
        else forwardTo(fleet, peer, req, res, next);
        return;
      }
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
