import { randomUUID } from 'node:crypto';
import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { Options } from '../config.js';
import { ApiError } from '../errors.js';
import { createErrorHandler } from './error-handler.js';
import { adminHandlers } from './handlers/admin-handlers.js';
import { vendorHandlers } from './handlers/vendor-handlers.js';
import type { Instance } from './instance.js';
import type { OperationHandler } from './operation-handler.js';
import { listOperations, type Operation } from './operations.js';
import type { LoadedSpec } from './spec-document.js';
import { createSpecFallback } from './spec-fallback.js';
import { createSpecRouter, type RequestLocals } from './spec-router.js';

export interface AppContext {
  options: Options;
  spec: LoadedSpec;
  root: Instance;
  logger: Logger;
}

const ADMIN_TAG = 'admin';

function requestBasics(): RequestHandler {
  return (req, res, next) => {
    const locals = res.locals as Partial<RequestLocals>;
    locals.requestId = randomUUID();
    locals.baseUrl = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    next();
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

function corsMiddleware(origins: string): RequestHandler {
  const list = origins
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return cors({
    origin: list.includes('*') ? true : list,
    methods: ['GET', 'PUT', 'PATCH', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['content-type', 'x-access-token', 'x-api-token', 'x-key', 'x-hash', 'authorization'],
    exposedHeaders: ['x-request-id', 'x-fake-session', 'x-fake-fallback', 'x-fake-fault', 'retry-after'],
    maxAge: 600,
  });
}

/**
 * Builds the Express app for one server: the spec router is built once and serves the root
 * instance and (later) every session instance, chosen per request on `res.locals.instance`.
 */
export function createApp(context: AppContext): Express {
  const { options, spec, root, logger } = context;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('etag', false);

  const operations = listOperations(spec.document);
  const fallback = createSpecFallback(spec.document);
  const router = (tagged: boolean) =>
    createSpecRouter({
      document: spec.document,
      operations: operations.filter((op) => op.tags.includes(ADMIN_TAG) === tagged),
      handlers: { ...vendorHandlers, ...adminHandlers },
      fallback,
    });
  const adminRouter = router(true);
  const apiRouter = router(false);

  const limit = options.bodyLimit;
  app.use(requestBasics());
  app.use(pinoHttp({ logger, genReqId: (_req, res) => String(res.locals.requestId), quietReqLogger: true }));
  app.use((_req, res, next) => {
    res.set('x-request-id', String(res.locals.requestId));
    next();
  });
  app.use(corsMiddleware(options.corsOrigins));
  app.use(queryLengthGuard(options.maxQueryLength));
  app.use(express.json({ limit, type: ['application/json', 'application/*+json'] }));
  app.use(express.urlencoded({ limit, extended: false, type: 'application/x-www-form-urlencoded' }));
  app.use(express.raw({ limit, type: () => true }));

  app.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(spec.json);
  });
  app.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(spec.yaml);
  });

  const useRoot: RequestHandler = (_req, res, next) => {
    res.locals.instance = root;
    next();
  };
  app.use(useRoot, adminRouter, apiRouter);
  app.use((_req, _res, next) => next(new ApiError('routeNotFound')));
  app.use(
    createErrorHandler({
      onUnexpected: (error) => logger.error({ err: error }, 'unexpected error while handling a request'),
    }),
  );
  return app;
}
