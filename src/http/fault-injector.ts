import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type RenderedError, renderError } from '../errors.js';
import { type Fault, faultKindsOf } from '../harness/controls/faults.js';
import { stateOf } from './request-state.js';
import { sendJson, sendResult } from './send-json.js';

/** What a fault with a status but no body is rendered from: the vendor's error shape, code 0. */
function faultError(status: number): RenderedError {
  return {
    message: `${STATUS_CODES[status] ?? 'Error'} (injected fault)`,
    code: 0,
    status,
    errors: undefined,
  };
}

/**
 * Latency and faults for vendor API requests (never /__admin), before the spec router: first the
 * instance's `latencyMs`, then the first matching fault (delay, then answer or drop, or go on).
 * The fault is chosen when the request arrives, so `times` counts requests, not completions.
 */
export function createFaultInjector(): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(res);
    const instance = state.served();
    const path = state.path;
    const fault = instance.faults.take(req.method, path);
    const latency = instance.fake.settings.latencyMs;
    // The usual case stays synchronous: no promise per request.
    if (!fault && latency <= 0) {
      next();
      return;
    }
    return applyFault(fault, latency, req, res, next);
  };
}

async function applyFault(
  fault: Fault | undefined,
  latency: number,
  req: Request,
  res: Response,
  next: NextFunction,
): Promise<void> {
  const state = stateOf(res);
  if (latency > 0) await sleep(latency);
  if (!fault) {
    next();
    return;
  }
  state.faultId = fault.id;
  state.faultKinds = faultKindsOf(fault);
  res.set('x-fake-fault', fault.id);
  if (fault.headers) res.set(fault.headers);
  if (fault.delayMs > 0) await sleep(fault.delayMs);
  if (fault.drop) {
    state.dropped = true;
    req.socket.destroy();
    return;
  }
  if (fault.status === undefined) {
    next();
    return;
  }
  if (fault.hasBody) {
    sendResult(res, { status: fault.status, body: fault.body });
    return;
  }
  const answer = renderError(
    faultError(fault.status),
    state.requestId,
    state.served().fake.settings.errorSuccess,
  );
  sendJson(res, answer.status, answer.text, answer.bytes);
}
