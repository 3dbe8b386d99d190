import { randomUUID } from 'node:crypto';
import { IncomingMessage, type RequestListener, ServerResponse } from 'node:http';
import cors from 'cors';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { Options } from '../config.js';
import { createRouteSuggester } from '../contract/nearest-route.js';
import type { OperationTable } from '../contract/operation-handler.js';
import type { AdminOperationId, VendorOperationId } from '../contract/operation-ids.js';
import { ADMIN_TAG, listOperations } from '../contract/operations.js';
import type { OperationValidators } from '../contract/request-validator.js';
import type { LoadedSpec } from '../contract/spec-document.js';
import { createSpecFallback } from '../contract/spec-fallback.js';
import { ApiError } from '../errors.js';
import type { Fleet } from '../fleet/fleet.js';
import { createFleetRouting } from '../fleet/routing.js';
import type { Instance } from '../harness/instance/instance.js';
import type { ServerPowers } from '../harness/instance/server-powers.js';
import { type Session, type SessionRegistry, sessionPath } from '../harness/sessions/sessions.js';
import { ResponseChecks } from '../harness/verdicts/runtime-response-checks.js';
import type { MemoryBudget } from '../memory-budget.js';
import { addNotice, notice } from '../notices.js';
import { createAdminGuardCheck, createRefusalPreflight } from './admin-origin-guard.js';
import { createAdminAuthCheck } from './admin-token-check.js';
import { createErrorHandler } from './error-handler.js';
import { proxyRouteOf } from './forward-proxy.js';
import { createFrontPages } from './front-pages.js';
import { createInstanceRouter, type McpRoute } from './instance-router.js';
import { chain } from './middleware-chain.js';
import { createRequestLog } from './request-log.js';
import { pathOf, RequestState, stateOf } from './request-state.js';
import { SESSION_MEMBER, sessionOfBaggage } from './session-baggage.js';
import { createSpecRouter } from './spec-router.js';
import { createTenantBoundary } from './tenant-boundary.js';
import { wantsHtml } from './ui-assets.js';

/** The handler tables the spec routers call: one handler for every operation of each. */
export interface AppHandlers {
  vendor: OperationTable<VendorOperationId, Instance>;
  admin: OperationTable<AdminOperationId, Instance>;
}

export interface AppContext {
  /** The vendor API's handlers and the admin API's (`createVendorHandlers`, `createAdminHandlers`). */
  handlers: AppHandlers;
  options: Options;
  spec: LoadedSpec;
  /** The server's admin powers, with its root instance and sessions; `/__admin` adapts them. */
  powers: ServerPowers;
  logger: Logger;
  /** The spec's request validators, shared with the programmatic API. */
  validators: OperationValidators;
  /** Where the root's fixtures came from (a path, `inline`, `default`), named on the landing page. */
  fixtureSource?: string;
  /** The CA certificate (PEM) clients trust for HTTPS, served at `/__admin/tls/ca.pem`; absent when HTTPS is off. */
  tlsCaPem?: string;
  /** The server's memory budget: bodies in flight are counted in it, health reports it. */
  memory?: MemoryBudget;
  /** The MCP endpoint at `/__admin/mcp`, when `mcpHttp` is on. */
  mcp?: McpRoute;
  /** The fleet this server is a replica of (docs/fleet.md); absent: one process. */
  fleet?: Fleet;
}

/**
 * The request's state on `res.locals`, with its id, also sent as `x-request-id`; and
 * `X-Content-Type-Options: nosniff` on every answer, so a browser never reads a JSON answer
 * holding what a client sent (a document's text, a journal body) as HTML or script.
 */
function requestBasics(): RequestHandler {
  return (req, res, next) => {
    const state = new RequestState(randomUUID());
    state.path = pathOf(req);
    const route = proxyRouteOf(req);
    if (route !== undefined) {
      state.via = route.via;
      state.scheme = route.scheme;
    }
    res.locals = state;
    res.setHeader('x-request-id', state.requestId);
    res.setHeader('x-content-type-options', 'nosniff');
    next();
  };
}

/**
 * CORS for browser apps: any origin by default (`corsOrigins` narrows it to a list), the token,
 * key and admin headers allowed, the fake's own headers exposed. Preflights are answered here,
 * before any instance, so they work for session URLs too and are never journaled. A request from
 * an origin not on the list gets no CORS headers at all (its preflight a bare 204, which the
 * browser refuses).
 */
function corsFor(origins: string): RequestHandler {
  const list = origins
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  const anyOrigin = list.includes('*');
  const allowed = new Set(list);
  const handler = cors({
    origin: anyOrigin ? true : list,
    methods: ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'content-type',
      'x-access-token',
      'x-api-token',
      'x-key',
      'x-hash',
      'authorization',
      'baggage',
    ],
    exposedHeaders: ['x-request-id', 'x-fake-session', 'x-fake-fault', 'x-fake-fallback'],
    maxAge: 600,
  });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) {
      // Not a browser's cross-origin request (test clients, curl): no CORS headers to compute.
      // Nothing has set Vary yet (this runs first), so it is set rather than merged.
      res.setHeader('vary', 'Origin');
      next();
      return;
    }
    if (anyOrigin || allowed.has(origin)) {
      handler(req, res, next);
      return;
    }
    res.vary('Origin');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.status(204).end();
      return;
    }
    next();
  };
}

/** `/__admin/...` of the root or of a session. */
const ADMIN_PATH = /^(?:\/sessions\/[^/]+)?\/__admin(?:\/|$)/;

/**
 * CORS by path: the vendor API for `corsOrigins` (any origin by default: browser apps are what it
 * is for), the admin API and the landing page (which shows key secrets to whom the admin API
 * would answer) only for `adminOrigins` (none by default; the fake's own pages are same origin
 * and need none).
 */
function corsMiddleware(options: Options): RequestHandler {
  const vendor = corsFor(options.corsOrigins);
  const admin = corsFor(options.adminOrigins ?? '');
  // A refused page's preflight is answered, so it can read the refusal (admin-origin-guard.ts).
  const refusalPreflight = createRefusalPreflight(options);
  return (req, res, next) => {
    const { path } = stateOf(res);
    if (path === '/') admin(req, res, next);
    else if (ADMIN_PATH.test(path)) {
      if (!refusalPreflight(req, res)) admin(req, res, next);
    } else vendor(req, res, next);
  };
}

/**
 * Would the admin API answer this request with the root's secrets? Its guard and the operator's
 * token (a tenant's does not reach the root), asked without answering.
 */
function adminWouldAnswer(options: Options): (req: Request) => boolean {
  const guard = createAdminGuardCheck(options);
  const auth = createAdminAuthCheck(options.adminToken);
  return (req) => {
    if (guard(req) !== undefined) return false;
    const caller = auth(req);
    return !(caller instanceof ApiError) && caller.tenant === undefined;
  };
}

const SESSION_PREFIX = '/sessions/';

/** Where the CA certificate is served (root only; it is public, so open like the health check). */
const CA_PATH = '/__admin/tls/ca.pem';

interface DispatchOptions {
  tlsCaPem: string | undefined;
  spec: LoadedSpec;
  root: Instance;
  sessions: SessionRegistry;
  instanceRoutes: RequestHandler;
  /** `/`, `/favicon.ico`, `/docs` (http/front-pages.ts): answers whether it served the request. */
  frontPages: (req: Request, res: Response) => boolean;
  /** `sessionBaggage` on: the `baggage` member `passportal-fake-session` routes a request. */
  sessionBaggage: boolean;
}

/**
 * Picks what serves a request: the spec documents, a session's instance (`/sessions/{id}/...`,
 * served with the session prefix taken off the URL, as a mounted router would see it), the
 * session whose own key or token a request at the root carries (`sessionOfKey`), or the root
 * instance (everything else). Done in one step, with no router layers, because every
 * request passes here.
 */
function dispatch({
  tlsCaPem,
  spec,
  root,
  sessions,
  instanceRoutes,
  frontPages,
  sessionBaggage,
}: DispatchOptions): RequestHandler {
  return (req, res, next) => {
    const { path } = stateOf(res);
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (path === CA_PATH) {
        if (tlsCaPem === undefined) {
          next(
            new ApiError(
              'tlsNotEnabled',
              'HTTPS is not enabled: start the fake with --https-port (HTTPS_PORT)',
            ),
          );
          return;
        }
        res.type('application/x-pem-file').send(tlsCaPem);
        return;
      }
      if (path === '/openapi.json') {
        res.type('application/json').send(spec.json);
        return;
      }
      if (path === '/openapi.yaml') {
        // A browser shows text; it would download application/yaml.
        res.type(wantsHtml(req) ? 'text/plain' : 'application/yaml').send(spec.yaml);
        return;
      }
      if (!path.startsWith('/api/') && frontPages(req, res)) return;
    }
    const state = stateOf(res);
    if (path.startsWith(SESSION_PREFIX)) {
      const slash = path.indexOf('/', SESSION_PREFIX.length);
      const end = slash < 0 ? path.length : slash;
      const rawId = path.slice(SESSION_PREFIX.length, end);
      if (rawId !== '') {
        const id = decodeSegment(rawId);
        const rest = path.slice(end);
        if (sessionBaggage && id !== undefined && !isAdminPath(rest)) {
          const carried = baggageSession(req, state);
          if (carried !== undefined && carried !== id) {
            next(conflict(carried, id, state.via === 'proxy-session' ? 'the proxy user' : 'the URL prefix'));
            return;
          }
        }
        const instance = id === undefined ? undefined : sessions.use(id);
        if (instance === undefined || id === undefined) {
          next(
            new ApiError(
              'sessionNotFound',
              `Session not found: "${id ?? rawId}" (deleted, idle too long, or never created)`,
            ),
          );
          return;
        }
        state.instance = instance;
        state.basePath = sessionPath(id);
        res.setHeader('x-fake-session', id);
        const query = req.url.indexOf('?');
        state.path = path.slice(end) || '/';
        req.url = state.path + (query < 0 ? '' : req.url.slice(query));
        instanceRoutes(req, res, next);
        return;
      }
    }
    state.path = path;
    const keyed = sessions.routesByKey ? sessionOfKey(req, path, sessions) : undefined;
    const carried = sessionBaggage && !isAdminPath(path) ? baggageSession(req, state) : undefined;
    if (carried !== undefined) {
      if (keyed !== undefined && keyed.id !== carried) {
        next(conflict(carried, keyed.id, 'its own API key or token'));
        return;
      }
      if (keyed === undefined) {
        const instance = sessions.use(carried);
        if (instance === undefined) {
          next(
            new ApiError(
              'sessionNotFound',
              `Session not found: "${carried}", named by the baggage member ${SESSION_MEMBER} (deleted, idle too long, or never created)`,
            ),
          );
          return;
        }
        // As at the root URL with an own key: no prefix, no `x-fake-session`.
        state.instance = instance;
        state.via = 'baggage-session';
        instanceRoutes(req, res, next);
        return;
      }
    }
    if (keyed === undefined) {
      state.instance = root;
    } else {
      // Served as if at the session's URL, but without its prefix (so `basePath` stays '') and
      // without `x-fake-session`: the session id opens the session's admin API, and this answer
      // may be read by a page of another origin.
      state.instance = keyed.instance;
      state.via = 'key-session';
    }
    instanceRoutes(req, res, next);
  };
}

const isAdminPath = (path: string) => path === '/__admin' || path.startsWith('/__admin/');

/**
 * The session the request's `baggage` names (http/session-baggage.ts); what does not parse is
 * noted on the request (`baggageMalformed`) and journaled with it by whichever instance serves it.
 */
function baggageSession(req: Request, state: RequestState): string | undefined {
  const { session, problems } = sessionOfBaggage(req.headers.baggage);
  if (problems.length > 0)
    addNotice(state, notice('baggageMalformed', 'header.baggage', problems.join('; ')));
  return session;
}

/** The request names one session by its baggage and another by `other`: 400, naming both. */
function conflict(carried: string, named: string, other: string): ApiError {
  return new ApiError(
    'sessionConflict',
    `The request names two sessions: "${carried}" by its baggage (${SESSION_MEMBER}) and "${named}" by ${other}; send one, or the same in both`,
  );
}

/** The first value of a header, when it is a non-empty string. */
function headerText(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

/**
 * The session a request at the root belongs to by its credentials: the token call's `x-key`
 * being one of a session's own keys, or the token (`x-access-token`, else `x-api-token`, the
 * order the spec router reads them in) one issued to such a key. One Map lookup each. The admin
 * API is never routed: it has credentials of its own.
 */
function sessionOfKey(req: Request, path: string, sessions: SessionRegistry): Session | undefined {
  if (path === '/__admin' || path.startsWith('/__admin/')) return undefined;
  const { headers } = req;
  const key = headerText(headers['x-key']);
  const byKey = key === undefined ? undefined : sessions.byKey(key);
  if (byKey) return byKey;
  const token = headerText(headers['x-access-token']) ?? headerText(headers['x-api-token']);
  return token === undefined ? undefined : sessions.byToken(token);
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Builds the request listener of one server. The spec routers are built once and serve the root
 * instance and every session instance, chosen per request (`RequestState.instance`).
 *
 * Express lends its request and response helpers (`req.query`, `res.type`, ...), its settings and
 * its body parsers; its router does not run. The app would route every request through a router,
 * a layer and a final handler to reach the one chain that serves everything, at a cost larger
 * than most of the fake's own work on a read, so the listener does what the app's entry does
 * before its router (the two objects linked, Express's prototypes, `originalUrl`, `next`) and runs
 * the chain itself. Every error, thrown or passed on, is journaled and rendered by the one error
 * handler.
 */
export function createApp(context: AppContext): RequestListener {
  const { options, spec, powers, logger, validators } = context;
  const { root, sessions } = powers;
  const { request, response } = expressHelpers();
  const classes = serverClasses();
  const operations = listOperations(spec.document);
  // A router is a few path patterns over the operations (well under a millisecond to make); its
  // validators are compiled once per spec, and the fallback mocker loads only when an operation
  // without a handler is called.
  const fallback = createSpecFallback(spec.document);
  const routerOf = (admin: boolean, handlers: AppHandlers['admin'] | AppHandlers['vendor']) =>
    createSpecRouter({
      document: spec.document,
      operations: operations.filter((op) => op.tags.includes(ADMIN_TAG) === admin),
      handlers,
      fallback,
      validators,
      // Tenants' tokens reach only what each admin operation's `x-tenant` allows them.
      authorize: admin && powers.tenants !== undefined ? createTenantBoundary(sessions) : undefined,
    });
  const adminRouter = routerOf(true, context.handlers.admin);
  const instanceRoutes = createInstanceRouter({
    options,
    adminRouter,
    apiRouter: routerOf(false, context.handlers.vendor),
    checks: new ResponseChecks(spec.document, logger),
    suggestRoute: createRouteSuggester(operations),
    memory: context.memory,
    mcp: context.mcp,
    tenants: powers.tenants,
  });

  // One chain for everything; a silent logger (tests, benchmarks) gets no request-log step at all.
  const serve = chain(
    requestBasics(),
    ...(logger.isLevelEnabled('error') ? [createRequestLog(logger)] : []),
    corsMiddleware(options),
    ...(context.fleet === undefined
      ? []
      : [
          createFleetRouting(
            context.fleet,
            options.sessionBaggage === 'on'
              ? (req) => sessionOfBaggage(req.headers.baggage).session
              : undefined,
          ),
        ]),
    dispatch({
      tlsCaPem: context.tlsCaPem,
      spec,
      root,
      sessions,
      instanceRoutes,
      sessionBaggage: options.sessionBaggage === 'on',
      frontPages: createFrontPages({
        root,
        fixtureSource: context.fixtureSource ?? 'default',
        mayReadSecrets: adminWouldAnswer(options),
      }),
    }),
  );
  const renderFailure = createErrorHandler({
    onUnexpected: (error) => logger.error({ err: error }, 'unexpected error while handling a request'),
  });
  return (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    res.req = req;
    // Made with Express's helpers by the fake's own servers (`serverClasses`); given them here when
    // another server (supertest's) made the pair.
    if (!(req instanceof classes.Request)) Object.setPrototypeOf(req, request);
    if (!(res instanceof classes.Response)) Object.setPrototypeOf(res, response);
    req.originalUrl ??= req.url;
    req.baseUrl = '';
    const done = (error?: unknown): void => {
      // Every path ends in an answer or an error; a chain that ran out is a route nobody serves.
      res.locals ??= new RequestState(randomUUID());
      renderFailure(error ?? new ApiError('routeNotFound'), req, res, noNext);
    };
    req.next = done;
    serve(req, res, done);
  };
}

/**
 * An Express app used for its request and response helpers alone (their prototypes, and the
 * settings they read): no routes, nothing of any server's, never changed once made, so every
 * server in the process takes its helpers from the one made first.
 */
let helpers: Express | undefined;

function expressHelpers(): Express {
  if (helpers) return helpers;
  const app = express();
  app.disable('x-powered-by');
  // node:querystring, which the journal also uses when it lists a request's query.
  app.set('query parser', 'simple');
  app.set('etag', false);
  helpers = app;
  return app;
}

/** Node's request and response classes, as a server is given them. */
export interface ServerClasses {
  Request: typeof IncomingMessage;
  Response: typeof ServerResponse;
}

let made: ServerClasses | undefined;

/**
 * The request and response classes of the fake's own servers (Node's `IncomingMessage` and
 * `ServerResponse` with Express's helpers on their prototypes): every request is born with what
 * the listener would otherwise give it by changing two prototypes per request, which V8 makes
 * costly.
 */
export function serverClasses(): ServerClasses {
  if (made) return made;
  const { request, response } = expressHelpers();
  class FakeRequest extends IncomingMessage {}
  // Node makes a response with its request as the one argument.
  const FakeResponse = class extends ServerResponse {} as typeof ServerResponse;
  Object.setPrototypeOf(FakeRequest.prototype, request);
  Object.setPrototypeOf(FakeResponse.prototype, response);
  made = { Request: FakeRequest, Response: FakeResponse };
  return made;
}

/** The error handler answers every error itself; it never hands one on. */
const noNext = (): void => {};
