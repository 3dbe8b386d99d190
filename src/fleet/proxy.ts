import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { ApiError } from '../errors.js';
import { type Fleet, HOP_HEADER, type Peer } from './fleet.js';
import { CONNECT_TIMEOUT_MS, passable, replicaUnavailable } from './forward.js';
import { hopRefused } from './routing.js';

/**
 * The forward proxy in a fleet. A proxy user is a session id, so it names the replica owning the
 * session: a `CONNECT` (or an absolute-form request) whose proxy user another replica owns is
 * carried once to that replica's HTTP port, which is its proxy too (the port `--fleet-peers`
 * names), with the same request line and proxy credentials plus the hop marker; the owner
 * answers the `CONNECT` and ends the tunnel's TLS itself, so every replica must present
 * certificates from the same CA. The proxy user `root`, no proxy user, and a request carrying a
 * valid hop marker are served where they arrive (the requests inside a root tunnel are then
 * routed like any request at the root URL).
 */

/** What the fleet decides for a request reaching the proxy, before the proxy serves it. */
export type ProxyHop = { to: 'here' } | { to: 'owner'; peer: Peer } | { to: 'refused'; error: ApiError };

/** The proxy user that names the root instance (http/forward-proxy.ts). */
const ROOT_USER = 'root';

/**
 * Where a proxied request (`CONNECT`, or absolute-form) whose proxy user is `user` is served: at
 * the replica owning that session, or here for the root and for a peer's request; a hop marker
 * that is not the fleet's is refused. The marker is taken off the request either way.
 */
export function proxyHop(fleet: Fleet, req: IncomingMessage, user: string | undefined): ProxyHop {
  const marker = req.headers[HOP_HEADER];
  if (marker !== undefined) {
    delete req.headers[HOP_HEADER];
    const text = Array.isArray(marker) ? '' : marker;
    return fleet.verifyHop(text, req.method ?? 'GET', req.url ?? '')
      ? { to: 'here' }
      : { to: 'refused', error: hopRefused() };
  }
  if (user === undefined || user === ROOT_USER) return { to: 'here' };
  const owner = fleet.ownerOfSession(user);
  const peer = fleet.peers.get(owner);
  // A mark naming no replica of this fleet is answered here: no such session (407).
  return owner === fleet.ordinal || peer === undefined ? { to: 'here' } : { to: 'owner', peer };
}

/** The `CONNECT` request `req` as this replica sends it to its owner: same target and headers, with the marker. */
function connectHead(fleet: Fleet, req: IncomingMessage): string {
  const target = req.url ?? '';
  const lines = [`CONNECT ${target} HTTP/1.1`];
  for (const [name, value] of Object.entries(passable(req.headers))) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${item}`);
  }
  lines.push(`${HOP_HEADER}: ${fleet.hopMarker('CONNECT', target)}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Carries the client's `CONNECT` to `peer` and splices the two connections: the owner's answer
 * (`200 Connection Established`, or its refusal) and everything after it pass through as they
 * are. When the owner does not accept the connection within a second, `refuse` gets a 503
 * `replicaUnavailable` naming it, to answer the `CONNECT` itself.
 */
export function carryConnect(
  fleet: Fleet,
  peer: Peer,
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  refuse: (error: ApiError) => void,
): void {
  const upstream = connect({ host: peer.url.hostname, port: Number(peer.url.port || 80) });
  let connected = false;
  const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
  upstream.once('connect', () => {
    clearTimeout(timer);
    connected = true;
    upstream.setNoDelay(true);
    upstream.write(connectHead(fleet, req));
    if (head.length > 0) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on('error', () => {
    clearTimeout(timer);
    if (connected || socket.destroyed) socket.destroy();
    else refuse(replicaUnavailable(peer));
  });
  socket.on('close', () => upstream.destroy());
}
