import { parse as parseQuery } from 'node:querystring';
import type { Request, Response } from 'express';
import type { BehaviourMark } from '../behaviour-marks.js';
import type { ApiError } from '../errors.js';
import type { FaultKind } from '../harness/faults.js';
import type { Instance } from '../harness/instance.js';
import type { RequestVia } from '../harness/journal.js';
import type { BodyMedia } from '../harness/kept-body.js';
import type { ResponseChecks } from '../harness/runtime-response-checks.js';
import type { TenantSpace } from '../harness/tenants.js';
import type { Notice, NoticeSink } from '../notices.js';

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
 * Everything the fake keeps about one request while serving it, in one shape for every request:
 * the app puts it on `res.locals` first thing, and the middleware further on fill it in.
 */
export class RequestState implements NoticeSink {
  /**
   * The instance serving the request: the root or a session's, picked by the front door before
   * any instance route runs; unset for a request refused before that (an unknown session).
   */
  instance: Instance | undefined = undefined;
  /**
   * How the request reached the fake (journaled): `direct` unless the forward proxy carried it
   * (`proxy`, or `proxy-session` when its credentials named a session) or a session's own key or
   * token routed it from the root to that session (`key-session`).
   */
  via: RequestVia = 'direct';
  /** The scheme the client used, when the socket does not tell it (an absolute-form request through the proxy). */
  scheme: 'http' | 'https' | undefined = undefined;
  /** Where the instance is mounted: '' for the root, `/sessions/{id}` for a session. */
  basePath = '';
  /**
   * The URL path, still encoded: as sent from arrival (`pathOf`), then relative to the instance
   * once the dispatcher picked it (what its routes, faults and journal see).
   */
  path = '/';
  /**
   * The tenant whose token an admin request carries (`--tenants`; set by the admin token check);
   * undefined for the operator's token, an open admin API, and every other request.
   */
  tenant: TenantSpace | undefined = undefined;
  /** The operation the request matched (set by the spec router). */
  operationId: string | undefined = undefined;
  /** The response body's JSON as sent (a text, or its UTF-8 bytes), for the journal. */
  response: string | Buffer | undefined = undefined;
  /** Its length in UTF-8 bytes. */
  responseBytes = 0;
  /** The body it was rendered from, when that renders to the same text later (the journal keeps it, not the text). */
  responseBody: unknown = undefined;
  /** The request body as read (before parsing), for the journal, and how it reads back. */
  rawBody: Buffer | undefined = undefined;
  rawMedia: BodyMedia = 'text';
  /** The error the response was rendered from (set by the app's error capture). */
  apiError: ApiError | undefined = undefined;
  /** The id of the fault that applied, if any. */
  faultId: string | undefined = undefined;
  /** What the fault that applied was made of (`faults.ts` FAULT_KINDS). */
  faultKinds: readonly FaultKind[] | undefined = undefined;
  /** Behaviours the answer shows that only the handler, the domain or a scenario knew (from its result). */
  marks: readonly BehaviourMark[] | undefined = undefined;
  /** Set when a fault dropped the connection. */
  dropped = false;
  /** Notices found while serving the request (created on the first one). */
  notices: Notice[] | undefined = undefined;
  /** Set by the request recorder on arrival; cleared once the request is journaled. */
  arrival: Arrival | undefined = undefined;

  /** `requestId`: the vendor's request identifier (`apiRequestUid`), also sent as `x-request-id`. */
  constructor(readonly requestId: string) {}

  /** The instance serving the request, for the routes that run only once it is picked. */
  served(): Instance {
    if (!this.instance) throw new Error('no instance was picked for this request');
    return this.instance;
  }
}

/** What makes `parseurl` (Express's `req.path`, `req.query`) hand a request target to `url.parse`. */
const UNUSUAL_TARGET = /[\t\n\f\r #\u00a0\ufeff]/;

/**
 * Where a plain request target's path ends (at its `?`, else its length); undefined for a target
 * only Express's URL parsing reads right. Every request passes here, and most targets are plain.
 */
function pathEnd(url: string): number | undefined {
  if (url.charCodeAt(0) !== 0x2f || UNUSUAL_TARGET.test(url)) return undefined;
  const q = url.indexOf('?');
  return q < 0 ? url.length : q;
}

/** The path of the request's URL, as Express's `req.path` reads it, without its URL object. */
export function pathOf(req: Request): string {
  const end = pathEnd(req.url);
  return end === undefined ? req.path : req.url.slice(0, end);
}

/**
 * The query as Express's `req.query` reads it with the `simple` parser (node:querystring), parsed
 * afresh on every call, without its URL object.
 */
export function queryOf(req: Request): Record<string, unknown> {
  const end = pathEnd(req.url);
  return end === undefined ? (req.query as Record<string, unknown>) : parseQuery(req.url.slice(end + 1));
}

/** The state of the request `res` answers. */
export const stateOf = (res: Response): RequestState => res.locals as RequestState;
