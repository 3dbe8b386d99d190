import type { RequestHandler } from 'express';
import { type ApiError, toErrorBody } from '../errors.js';
import { violationsOf } from './contract-violations.js';
import type { FaultLocals } from './fault-injector.js';
import type { ResponseChecks } from './response-checks.js';

/** Per-request values the recorder reads from `res.locals` when the request is over. */
export interface RecorderLocals extends FaultLocals {
  /** Set by the spec router when the request matched an operation. */
  operationId?: string;
  /** Set by the app's error capture for error responses (the body is rendered from it). */
  apiError?: ApiError;
}

/**
 * Journals every vendor API request of the instance on `res.locals.instance`: what the client
 * sent, the response as sent, how long it took and the contract violations. Runs first on the
 * API path (before faults, latency, parsing and routing, so every outcome is journaled) and does
 * all its work when the response is over: per request it costs one listener and one object.
 */
export function createRequestRecorder(checks: ResponseChecks): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    const arrivedAt = Date.now();
    const locals = res.locals as RecorderLocals;
    const { instance } = locals;
    const path = req.path;
    // 'close' comes once per response: after 'finish' when it was sent, or when the connection ended first.
    res.once('close', () => {
      const completed = res.writableFinished;
      const error = locals.apiError;
      const body = req.body as unknown;
      const entry = instance.journal.record({
        arrivedAt,
        method: req.method,
        path,
        query: req.query as Record<string, unknown>,
        headers: req.headers,
        body: Buffer.isBuffer(body) && body.length === 0 ? undefined : body,
        status: res.headersSent ? res.statusCode : undefined,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        response: locals.responseBody ?? (error ? toErrorBody(error, locals.requestId) : undefined),
        operationId: locals.operationId,
        fault: locals.faultId,
        outcome: completed ? 'completed' : locals.dropped ? 'dropped' : 'aborted',
        violations: violationsOf(error),
      });
      const { operationId } = locals;
      // No operationId when a fault answered (the router never ran): nothing of the fake's to check.
      if (completed && operationId && instance.fake.settings.validateResponses) {
        checks.schedule(instance, entry, operationId, res);
      }
    });
    next();
  };
}
