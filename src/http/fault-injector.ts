import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type ErrorBody, toErrorBody } from '../errors.js';
import { type Fault, faultKindsOf } from '../harness/faults.js';
import { stateOf } from './request-state.js';
import { sendJson } from './send-json.js';

/** The default body of a fault that gives a status but no body: the vendor's error shape. */
function faultBody(status: number, requestId: string, success: 'boolean' | 'string'): ErrorBody {
  const message = `${STATUS_CODES[status] ?? 'Error'} (injected fault)`;
  return toErrorBody({ message, code: 0, status, errors: undefined }, requestId, success);
}

/**
 * Latency and faults for vendor API requests (never /__admin), before the spec router: first the
 * instance's `latencyMs`, then the first matching fault (delay, then answer or drop, or go on).
 * The fault is chosen when the request arrives, so `times` counts requests, not completions.
 */
export function createFaultInjector(): RequestHandler {
  return (req, res, next) => {
    const { instance, path } = stateOf(res);
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
  const body = fault.hasBody
    ? fault.body
    : faultBody(fault.status, state.requestId, state.instance.fake.settings.errorSuccess);
  sendJson(res, fault.status, JSON.stringify(body));
}
