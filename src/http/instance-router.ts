import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Options } from '../config.js';
import { ApiError } from '../errors.js';
import type { BodyMedia } from '../harness/kept-body.js';
import type { ResponseChecks } from '../harness/runtime-response-checks.js';
import type { TenantRegistry } from '../harness/tenants.js';
import type { MemoryBudget } from '../memory-budget.js';
import { createAdminGuard } from './admin-origin-guard.js';
import { createAdminAuth } from './admin-token-check.js';
import { createFaultInjector } from './fault-injector.js';
import { chain } from './middleware-chain.js';
import { createRateLimiter } from './rate-limiter.js';
import { createRequestRecorder } from './request-recorder.js';
import { stateOf } from './request-state.js';
import { createScenarioHooks } from './scenario-hooks.js';
import { inspector, isInspectorPath } from './ui-assets.js';

/**
 * Admin calls may carry whole fixture sets, larger than a vendor request should be: their limit
 * is this or `bodyLimit`, whichever is larger (the vendor API's 413 threshold stays untouched).
 */
export const ADMIN_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * The MCP server at `/__admin/mcp` (mcp/http-endpoint.ts, given by the composition when `mcpHttp`
 * is on): reached after the admin guard, the token check and body parsing, like any admin call.
 */
export interface McpRoute {
  /** False until the fake listens on a port: the endpoint's tool calls go there. */
  ready(): boolean;
  handle(req: Request, res: Response, publicUrl: string): Promise<void>;
}

export interface InstanceRouterOptions {
  options: Pick<Options, 'bodyLimit' | 'maxQueryLength' | 'adminToken' | 'adminOrigins' | 'adminHosts'>;
  /** The spec router of the admin operations (tag `admin`). */
  adminRouter: RequestHandler;
  /** The spec router of the vendor operations. */
  apiRouter: RequestHandler;
  checks: ResponseChecks;
  /** The spec's route nearest to a method and path that matched none (`createRouteSuggester`). */
  suggestRoute: (method: string, path: string) => string | undefined;
  /** The server's memory budget: bodies being read and parsed are counted in it. */
  memory?: MemoryBudget;
  /** The MCP endpoint, when `mcpHttp` is on. */
  mcp?: McpRoute;
  /** The tenants whose tokens the admin API takes besides the operator's (`--tenants`). */
  tenants?: TenantRegistry;
}

const MCP_PATH = '/__admin/mcp';

/** `/__admin/mcp`: the MCP endpoint at the root URL, or a 404 saying where it is and how it is turned on. */
function mcpRoute(mcp: McpRoute | undefined): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(res);
    if (state.path !== MCP_PATH) {
      next();
      return;
    }
    if (mcp === undefined) {
      next(
        new ApiError(
          'routeNotFound',
          `Route not found: ${req.method} ${MCP_PATH}: start the fake with --mcp-http (MCP_HTTP) to serve MCP there`,
        ),
      );
      return;
    }
    if (state.instance?.id !== undefined) {
      next(
        new ApiError(
          'routeNotFound',
          `Route not found: the MCP endpoint is at the root URL (${MCP_PATH}); its tools take the session as an argument`,
        ),
      );
      return;
    }
    if (!mcp.ready()) {
      next(
        new ApiError(
          'routeNotFound',
          `Route not found: ${MCP_PATH} is served once the fake listens on a port (its tools call the admin API there)`,
        ),
      );
      return;
    }
    mcp.handle(req, res, `${req.protocol}://${req.headers.host ?? ''}`).catch(next);
  };
}

function queryLengthGuard(maxQueryLength: number): RequestHandler {
  return (req, _res, next) => {
    const q = req.originalUrl.indexOf('?');
    if (q >= 0 && req.originalUrl.length - q - 1 > maxQueryLength) {
      next(new ApiError('uriTooLong', `query string longer than ${maxQueryLength} characters`));
      return;
    }
    next();
  };
}

/**
 * Counts a body against the `bodies` share of the memory budget from before it is read until
 * its answer is sent: its declared length when sent as is, the parser's limit when compressed
 * or chunked (how far it inflates is known only once read). A body that does not fit is refused
 * with 429 `memoryBudget` and `Retry-After`, before a byte of it is read. Answers whether the
 * request may go on.
 */
function holdBody(
  memory: MemoryBudget,
  limit: number,
  req: Request,
  res: Response,
  next: NextFunction,
): boolean {
  const { headers } = req;
  const declared = Number(headers['content-length']);
  const encoding = headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
  const bytes = encoding === 'identity' && Number.isFinite(declared) ? declared : limit;
  if (!memory.fits('bodies', bytes)) {
    res.setHeader('retry-after', '1');
    res.setHeader('connection', 'close');
    next(memory.refusal('bodies', bytes));
    return false;
  }
  memory.add('bodies', bytes);
  res.once('close', () => memory.release('bodies', bytes));
  return true;
}

/**
 * JSON, form and (for any other type, so the size limit still applies) raw bodies. Requests
 * without a body (most of them: GETs) skip the parsers altogether. With a memory budget, no body
 * is larger than the `bodies` share of it (a body that size could never be held), and each is
 * counted while it is read and handled (`holdBody`).
 */
function bodyParser(configuredLimit: number, memory?: MemoryBudget): RequestHandler {
  const limit = memory ? Math.min(configuredLimit, memory.limit('bodies')) : configuredLimit;
  // The body as read, before parsing (even when parsing fails), for the journal's text of it.
  const keep =
    (media: BodyMedia) =>
    (_req: unknown, res: Response, buf: Buffer): void => {
      const state = stateOf(res);
      state.rawBody = buf;
      state.rawMedia = media;
    };
  const parse = chain(
    express.json({ limit, type: ['application/json', 'application/*+json'], verify: keep('json') }),
    express.urlencoded({
      limit,
      extended: false,
      type: 'application/x-www-form-urlencoded',
      verify: keep('form'),
    }),
    express.raw({ limit, type: () => true, verify: keep('text') }),
  );
  return (req, res, next) => {
    const { headers } = req;
    if (headers['transfer-encoding'] === undefined && headers['content-length'] === undefined) {
      next();
      return;
    }
    // A declared length over the limit is refused before a byte of the body is read; the
    // connection closes after the answer, so the client need not send the rest.
    if (Number(headers['content-length']) > limit) {
      res.setHeader('connection', 'close');
      next(new ApiError('payloadTooLarge', `request body too large: content-length over ${limit} bytes`));
      return;
    }
    if (memory && !holdBody(memory, limit, req, res, next)) return;
    parse(req, res, (error?: unknown) => {
      // An empty body of a type no parser reads (content-length: 0) is no body at all.
      if (Buffer.isBuffer(req.body) && req.body.length === 0) req.body = undefined;
      next(error);
    });
  };
}

/** No route matched: the 404 names the nearest one the spec has, when one is near. */
function routeNotFound(suggest: InstanceRouterOptions['suggestRoute']): RequestHandler {
  return (req, res, next) => {
    const { path } = stateOf(res);
    const near = suggest(req.method, path);
    const asked = `${req.method} ${path}`;
    next(
      new ApiError(
        'routeNotFound',
        near === undefined
          ? `Route not found: ${asked}`
          : `Route not found: ${asked}; the nearest route is ${near}`,
      ),
    );
  };
}

const isAdminPath = (path: string) => path === '/__admin' || path.startsWith('/__admin/');

/**
 * The routes of one instance, relative to where it is served (`/` for the root,
 * `/sessions/{id}` for a session); the instance itself is chosen per request on
 * `res.locals.instance`, so this router is built once per server and serves them all.
 *
 *   /__admin/ui   the inspector's page and assets (no data, so no token); a browser opening
 *                 /__admin or /__admin/journal is sent there
 *   /__admin/...  auth (all but health), parsing, admin spec router; never journaled or faulted
 *   anything else journal, limits, parsing, scenarios, rate limits, latency and faults, vendor spec router, 404
 */
export function createInstanceRouter({
  options,
  adminRouter,
  apiRouter,
  checks,
  suggestRoute,
  memory,
  mcp,
  tenants,
}: InstanceRouterOptions): RequestHandler {
  const notFound = routeNotFound(suggestRoute);
  const auth = createAdminAuth(options.adminToken, tenants);
  const browserGuard = createAdminGuard(options);
  const guard = queryLengthGuard(options.maxQueryLength);
  const admin = chain(
    (req, res, next) => (stateOf(res).path === '/__admin/health' ? next() : browserGuard(req, res, next)),
    (req, res, next) => (stateOf(res).path === '/__admin/health' ? next() : auth(req, res, next)),
    guard,
    bodyParser(Math.max(options.bodyLimit, ADMIN_BODY_LIMIT), memory),
    mcpRoute(mcp),
    adminRouter,
    notFound,
  );
  const api = chain(
    createRequestRecorder(checks),
    guard,
    bodyParser(options.bodyLimit, memory),
    createScenarioHooks(),
    createRateLimiter(),
    createFaultInjector(),
    apiRouter,
    notFound,
  );
  return (req, res, next) => {
    const state = stateOf(res);
    const { path } = state;
    if (!isAdminPath(path)) {
      api(req, res, next);
      return;
    }
    if (inspector.redirect(req, res, path, state.basePath)) return;
    if (isInspectorPath(path)) inspector.serve(req, res, path);
    else admin(req, res, next);
  };
}
