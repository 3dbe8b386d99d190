import { ApiError } from '../errors.js';
import type { OperationContext, OperationHandler, OperationResult } from './operation-handler.js';
import { ADMIN_TAG, type Operation } from './operations.js';
import { loadPrismOperations, unwrapDefault } from './prism-operations.js';
import type { OpenApiDocument } from './spec-document.js';

/** The response header that marks an answer of the fallback. */
export const FALLBACK_HEADER = 'x-fake-fallback';

interface PrismResponse {
  statusCode: number;
  headers?: Record<string, unknown>;
  body?: unknown;
}

type Either<L, R> = { _tag: 'Left'; left: L } | { _tag: 'Right'; right: R };

type PrismMock = (input: {
  resource: unknown;
  input: { data: unknown; validations: unknown[] };
  config: { dynamic: boolean; ignoreExamples?: boolean };
}) => (logger: unknown) => Either<{ status?: number; title?: string; detail?: string }, PrismResponse>;

interface Mocker {
  mock: PrismMock;
  resources: Map<string, unknown>;
}

/** prism logs through a pino-like logger; the fake logs the request itself. */
const silentLogger: Record<string, unknown> = {};
for (const level of ['trace', 'debug', 'info', 'success', 'warn', 'error', 'fatal', 'log']) {
  silentLogger[level] = () => undefined;
}
silentLogger.child = () => silentLogger;

async function loadMocker(document: OpenApiDocument): Promise<Mocker> {
  const [resources, mocker] = await Promise.all([
    loadPrismOperations(document),
    import('@stoplight/prism-http/dist/mocker/index.js'),
  ]);
  const mock = unwrapDefault<PrismMock>(mocker, (m) =>
    typeof m.default === 'function' ? m.default : undefined,
  );
  return { mock, resources };
}

function stringHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined || value === null) continue;
    out[name.toLowerCase()] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}

function requestPath(operation: Operation, context: OperationContext): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(String(context.request.params[name] ?? '')),
  );
}

/**
 * Answers operations that are in the spec but have no stateful handler (for example one a team
 * adds to its copy of the spec) with prism-http's mocker: the operation's first 2xx response,
 * from its example, or generated from its schema when it has none. The router has already
 * validated the request (and its token). The answer carries `x-fake-fallback: prism`.
 *
 * An admin operation (tag `admin`) is never answered so: an example would look like a power that
 * works. Without a handler it answers 404 `routeNotFound` in the vendor's shape, naming the
 * operation (`test/admin-parity.test.ts` fails first for the fake's own spec).
 *
 * prism-http is loaded on the first fallback call, never at start-up.
 */
export function createSpecFallback(document: OpenApiDocument): (operation: Operation) => OperationHandler {
  let loading: Promise<Mocker> | undefined;
  const mocker = () => {
    loading ??= loadMocker(document).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };

  return (operation) => {
    if (operation.tags.includes(ADMIN_TAG)) {
      return () => {
        throw new ApiError(
          'routeNotFound',
          `no handler for the admin operation ${operation.operationId}: the fake has no such power`,
        );
      };
    }
    return async (context): Promise<OperationResult> => {
      const { mock, resources } = await mocker();
      const resource = resources.get(operation.operationId);
      if (!resource) throw new ApiError('routeNotFound', `no handler for ${operation.operationId}`);
      // The fake answers JSON whatever Accept says, as its stateful handlers do.
      const headers = stringHeaders(context.headers);
      delete headers.accept;
      const result = mock({
        resource,
        input: {
          data: {
            method: operation.method,
            url: { path: requestPath(operation, context), query: { ...context.request.query } },
            headers,
            body: context.request.body,
          },
          validations: [],
        },
        config: { dynamic: false },
      })(silentLogger);
      if (result._tag === 'Left') {
        const problem = result.left;
        throw new ApiError(
          'unexpected',
          `the spec fallback cannot answer ${operation.operationId}: ${problem.detail ?? problem.title ?? 'no response to mock'}`,
        );
      }
      const response = result.right;
      const responseHeaders = stringHeaders(response.headers);
      const mediaType = responseHeaders['content-type'];
      delete responseHeaders['content-type'];
      return {
        status: response.statusCode,
        body: response.body,
        headers: {
          ...responseHeaders,
          ...(mediaType && !/json/i.test(mediaType) ? { 'content-type': mediaType } : {}),
          [FALLBACK_HEADER]: 'prism',
        },
      };
    };
  };
}
