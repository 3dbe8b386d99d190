import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { stateOf } from './request-state.js';

interface Logged {
  logger: Logger;
  started: number;
}

const pending = new WeakMap<Response, Logged>();

/**
 * The inspector's live journal asks for the journal about once a second, marking those calls
 * `x-fake-inspector: poll` (src/ui/api.ts): an open tab would otherwise write 3,600 info lines an
 * hour. Only the level changes; the header grants nothing.
 */
function isInspectorPoll(req: Response['req']): boolean {
  return req.method === 'GET' && req.headers['x-fake-inspector'] === 'poll';
}

/** One listener shared by every response (no closure per request: this runs on every call). */
function logResponse(this: Response): void {
  const logged = pending.get(this);
  if (!logged) return;
  const req = this.req;
  const url = req.originalUrl ?? req.url;
  const status = this.statusCode;
  const ms = Math.round(performance.now() - logged.started);
  const level =
    status >= 500 ? 'error' : url === '/__admin/health' || isInspectorPoll(req) ? 'debug' : 'info';
  if (!logged.logger.isLevelEnabled(level)) return;
  const state = stateOf(this);
  const line = {
    req: { id: state.requestId, method: req.method, url },
    res: { statusCode: status },
    responseTime: ms,
    // No instance for the spec documents.
    session: state.instance?.id ?? null,
  };
  logged.logger[level](line, `${req.method} ${url} ${status} ${ms}ms`);
}

/**
 * One structured line per request when it is over: request id, method, URL, status, duration
 * (`responseTime`, ms) and session id (null for the root instance). Health checks and the inspector's
 * polling log at debug (container health probes and open tabs would flood the log), 5xx at error, the rest at info. Level and
 * format (JSON lines or pretty) come from the logger (`logLevel`, `logFormat`). Headers and
 * bodies are in the journal, not the log. Written on pino directly: a child logger per request
 * (what pino-http does) cost more than the rest of a list request's own work.
 */
export function createRequestLog(logger: Logger): RequestHandler {
  return (_req, res, next) => {
    pending.set(res, { logger, started: performance.now() });
    res.on('finish', logResponse);
    next();
  };
}
