import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { RequestHandler, Response } from 'express';
import { emptyList } from '../deep-freeze.js';
import { type ApiError, capViolations, type Violation } from '../errors.js';
import { behavioursOf } from '../harness/verdicts/behaviours.js';
import { keepBody } from '../harness/verdicts/kept-body.js';
import type { ResponseChecks } from '../harness/verdicts/runtime-response-checks.js';
import { violationsOf } from '../harness/verdicts/violations-from-errors.js';
import { capNotices, type Notice, notice } from '../notices.js';
import { type RequestState, stateOf } from './request-state.js';

/**
 * The headers as the journal keeps them: as sent, but a `cookie` header by its cookies' names
 * only. A browser app on localhost sends the fake every cookie of every other localhost app (the
 * Documents API uses none), and the journal is read by whoever can read the admin API.
 */
function journalHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const cookie = headers.cookie;
  if (cookie === undefined) return headers;
  const names = cookie
    .split(';')
    .map((pair) => pair.split('=', 1)[0]?.trim() ?? '')
    .filter(Boolean);
  return { ...headers, cookie: names.join('; ') };
}

/**
 * The 'close' listener of a response answered later than its arrival ('close' comes after
 * 'finish' when it was sent, or when the connection ended first). One function shared by every
 * response: no closure is made per request.
 */
function recordResponse(this: Response): void {
  record(this, this.writableFinished);
}

/** Journals the request of `res` once, as completed (sent) or not. */
function record(res: Response, completed: boolean): void {
  const state = stateOf(res);
  const started = state.arrival;
  if (!started) return;
  state.arrival = undefined;
  const req = res.req;
  const instance = state.served();
  const error = state.apiError;
  const { journal } = instance;
  const outside = isOutsideApi(state, error);
  // What one request leaves behind is bounded: the first 100 of each, then counts (errors.ts, notices.ts).
  const notices = capNotices(noticesOf(state, outside));
  const { validateResponses } = instance.fake.settings;
  // Shared empty lists are frozen: response checks add to the entry's list later (and the report
  // shares it), so it gets its own then.
  // Those the suite declared beforehand are marked expected (a new list when any is).
  const violations = outside
    ? emptyList<Violation>()
    : instance.expectations.mark(req.method, state.path, capViolations(violationsOf(error)));
  const entry = journal.record({
    arrivedAt: started.arrivedAt,
    scheme: state.scheme ?? (isTls(req.socket) ? 'https' : 'http'),
    host: req.headers.host,
    via: state.via,
    method: req.method,
    path: state.path,
    search: started.search,
    headers: journalHeaders(req.headers),
    body:
      state.rawBody === undefined
        ? undefined
        : keepBody(state.rawBody, state.rawMedia, journal.limits.bodyBytes),
    status: res.headersSent ? res.statusCode : undefined,
    durationMs: Math.round((performance.now() - started.started) * 1000) / 1000,
    response:
      state.response === undefined
        ? undefined
        : keepBody(state.response, 'json', journal.limits.bodyBytes, {
            bytes: state.responseBytes,
            rendered: state.responseBody,
          }),
    notices,
    behaviours: behavioursOf({
      operationId: state.operationId,
      search: started.search,
      errorKind: error?.kind,
      errorMark: error?.mark,
      notices,
      faultKinds: state.faultKinds ?? [],
      marks: state.marks,
      status: res.headersSent ? res.statusCode : undefined,
    }),
    operationId: state.operationId,
    fault: state.faultId,
    outcome: completed ? 'completed' : state.dropped ? 'dropped' : 'aborted',
    violations: validateResponses ? [...violations] : violations,
  });
  const { operationId } = state;
  instance.coverage.record(entry);
  instance.verdict.record(entry);
  // No operationId when a fault answered (the router never ran): nothing of the fake's to check.
  if (completed && operationId && validateResponses) {
    const { response } = state;
    const text =
      typeof response === 'string' || response === undefined ? response : response.toString('utf8');
    started.checks.schedule(instance, entry, operationId, res, text);
  }
}

/** Whether the request came over TLS (`encrypted` is set on a TLS socket only). */
const isTls = (socket: Socket): boolean => (socket as Partial<TLSSocket>).encrypted === true;

/**
 * A path the vendor's API has nothing under (`/`, `/favicon.ico`: what a browser asks for on its
 * own): answered 404 as the live service would, but it breaks no contract, so it is a notice.
 */
function isOutsideApi(state: RequestState, error: ApiError | undefined): boolean {
  return error?.kind === 'routeNotFound' && !state.path.startsWith('/api/');
}

/** The request's notices: its own list, or the shared empty one when it has none. */
function noticesOf(state: RequestState, outsideApi: boolean): Notice[] {
  if (!outsideApi) return state.notices ?? emptyList();
  const notices = state.notices ?? [];
  notices.push(
    notice(
      'nonApiPath',
      'path',
      `${state.path} is not a path of the Documents API (every API path starts with /api/v2/); answered 404`,
    ),
  );
  return notices;
}

/**
 * Journals every vendor API request of the instance serving it: what the client
 * sent, the response as sent, how long it took and the contract violations. Runs first on the
 * API path (before faults, latency, parsing and routing, so every outcome is journaled) and does
 * its work when the response is over.
 */
export function createRequestRecorder(checks: ResponseChecks): RequestHandler {
  return (req, res, next) => {
    const { url } = req;
    const q = url.indexOf('?');
    const state = stateOf(res);
    state.arrival = {
      started: performance.now(),
      arrivedAt: Date.now(),
      search: q < 0 ? '' : url.slice(q + 1),
      checks,
    };
    next();
    // Answered before `next` returned (the usual request: no body to read, no latency, no fault
    // delay): the whole response is already handed to the socket, and nothing can abort it in
    // between, so it is journaled now. Otherwise it is journaled when the response closes.
    if (res.writableEnded && !req.socket.destroyed) record(res, true);
    else res.on('close', recordResponse);
  };
}
