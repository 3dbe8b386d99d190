import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../errors.js';
import type { Fleet } from './fleet.js';
import { askPeer, type PeerAnswer, replicaUnavailable } from './forward.js';

/**
 * Views across the fleet: a request for one (the session list) received from a client is asked of
 * every replica, this one included, each with the hop marker so it answers for itself alone, and
 * the answers are combined. A replica that does not answer fails the view closed (503
 * `replicaUnavailable` naming it) unless the caller asked `?partial=1`: then the view says which
 * replicas are missing. A replica's refusal (401, 403) is relayed as it is.
 */

/** Whether a request asks for a fleet-wide view: `GET /__admin/sessions`. */
export function isFleetView(method: string, path: string): boolean {
  return method === 'GET' && path === '/__admin/sessions';
}

function asksPartial(url: string): boolean {
  const query = url.indexOf('?');
  if (query < 0) return false;
  const value = new URLSearchParams(url.slice(query + 1)).get('partial');
  return value === '1' || value === 'true';
}

function sessionsOf(answer: PeerAnswer): unknown[] | undefined {
  try {
    const body = JSON.parse(answer.body.toString('utf8')) as { sessions?: unknown };
    return Array.isArray(body.sessions) ? body.sessions : undefined;
  } catch {
    return undefined;
  }
}

/** Answers a fleet-wide view from every replica's answer; `fail` gets the 503 of a missing replica. */
export async function answerFleetView(
  fleet: Fleet,
  req: IncomingMessage,
  res: ServerResponse,
  fail: (error: ApiError) => void,
): Promise<void> {
  const peers = [...fleet.peers.values()].sort((a, b) => a.ordinal - b.ordinal);
  const answers = await Promise.all(peers.map((peer) => askPeer(fleet, peer, req)));
  const refused = answers.find((answer) => answer !== undefined && answer.status !== 200);
  if (refused !== undefined) {
    const { 'content-length': _length, connection: _c, 'keep-alive': _k, ...headers } = refused.headers;
    res.writeHead(refused.status, headers);
    res.end(refused.body);
    return;
  }
  const missing: number[] = [];
  const sessions: unknown[] = [];
  for (const [index, answer] of answers.entries()) {
    const listed = answer === undefined ? undefined : sessionsOf(answer);
    if (listed === undefined) missing.push(peers[index]?.ordinal ?? -1);
    else sessions.push(...listed);
  }
  const partial = asksPartial(req.url ?? '/');
  if (missing.length > 0 && !partial) {
    const peer = fleet.peers.get(missing[0] as number);
    if (peer !== undefined) {
      res.setHeader('retry-after', '1');
      fail(replicaUnavailable(peer, 'one of the replicas this view combines'));
      return;
    }
  }
  const body = JSON.stringify(partial ? { sessions, partial: missing.length > 0, missing } : { sessions });
  const own = answers[peers.findIndex((peer) => peer.ordinal === fleet.ordinal)];
  const requestId = own?.headers['x-request-id'];
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...(requestId === undefined ? {} : { 'x-request-id': requestId }),
  });
  res.end(body);
}
