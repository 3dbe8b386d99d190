import type { ErrorRequestHandler } from 'express';
import { ApiError, type ErrorKindName, renderError } from '../errors.js';
import { stateOf } from './request-state.js';
import { sendJson } from './send-json.js';

/** body-parser and http-errors failures carry a `type`; map each to a kind of the catalogue. */
const PARSER_ERRORS: Record<string, ErrorKindName> = {
  'entity.too.large': 'payloadTooLarge',
  'entity.parse.failed': 'malformedJson',
  'encoding.unsupported': 'unsupportedMediaType',
  'charset.unsupported': 'unsupportedMediaType',
  'request.size.invalid': 'invalidBody',
  'entity.verify.failed': 'invalidBody',
  'parameters.too.many': 'invalidBody',
};

interface HttpLikeError {
  type?: unknown;
  status?: unknown;
  statusCode?: unknown;
  message?: unknown;
  /** body-parser's limit, on `entity.too.large`. */
  limit?: unknown;
}

/** Converts anything thrown into an ApiError; unknown failures become `unexpected` (a bug). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = (error ?? {}) as HttpLikeError;
  const kind = typeof e.type === 'string' ? PARSER_ERRORS[e.type] : undefined;
  if (kind === 'malformedJson') {
    return new ApiError(kind, `malformed JSON body: ${String(e.message ?? '')}`, [
      { location: 'body', message: 'is not valid JSON' },
    ]);
  }
  if (kind === 'payloadTooLarge' && typeof e.limit === 'number') {
    return new ApiError(kind, `request body too large: over ${e.limit} bytes once read (inflated)`, [
      { location: 'body', message: String(e.message ?? kind) },
    ]);
  }
  if (kind) return new ApiError(kind, undefined, [{ location: 'body', message: String(e.message ?? kind) }]);
  const status = Number(e.status ?? e.statusCode);
  if (status === 413) return new ApiError('payloadTooLarge');
  if (status >= 400 && status < 500) return new ApiError('invalidBody', String(e.message ?? 'bad request'));
  return new ApiError('unexpected');
}

export interface ErrorHandlerOptions {
  /** Called for failures that are the fake's own fault (status 500), with the original error. */
  onUnexpected: (error: unknown) => void;
}

/**
 * The error middleware: anything thrown or passed to `next`, kept on the request state for the
 * journal and answered through `renderError`.
 */
export function createErrorHandler({ onUnexpected }: ErrorHandlerOptions): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const apiError = toApiError(error);
    const state = stateOf(res);
    state.apiError = apiError;
    if (apiError.kind === 'unexpected') onUnexpected(error);
    if (res.headersSent) {
      res.end();
      return;
    }
    // Unset when the request failed before an instance was picked (an unknown session).
    const instance = state.instance;
    const answer = renderError(apiError, state.requestId, instance?.fake.settings.errorSuccess);
    if (apiError.retryAfter !== undefined) res.setHeader('retry-after', String(apiError.retryAfter));
    sendJson(res, answer.status, answer.text, answer.bytes);
  };
}
