import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fleet, Peer } from './fleet.js';
import { askPeer, type PeerAnswer, type PeerQuestion, replicaUnavailable } from './forward.js';
import { pathOfUrl, queryOf } from './request-url.js';

/**
 * Views across the fleet: a request for one (the session list) received from a client is asked of
 * every replica, this one included, each with the hop marker so it answers for itself alone, and
 * the answers are combined. A replica that does not answer fails the view closed (503
 * `replicaUnavailable` naming it) unless the caller asked `?partial=1`: then the view says which
 * replicas are missing. A replica's refusal (401, 403) is relayed as it is.
 */

/**
 * Whether a request from a client is the fleet's to answer before dispatch: the session list
 * (`GET /__admin/sessions`), a run's report and its clearing (`GET`/`DELETE /__admin/report`,
 * with `run`; without it each replica's own root report).
 */
export function isFleetView(method: string, path: string): boolean {
  if (path === '/__admin/sessions') return method === 'GET';
  return path === '/__admin/report' && (method === 'GET' || method === 'DELETE');
}

function asksPartial(url: string): boolean {
  const value = queryOf(url).get('partial');
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

/**
 * Answers what `isFleetView` names: a run's report or its clearing from every replica (else this
 * replica's own report), the session list from every replica. `fail` gets the errors (with no
 * argument: served here).
 */
export async function answerFleetView(
  fleet: Fleet,
  req: IncomingMessage,
  res: ServerResponse,
  fail: (error?: unknown) => void,
): Promise<void> {
  const url = req.url ?? '/';
  if (url.startsWith('/__admin/report')) {
    const run = queryOf(url).get('run');
    if (run === null) fail();
    else if (req.method === 'DELETE') await clearRunEverywhere(fleet, req, res, fail);
    else await answerRunReport(fleet, req, res, run, fail);
    return;
  }
  const peers = fleet.peersByOrdinal();
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

/**
 * `req` as the question each replica is asked for its share of a run: the same method, query and
 * credentials, without `partial` (a replica answers for itself alone), in `format` when given.
 */
function shareQuestion(req: IncomingMessage, format?: string): PeerQuestion {
  const url = req.url ?? '/';
  const query = queryOf(url);
  query.delete('partial');
  if (format !== undefined) query.set('format', format);
  const path = pathOfUrl(url);
  return { method: req.method, url: `${path}?${query}`, headers: req.headers };
}

/** Relays a replica's refusal (401, 403, 400...) as it is. */
function relay(res: ServerResponse, answer: PeerAnswer): void {
  const { 'content-length': _length, connection: _c, 'keep-alive': _k, ...headers } = answer.headers;
  res.writeHead(answer.status, headers);
  res.end(answer.body);
}

/** The 503 of the first replica in `missing`, with `Retry-After: 1`. */
function failMissing(
  fleet: Fleet,
  res: ServerResponse,
  missing: number[],
  fail: (error?: unknown) => void,
): void {
  const peer = fleet.peers.get(missing[0] as number) as Peer;
  res.setHeader('retry-after', '1');
  fail(replicaUnavailable(peer, 'one of the replicas this view combines'));
}

/**
 * A run's report across the fleet: every replica is asked (hop marker) for its share as JSON, the
 * shares are added up as a run's sessions' are and rendered once in the format asked for. A
 * replica without the run (404) adds nothing; 404 only when none has it.
 */
async function answerRunReport(
  fleet: Fleet,
  req: IncomingMessage,
  res: ServerResponse,
  run: string,
  fail: (error?: unknown) => void,
): Promise<void> {
  const combiner = fleet.runReports;
  const format = queryOf(req.url ?? '/').get('format') ?? 'json';
  // A format the harness does not render is refused here as in one process (400 invalidParameter).
  if (combiner === undefined || !combiner.renders(format)) {
    fail();
    return;
  }
  const peers = fleet.peersByOrdinal();
  const question = shareQuestion(req, 'json');
  const answers = await Promise.all(peers.map((peer) => askPeer(fleet, peer, question)));
  const refused = answers.find((a) => a !== undefined && a.status !== 200 && a.status !== 404);
  if (refused !== undefined) {
    relay(res, refused);
    return;
  }
  const missing: number[] = [];
  const shares: unknown[] = [];
  let notFound: PeerAnswer | undefined;
  for (const [index, answer] of answers.entries()) {
    if (answer === undefined) missing.push(peers[index]?.ordinal ?? -1);
    else if (answer.status === 404) notFound ??= answer;
    else {
      try {
        shares.push(JSON.parse(answer.body.toString('utf8')));
      } catch {
        missing.push(peers[index]?.ordinal ?? -1);
      }
    }
  }
  const partial = asksPartial(req.url ?? '/');
  if (missing.length > 0 && !partial) {
    failMissing(fleet, res, missing, fail);
    return;
  }
  if (shares.length === 0 && notFound !== undefined) {
    relay(res, notFound);
    return;
  }
  const extra = partial ? { partial: missing.length > 0, missing } : {};
  const { text, mediaType } = combiner.combine(run, shares, format, extra);
  res.writeHead(200, {
    'content-type': mediaType,
    'content-length': Buffer.byteLength(text),
    ...(partial ? { 'x-fake-fleet-missing': missing.join(',') } : {}),
  });
  res.end(text);
}

/**
 * A run's report cleared on every replica. Fails closed: a replica that does not answer is a 503
 * naming it (the replicas that answered have cleared their share; clearing again is harmless).
 */
async function clearRunEverywhere(
  fleet: Fleet,
  req: IncomingMessage,
  res: ServerResponse,
  fail: (error?: unknown) => void,
): Promise<void> {
  const peers = fleet.peersByOrdinal();
  const question = shareQuestion(req);
  const answers = await Promise.all(peers.map((peer) => askPeer(fleet, peer, question)));
  const missing = peers.filter((_, index) => answers[index] === undefined).map((peer) => peer.ordinal);
  if (missing.length > 0) {
    failMissing(fleet, res, missing, fail);
    return;
  }
  const given = answers as PeerAnswer[];
  const refused = given.find((a) => a.status !== 200 && a.status !== 404);
  relay(res, refused ?? given.find((a) => a.status === 200) ?? (given[0] as PeerAnswer));
}
