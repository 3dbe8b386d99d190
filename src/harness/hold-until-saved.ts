/**
 * The answer to a change held until the change is on disk (`stateFile`): see `saveAfterChanges`.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ErrorBody } from '../errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Wraps the app so that every request that may change the root instance (any method but GET,
 * HEAD and OPTIONS, outside `/sessions/`) saves the state before its answer goes out, when the
 * answer is a success: at the answer's first output (its head, or its end) the changes are written,
 * and the answer is held back until they are on disk while other requests are served. A failed
 * save answers the catalogue's `stateNotSaved` (500, in the vendor shape, `errorBody`) in place of
 * the answer, so no change that is not on disk is ever acknowledged.
 */
export function saveAfterChanges(
  app: RequestListener,
  save: () => Promise<void> | undefined,
  onError: (error: unknown) => void,
  errorBody: (apiRequestUid: string) => ErrorBody,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!SAFE_METHODS.has(req.method ?? 'GET') && !req.url?.startsWith('/sessions/'))
      holdUntilSaved(res, save, onError, errorBody);
    app(req, res);
  };
}

function holdUntilSaved(
  res: ServerResponse,
  save: () => Promise<void> | undefined,
  onError: (error: unknown) => void,
  errorBody: (apiRequestUid: string) => ErrorBody,
): void {
  const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
  const write = res.write as (...args: unknown[]) => boolean;
  const end = res.end as (...args: unknown[]) => ServerResponse;
  /** `open` until the first output; then `held` while the save runs, `through` once it is on disk. */
  let phase: 'open' | 'held' | 'through' | 'failed' = 'open';
  const held: Array<() => void> = [];
  const fail = (error: unknown) => {
    onError(error);
    phase = 'failed';
    held.length = 0;
    const body = JSON.stringify(errorBody(String(res.getHeader('x-request-id') ?? 'none')));
    if (res.headersSent) {
      res.destroy(); // cannot happen: nothing goes out before the save
      return;
    }
    writeHead.call(res, 500, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    end.call(res, body);
  };
  const decide = (status: number) => {
    if (phase !== 'open') return;
    if (status >= 400) {
      phase = 'through';
      return;
    }
    let saved: Promise<void> | undefined;
    try {
      saved = save();
    } catch (error) {
      fail(error);
      return;
    }
    if (!saved) {
      phase = 'through';
      return;
    }
    phase = 'held';
    saved.then(
      () => {
        phase = 'through';
        for (const step of held.splice(0)) step();
      },
      (error) => fail(error),
    );
  };
  res.writeHead = function writeHeadOnceSaved(this: ServerResponse, status: number, ...rest: unknown[]) {
    decide(status);
    if (phase === 'held') {
      held.push(() => writeHead.call(this, status, ...rest));
      return this;
    }
    if (phase === 'failed') return this;
    return writeHead.call(this, status, ...rest);
  } as ServerResponse['writeHead'];
  res.write = function writeOnceSaved(this: ServerResponse, ...args: unknown[]) {
    decide(res.statusCode);
    if (phase === 'held') {
      held.push(() => write.apply(this, args));
      return true;
    }
    if (phase === 'failed') return false;
    return write.apply(this, args);
  } as ServerResponse['write'];
  res.end = function endOnceSaved(this: ServerResponse, ...args: unknown[]) {
    decide(res.statusCode);
    if (phase === 'held') {
      held.push(() => end.apply(this, args));
      return this;
    }
    if (phase === 'failed') return this;
    return end.apply(this, args);
  } as ServerResponse['end'];
}
