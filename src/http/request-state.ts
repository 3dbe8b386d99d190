import type { Response } from 'express';
import type { ApiError, Notice } from '../errors.js';
import type { Instance } from '../harness/instance.js';
import type { BodyMedia } from '../harness/kept-body.js';
import type { ResponseChecks } from '../harness/response-checks.js';

/** What the request recorder notes when a vendor API request arrives. */
export interface Arrival {
  /** `performance.now()` on arrival, for the duration. */
  started: number;
  /** Milliseconds since the Unix epoch. */
  arrivedAt: number;
  /** The query string as sent, without the `?` (parsed only when the journal is read). */
  search: string;
  checks: ResponseChecks;
}

/**
 * How a request reached the fake: straight to its port; through the fake's proxy (CONNECT or an
 * absolute URL); through the proxy with a session's id as the proxy user; or routed to a session
 * by the session's own API keys.
 */
export type Via = 'direct' | 'proxy' | 'proxy-session' | 'key-session';

/**
 * Everything the fake keeps about one request while serving it, in one shape for every request:
 * the app puts it on `res.locals` first thing, and the middleware further on fill it in.
 */
export class RequestState {
  /** The instance serving the request: the root or a session's. Set before any instance route runs. */
  instance!: Instance;
  /** Where the instance is mounted: '' for the root, `/sessions/{id}` for a session. */
  basePath = '';
  /** The URL path relative to the instance (what its routes, faults and journal see), still encoded. */
  path = '/';
  /** The operation the request matched (set by the spec router). */
  operationId: string | undefined = undefined;
  /** The response body's JSON text as sent, for the journal. */
  responseText: string | undefined = undefined;
  /** The request body as read (before parsing), for the journal, and how it reads back. */
  rawBody: Buffer | undefined = undefined;
  rawMedia: BodyMedia = 'text';
  /** The error the response was rendered from (set by the app's error capture). */
  apiError: ApiError | undefined = undefined;
  /** The id of the fault that applied, if any. */
  faultId: string | undefined = undefined;
  /** Set when a fault dropped the connection. */
  dropped = false;
  /** Notices found while serving the request (created on the first one). */
  notices: Notice[] | undefined = undefined;
  /** How the request reached the fake (set on arrival; `key-session` once its keys pick a session). */
  via: Via = 'direct';
  /** Set by the request recorder on arrival; cleared once the request is journaled. */
  arrival: Arrival | undefined = undefined;

  /** `requestId`: the vendor's request identifier (`apiRequestUid`), also sent as `x-request-id`. */
  constructor(readonly requestId: string) {}
}

/** Adds a notice to the request's state. */
export function addNotice(state: RequestState, notice: Notice): void {
  if (state.notices === undefined) state.notices = [notice];
  else state.notices.push(notice);
}

/** The state of the request `res` answers. */
export const stateOf = (res: Response): RequestState => res.locals as RequestState;
