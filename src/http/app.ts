import { randomUUID } from 'node:crypto';
import cors from 'cors';
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Logger } from 'pino';
import type { Options } from '../config.js';
import { listOperations } from '../contract/operations.js';
import type { OperationValidators } from '../contract/request-validator.js';
import type { LoadedSpec } from '../contract/spec-document.js';
import { createSpecFallback } from '../contract/spec-fallback.js';
import { ApiError } from '../errors.js';
import type { Instance } from '../harness/instance.js';
import { ResponseChecks } from '../harness/response-checks.js';
import { type SessionRegistry, sessionPath } from '../harness/sessions.js';
import type { MemoryBudget } from '../memory-budget.js';
import { createErrorHandler, toApiError } from './error-handler.js';
import { createFrontPages } from './front-pages.js';
import { createAdminHandlers } from './handlers/admin-handlers.js';
import { vendorHandlers } from './handlers/vendor-handlers.js';
import { createInstanceRouter } from './instance-router.js';
import { chain } from './middleware-chain.js';
import { createRequestLog } from './request-log.js';
import { RequestState, stateOf } from './request-state.js';
import { createSpecRouter } from './spec-router.js';
import { wantsHtml } from './ui-assets.js';

export interface AppContext {
  options: Options;
  spec: LoadedSpec;
  root: Instance;
  sessions: SessionRegistry;
  logger: Logger;
  /** The spec's request validators, shared with the programmatic API. */
  validators: OperationValidators;
  /** Where the root's fixtures came from (a path, `inline`, `default`), named on the landing page. */
  fixtureSource?: string;
  /** The server's memory budget: bodies in flight are counted in it, health reports it. */
  memory?: MemoryBudget;
}

const ADMIN_TAG = 'admin';

/** The request's state on `res.locals`, with its id, also sent as `x-request-id`. */
function requestBasics(): RequestHandler {
  return (_req, res, next) => {
    const state = new RequestState(randomUUID());
    res.locals = state;
    res.setHeader('x-request-id', state.requestId);
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
    allowedHeaders: ['content-type', 'x-access-token', 'x-api-token', 'x-key', 'x-hash', 'authorization'],
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
 * is for), the admin API only for `adminOrigins` (none by default; the fake's own pages are same
 * origin and need none).
 */
function corsMiddleware(vendorOrigins: string, adminOrigins: string | undefined): RequestHandler {
  const vendor = corsFor(vendorOrigins);
  const admin = corsFor(adminOrigins ?? '');
  return (req, res, next) => (ADMIN_PATH.test(req.path) ? admin(req, res, next) : vendor(req, res, next));
}

const SESSION_PREFIX = '/sessions/';

interface DispatchOptions {
  spec: LoadedSpec;
  root: Instance;
  sessions: SessionRegistry;
  instanceRoutes: RequestHandler;
  /** `/`, `/favicon.ico`, `/docs` (http/front-pages.ts): answers whether it served the request. */
  frontPages: (req: Request, res: Response) => boolean;
}

/**
 * Picks what serves a request: the spec documents, a session's instance (`/sessions/{id}/...`,
 * served with the session prefix taken off the URL, as a mounted router would see it) or the
 * root instance (everything else). Done in one step, with no router layers, because every
 * request passes here.
 */
function dispatch({ spec, root, sessions, instanceRoutes, frontPages }: DispatchOptions): RequestHandler {
  return (req, res, next) => {
    const path = req.path;
    if (req.method === 'GET' || req.method === 'HEAD') {
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
    state.instance = root;
    state.path = path;
    instanceRoutes(req, res, next);
  };
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Keeps the error on `res.locals` for the journal, then hands it on to the error handler. */
const captureError: ErrorRequestHandler = (error, _req, res, next) => {
  stateOf(res).apiError = toApiError(error);
  next(error);
};

/**
 * Builds the Express app for one server. The spec routers are built once and serve the root
 * instance and every session instance, chosen per request (`RequestState.instance`).
 */
export function createApp(context: AppContext): Express {
  const { options, spec, root, sessions, logger, validators } = context;
  const app = express();
  app.disable('x-powered-by');
  // node:querystring, which the journal also uses when it lists a request's query.
  app.set('query parser', 'simple');
  app.set('etag', false);

  const operations = listOperations(spec.document);
  const fallback = createSpecFallback(spec.document);
  const handlers = {
    ...vendorHandlers,
    // Where the live service serves its Swagger document: this spec, as JSON.
    getSwaggerDocument: () => ({
      status: 200,
      body: spec.document,
      json: { text: spec.json, bytes: Buffer.byteLength(spec.json) },
    }),
    ...createAdminHandlers({ root, sessions, memory: context.memory }),
  };
  const router = (tagged: boolean) =>
    createSpecRouter({
      document: spec.document,
      operations: operations.filter((op) => op.tags.includes(ADMIN_TAG) === tagged),
      handlers,
      fallback,
      validators,
    });
  const instanceRoutes = createInstanceRouter({
    options,
    adminRouter: router(true),
    apiRouter: router(false),
    checks: new ResponseChecks(spec.document, logger),
    memory: context.memory,
  });

  // One application-level middleware for everything before the error handlers; a silent logger
  // (tests, benchmarks) gets no request-log step at all.
  app.use(
    chain(
      requestBasics(),
      ...(logger.isLevelEnabled('error') ? [createRequestLog(logger)] : []),
      corsMiddleware(options.corsOrigins, options.adminOrigins),
      dispatch({
        spec,
        root,
        sessions,
        instanceRoutes,
        frontPages: createFrontPages({ root, fixtureSource: context.fixtureSource ?? 'default' }),
      }),
    ),
  );
  app.use(captureError);
  app.use(
    createErrorHandler({
      onUnexpected: (error) => logger.error({ err: error }, 'unexpected error while handling a request'),
    }),
  );
  return app;
}
