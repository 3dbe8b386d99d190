import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/** `res.locals` of an Express response (pino-http hands over plain Node objects). */
const localsOf = (res: ServerResponse) =>
  (res as Response).locals as { requestId?: string; instance?: { id?: string } };
const urlOf = (req: IncomingMessage) => (req as Request).originalUrl ?? req.url;

/**
 * One structured line per request when it is over: request id, method, URL, status, duration
 * (`responseTime`, ms) and session id (null for the root instance). Health checks log at debug
 * (container health probes would flood the log), 5xx at error, the rest at info. Level and
 * format (JSON lines or pretty) come from the logger (`logLevel`, `logFormat`).
 * The serializers are minimal on purpose: headers and bodies are in the journal, not the log.
 */
export function createRequestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (_req, res) => String(localsOf(res).requestId),
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id?: unknown }) => ({ id: req.id, method: req.method, url: urlOf(req) }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (req, res, error) => {
      if (error || res.statusCode >= 500) return 'error';
      return urlOf(req) === '/__admin/health' ? 'debug' : 'info';
    },
    customSuccessObject: (_req, res, value: object) => ({
      ...value,
      session: localsOf(res).instance?.id ?? null,
    }),
    customErrorObject: (_req, res, _error, value: object) => ({
      ...value,
      session: localsOf(res).instance?.id ?? null,
    }),
    customSuccessMessage: (req, res, ms) => `${req.method} ${urlOf(req)} ${res.statusCode} ${ms}ms`,
    customErrorMessage: (req, res) => `${req.method} ${urlOf(req)} ${res.statusCode} failed`,
  }) as unknown as RequestHandler;
}
