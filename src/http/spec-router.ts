import { type NextFunction, type Request, type Response, Router } from 'express';
import { ApiError } from '../errors.js';
import type { Instance } from './instance.js';
import type { HandlerTable, OperationHandler } from './operation-handler.js';
import type { Operation } from './operations.js';
import { createValidatorFactory, type RequestValidator } from './request-validator.js';
import { type OpenApiDocument, resolveRef } from './spec-document.js';

export interface SpecRouterOptions {
  document: OpenApiDocument;
  operations: Operation[];
  handlers: HandlerTable;
  /** Answers operations that have no handler (the spec fallback). */
  fallback: (operation: Operation) => OperationHandler;
}

/** Per-request values the app puts on `res.locals` before the router runs. */
export interface RequestLocals {
  instance: Instance;
  requestId: string;
  /** Where the instance is mounted: '' for the root, `/sessions/{id}` for a session. */
  basePath?: string;
  /** Set here: the operation the request matched (for the journal and response checks). */
  operationId?: string;
  /** Set here: the body as sent, so the journal need not re-parse it. */
  responseBody?: unknown;
}

/**
 * The header names that carry an access token for an operation, from its security requirement.
 * Empty when the operation needs none (an empty requirement `{}` makes security optional).
 */
function tokenHeaders(document: OpenApiDocument, operation: Operation): string[] {
  const requirements = (operation.raw.security ?? document.security) as
    | Array<Record<string, unknown>>
    | undefined;
  if (!Array.isArray(requirements) || requirements.some((r) => Object.keys(r).length === 0)) return [];
  const schemes = (document.components?.securitySchemes ?? {}) as Record<string, unknown>;
  const headers: string[] = [];
  for (const requirement of requirements) {
    for (const name of Object.keys(requirement)) {
      const scheme = resolveRef<Record<string, unknown>>(document, schemes[name]);
      if (scheme?.type === 'apiKey' && scheme.in === 'header')
        headers.push(String(scheme.name).toLowerCase());
    }
  }
  return headers;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * No token header at all: the request breaks the contract (a wrong or expired token does not),
 * so the error names the header in `errors`, which also marks it as a violation in the journal.
 */
function missingToken(headerNames: string[]): ApiError {
  const [first, ...others] = headerNames;
  const alternatives = others.length > 0 ? ` (or ${others.join(', ')})` : '';
  return new ApiError('invalidToken', 'Invalid token: no access token sent', [
    { location: `header.${first}`, message: `is required${alternatives}` },
  ]);
}

/** Sends a JSON text; what `res.json` does, without its per-call option lookups. */
function sendJson(res: Response, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

function mediaTypeOf(request: Request): string | undefined {
  const header = request.headers['content-type'];
  if (!header) return undefined;
  return header.split(';')[0]?.trim().toLowerCase() || undefined;
}

/**
 * An Express router with one route per spec operation: validation compiled once here, then the
 * handler (or the fallback). A known path with another method answers 405.
 */
export function createSpecRouter({ document, operations, handlers, fallback }: SpecRouterOptions): Router {
  const router = Router({ caseSensitive: true, strict: false });
  const compile = createValidatorFactory(document);
  const paths = new Set<string>();

  for (const operation of operations) {
    const validate: RequestValidator = compile(operation);
    const handler = handlers[operation.operationId] ?? fallback(operation);
    const tokenHeaderNames = tokenHeaders(document, operation);
    paths.add(operation.routePath);

    router[operation.method](operation.routePath, async (req: Request, res: Response, next: NextFunction) => {
      try {
        const locals = res.locals as RequestLocals;
        locals.operationId = operation.operationId;
        let principal: ReturnType<Instance['fake']['authenticate']> | undefined;
        if (tokenHeaderNames.length > 0) {
          const token = tokenHeaderNames
            .map((h) => firstHeader(req.headers[h]))
            .find((v) => v !== undefined && v !== '');
          if (token === undefined) throw missingToken(tokenHeaderNames);
          principal = locals.instance.fake.authenticate(token);
        }
        const request = validate({
          params: req.params as Record<string, string>,
          query: Object.assign(Object.create(null), req.query),
          headers: req.headers,
          body: req.body,
          mediaType: mediaTypeOf(req),
        });
        const result = await handler({
          operation,
          instance: locals.instance,
          principal,
          request,
          headers: req.headers,
          requestId: locals.requestId,
          // Only the session calls need it: built on demand from the Host the client used.
          get baseUrl() {
            return `${req.protocol}://${req.get('host') ?? 'localhost'}${locals.basePath ?? ''}`;
          },
        });
        if (result.headers) res.set(result.headers);
        locals.responseBody = result.body;
        sendJson(res, result.status, result.json ?? JSON.stringify(result.body) ?? '');
      } catch (error) {
        next(error);
      }
    });
  }
  for (const path of paths) {
    router.all(path, (_req, _res, next) => next(new ApiError('methodNotAllowed')));
  }
  return router;
}
