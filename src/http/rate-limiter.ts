import type { Request, RequestHandler, Response } from 'express';
import { ApiError } from '../errors.js';
import type { RateSubject, RateVerdict } from '../harness/controls/rate-limits.js';
import type { Instance } from '../harness/instance/instance.js';
import { stateOf } from './request-state.js';

/** The headers a token may come in, in the order the spec's security requirement names them. */
const TOKEN_HEADERS = ['x-access-token', 'x-api-token'] as const;

const first = (value: string | string[] | undefined): string | undefined =>
  (Array.isArray(value) ? value[0] : value) || undefined;

/** Who the request is as rate limits count it: its key (its token's, or x-key on a token call) and its token. */
export function subjectOf(req: Request, instance: Instance): RateSubject {
  let token: string | undefined;
  for (const name of TOKEN_HEADERS) {
    token = first(req.headers[name]);
    if (token !== undefined) break;
  }
  // The token's key when a token is sent; `x-key` otherwise (the token call names its key so).
  const key = token === undefined ? first(req.headers['x-key']) : instance.fake.keyOfToken(token);
  return { key, token };
}

/**
 * The fake's own rate-limit headers (the live service's are not published): the limit, what is
 * left of it and the whole seconds until its window frees, on every answer under a limit.
 */
function setHeaders(res: Response, verdict: RateVerdict): void {
  res.setHeader('x-ratelimit-limit', String(verdict.limit));
  res.setHeader('x-ratelimit-remaining', String(verdict.remaining));
  res.setHeader('x-ratelimit-reset', String(verdict.resetSeconds));
}

/**
 * Rate limits for vendor API requests (never /__admin), after the body is read and before faults:
 * a request past a limit is answered 429 `rateLimited` with `Retry-After`, journaled as any other.
 * An instance without limits pays one length check.
 */
export function createRateLimiter(): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(res);
    const instance = state.served();
    const { path } = state;
    const limits = instance.rateLimits;
    if (limits.size === 0) {
      next();
      return;
    }
    const verdict = limits.take(req.method, path, subjectOf(req, instance), instance.fake.clock.nowMs());
    if (!verdict) {
      next();
      return;
    }
    setHeaders(res, verdict);
    if (verdict.retryAfter === undefined) {
      next();
      return;
    }
    res.setHeader('retry-after', String(verdict.retryAfter));
    next(
      new ApiError(
        'rateLimited',
        `Too many requests: rate limit ${verdict.refusedBy} allows ${verdict.limit} in its window; retry after ${verdict.retryAfter} s`,
      ),
    );
  };
}
