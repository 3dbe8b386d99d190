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
export const CONNECT_TIMEOUT_MS = 1000;

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

/** `headers` without those of one connection and without the hop marker. */
export function passable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) kept[name] = value;
  return kept;
}

/** The 503 a request gets while its owner (or a replica a fleet-wide view needs) does not answer. */
export function replicaUnavailable(peer: Peer, role = 'which owns what this request names'): ApiError {
  return new ApiError(
    'replicaUnavailable',
    `replica ${peer.ordinal} (${peer.url.host}), ${role}, does not answer; try again shortly`,
  );
}

/** A peer's whole answer to a question this replica asked it. */
export interface PeerAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Most bytes of a peer's answer to a fleet-wide view that are read (a bigger one counts as no answer). */
const MAX_PEER_ANSWER_BYTES = 16 * 1024 * 1024;

/** Time a peer has for its whole answer to a fleet-wide view. */
const ANSWER_TIMEOUT_MS = 5000;

/** What a request to a peer is made of: a received request, or a question a fleet view asks. */
export type PeerQuestion = Pick<IncomingMessage, 'method' | 'url' | 'headers'>;

/** `req` as a request to `peer`: its method, path and passable headers, with this replica's hop marker. */
function hopRequest(fleet: Fleet, peer: Peer, req: PeerQuestion, { bodiless }: { bodiless: boolean }) {
  const path = req.url ?? '/';
  const method = req.method ?? 'GET';
  const headers = passable(req.headers);
  if (bodiless) delete headers['content-length'];
  headers[HOP_HEADER] = fleet.hopMarker(method, path);
  return request({
    agent,
    protocol: peer.url.protocol,
    hostname: peer.url.hostname,
    port: peer.url.port,
    method,
    path,
    headers,
  });
}

/**
 * Asks `peer` the bodiless request `question` names (same method, path and headers) with this
 * replica's hop marker, so it answers for itself alone. Undefined when it does not connect within
 * a second, does not answer within five, or answers more than 16 MiB.
 */
export function askPeer(fleet: Fleet, peer: Peer, question: PeerQuestion): Promise<PeerAnswer | undefined> {
  return new Promise((resolve) => {
    const outgoing = hopRequest(fleet, peer, question, { bodiless: true });
    outgoing.setTimeout(ANSWER_TIMEOUT_MS);
    const connect = setTimeout(() => outgoing.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
    const whole = setTimeout(() => outgoing.destroy(new Error('answer timeout')), ANSWER_TIMEOUT_MS);
    const finish = (answer: PeerAnswer | undefined): void => {
      clearTimeout(connect);
      clearTimeout(whole);
      resolve(answer);
    };
    outgoing.on('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connect);
      else socket.once('connect', () => clearTimeout(connect));
    });
    outgoing.on('error', () => finish(undefined));
    outgoing.on('timeout', () => outgoing.destroy(new Error('answer timeout')));
    outgoing.on('response', (answer) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      answer.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > MAX_PEER_ANSWER_BYTES) {
          answer.destroy();
          finish(undefined);
          return;
        }
        chunks.push(chunk);
      });
      answer.on('error', () => finish(undefined));
      answer.on('end', () =>
        finish({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }),
      );
    });
    outgoing.end();
  });
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
  let answered = false;
  const outgoing = hopRequest(fleet, peer, req, { bodiless: false });
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
