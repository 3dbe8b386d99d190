import {
  Agent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { ApiError } from '../errors.js';
import { type Fleet, HOP_HEADER, type Peer } from './fleet.js';

/**
 * Forwards a request once to the replica that owns it and relays the answer as it comes: status,
 * headers and body, streamed both ways. Written on node:http rather than fetch (undici): fetch
 * would re-frame the body and fold or drop headers (`set-cookie`, `content-length`, hop-by-hop
 * rules of its own), while the relay must pass the owner's answer through byte for byte.
 */

/** Time the owner has to accept the connection before the request is answered 503. */
const CONNECT_TIMEOUT_MS = 1000;

/** Headers that belong to one connection, never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  HOP_HEADER,
]);

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function passable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

/** The 503 a request gets while its owner does not answer. */
export function replicaUnavailable(peer: Peer): ApiError {
  return new ApiError(
    'replicaUnavailable',
    `replica ${peer.ordinal} (${peer.url.host}), which owns what this request names, does not answer; try again shortly`,
  );
}

/**
 * Sends `req` to `peer` with this replica's hop marker and pipes the answer into `res`. Calls
 * `fail` with a 503 `replicaUnavailable` when the owner cannot be reached before it answered.
 */
export function forwardTo(
  fleet: Fleet,
  peer: Peer,
  req: IncomingMessage,
  res: ServerResponse,
  fail: (error: ApiError) => void,
): void {
  const path = req.url ?? '/';
  const method = req.method ?? 'GET';
  const headers = passable(req.headers);
  headers[HOP_HEADER] = fleet.hopMarker(method, path);
  let answered = false;
  const outgoing = request({
    agent,
    protocol: peer.url.protocol,
    hostname: peer.url.hostname,
    port: peer.url.port,
    method,
    path,
    headers,
  });
  const giveUp = (): void => {
    if (answered) {
      res.destroy();
      return;
    }
    answered = true;
    req.unpipe(outgoing);
    res.setHeader('retry-after', '1');
    fail(replicaUnavailable(peer));
  };
  const timer = setTimeout(() => outgoing.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
  outgoing.on('socket', (socket) => {
    // A kept-alive socket is connected already; a new one has a second to connect.
    if (!socket.connecting) clearTimeout(timer);
    else socket.once('connect', () => clearTimeout(timer));
  });
  outgoing.on('error', () => {
    clearTimeout(timer);
    giveUp();
  });
  outgoing.on('response', (answer) => {
    clearTimeout(timer);
    answered = true;
    res.writeHead(answer.statusCode ?? 502, passable(answer.headers));
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  });
  res.on('close', () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  req.pipe(outgoing);
}
