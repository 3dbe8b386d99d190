import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type MatchFunction, match } from 'path-to-regexp';
import type {
  HandlerTable,
  OperationContext,
  OperationHandler,
  OperationResult,
} from '../contract/operation-handler.js';
import type { Operation } from '../contract/operations.js';
import type { OperationValidators, RequestValidator, ValidRequest } from '../contract/request-validator.js';
import { type OpenApiDocument, resolveRef } from '../contract/spec-document.js';
import type { Principal } from '../domain/fake.js';
import { ApiError } from '../errors.js';
import type { Instance } from '../harness/instance.js';
import { addNotice, type Notice, notice } from '../notices.js';
import { queryOf, type RequestState, stateOf } from './request-state.js';
import { sendResult } from './send-json.js';

export interface SpecRouterOptions {
  document: OpenApiDocument;
  operations: Operation[];
  handlers: HandlerTable<Instance>;
  /** Answers operations that have no handler (the spec fallback). */
  fallback: (operation: Operation) => OperationHandler<Instance>;
  validators: OperationValidators;
  /**
   * Who may call an operation, asked before anything else of it: the error to refuse the request
   * with, or undefined (the admin API's tenant boundary, `tenant-boundary.ts`).
   */
  authorize?: (operation: Operation, state: RequestState, req: Request) => ApiError | undefined;
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

function mediaTypeOf(request: Request): string | undefined {
  const header = request.headers['content-type'];
  if (!header) return undefined;
  return header.split(';')[0]?.trim().toLowerCase() || undefined;
}

/**
 * The first non-empty value of the token headers, in the order the security requirement names
 * them. A token in any but the first (`x-access-token`) works, with a notice: the vendor's
 * request examples send the first, its parameter tables name the others, and whether the live
 * service accepts those is unconfirmed.
 */
function tokenOf(request: Request, headerNames: string[], state: RequestState): string | undefined {
  for (const [index, name] of headerNames.entries()) {
    const value = firstHeader(request.headers[name]);
    if (value === undefined || value === '') continue;
    if (BEARER.test(value)) throw bearerPrefix(name);
    if (index > 0) {
      addNotice(
        state,
        notice(
          'tokenHeaderAlias',
          `header.${name}`,
          `the token was read from ${name}: the vendor's parameter tables name this header, its request examples send ${headerNames[0]}; whether the live service accepts ${name} is unconfirmed, so send ${headerNames[0]}`,
        ),
      );
    }
    return value;
  }
  return undefined;
}

const BEARER = /^bearer\s/i;

/**
 * `x-access-token: Bearer <token>`: the vendor's header carries the token alone (it is not an
 * Authorization header), and the live service would not know the prefixed value. A violation
 * that says what to send.
 */
function bearerPrefix(headerName: string): ApiError {
  return new ApiError(
    'invalidToken',
    `Invalid token: ${headerName} holds "Bearer <token>"; send the token alone, without the "Bearer " prefix`,
    [{ location: `header.${headerName}`, message: 'must be the access token alone, without "Bearer "' }],
  );
}

/** A path parameter that is not valid percent-encoding: the client's mistake, named. */
const malformedPath = () =>
  new ApiError('invalidId', 'invalid id: the path is not valid percent-encoding', [
    { location: 'path', message: 'is not valid percent-encoding' },
  ]);

/** What a handler sees of one request; the base URL is worked out only when asked for. */
class HttpOperationContext implements OperationContext<Instance> {
  readonly instance: Instance;
  readonly requestId: string;
  readonly headers: Request['headers'];
  readonly tenant: string | undefined;

  constructor(
    readonly operation: Operation,
    private readonly state: RequestState,
    readonly principal: Principal | undefined,
    readonly request: ValidRequest,
    private readonly req: Request,
  ) {
    this.instance = state.served();
    this.requestId = state.requestId;
    this.headers = req.headers;
    this.tenant = state.tenant?.tenant.name;
  }

  /** Only the session calls need it: built from the Host the client used. */
  get baseUrl(): string {
    return `${this.req.protocol}://${this.req.get('host') ?? 'localhost'}${this.state.basePath}`;
  }

  notice(found: Notice): void {
    addNotice(this.state, found);
  }
}

/** Serves one operation once its path has matched: authenticate, validate, handle, send. */
type OperationRun = (req: Request, res: Response, next: NextFunction, params: Record<string, string>) => void;

function createOperationRun(
  document: OpenApiDocument,
  operation: Operation,
  validate: RequestValidator,
  handler: OperationHandler<Instance>,
  authorize: SpecRouterOptions['authorize'],
): OperationRun {
  const tokenHeaderNames = tokenHeaders(document, operation);
  return (req, res, next, params) => {
    const state = stateOf(res);
    let result: OperationResult | Promise<OperationResult>;
    try {
      state.operationId = operation.operationId;
      const refusal = authorize?.(operation, state, req);
      if (refusal !== undefined) throw refusal;
      let principal: Principal | undefined;
      if (tokenHeaderNames.length > 0) {
        const token = tokenOf(req, tokenHeaderNames, state);
        if (token === undefined) throw missingToken(tokenHeaderNames);
        principal = state.served().fake.authenticate(token);
      }
      const request = validate(
        {
          params,
          // Parsed afresh (as Express's `req.query` is), so this object is the router's own:
          // validation may coerce it in place without touching what is journaled.
          query: queryOf(req),
          headers: req.headers,
          body: req.body,
          mediaType: mediaTypeOf(req),
        },
        // The request state collects the notices (its list is made on the first one).
        state,
      );
      result = handler(new HttpOperationContext(operation, state, principal, request, req));
      // The usual case (every vendor handler) stays synchronous: no promise per request.
      if (!(result instanceof Promise)) {
        sendResult(res, result);
        return;
      }
    } catch (error) {
      next(error);
      return;
    }
    result.then((r) => sendResult(res, r)).catch(next);
  };
}

/** One path of the spec: its matcher and the operations declared on it, by method. */
interface PathRoute {
  match: MatchFunction<Record<string, string>>;
  methods: Map<string, OperationRun>;
}

/**
 * Path matchers by route path, made once per process: a matcher is a pure function, and every
 * server (and every spec router of one) builds the same ones.
 */
const matchers = new Map<string, MatchFunction<Record<string, string>>>();
const matcherOf = (routePath: string): MatchFunction<Record<string, string>> => {
  let found = matchers.get(routePath);
  if (found === undefined) {
    found = match(routePath, { decode: decodeURIComponent, sensitive: true, trailing: true });
    matchers.set(routePath, found);
  }
  return found;
};

/**
 * The spec's operations as one middleware: the path is matched (path-to-regexp, as Express
 * matches routes) to the operations declared on it, the method picks one, and that operation's
 * validators, compiled once here, check the request before its handler (or the fallback) runs.
 * A known path with another method is 405; a GET operation answers HEAD too; any other path
 * goes on to the next middleware. Paths are case-sensitive and a trailing slash is ignored.
 */
export function createSpecRouter({
  document,
  operations,
  handlers,
  fallback,
  validators,
  authorize,
}: SpecRouterOptions): RequestHandler {
  const byPath = new Map<string, PathRoute>();

  for (const operation of operations) {
    let route = byPath.get(operation.routePath);
    if (route === undefined) {
      route = {
        match: matcherOf(operation.routePath),
        methods: new Map(),
      };
      byPath.set(operation.routePath, route);
    }
    const run = createOperationRun(
      document,
      operation,
      validators.of(operation),
      handlers[operation.operationId] ?? fallback(operation),
      authorize,
    );
    route.methods.set(operation.method.toUpperCase(), run);
    if (operation.method === 'get' && !route.methods.has('HEAD')) route.methods.set('HEAD', run);
  }
  // Literal paths first, so `/api/v2/documents/clients` is not read as a `{documentId}`.
  const routes = [...byPath.entries()]
    .sort(([a], [b]) => Number(a.includes(':')) - Number(b.includes(':')))
    .map(([, route]) => route);
  const allowOf = new Map(routes.map((r) => [r, [...r.methods.keys()].join(', ')]));

  return (req, res, next) => {
    const { path } = stateOf(res);
    for (const route of routes) {
      let matched: ReturnType<PathRoute['match']>;
      try {
        matched = route.match(path);
      } catch {
        // Only decoding a parameter throws (URIError).
        next(malformedPath());
        return;
      }
      if (matched === false) continue;
      const run = route.methods.get(req.method);
      if (run === undefined) {
        res.setHeader('allow', allowOf.get(route) ?? '');
        next(new ApiError('methodNotAllowed'));
        return;
      }
      run(req, res, next, matched.params);
      return;
    }
    next();
  };
}
