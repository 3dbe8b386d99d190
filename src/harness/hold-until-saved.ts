/**
 * The answer to a change held until the change is on disk (`stateFile`): see `saveAfterChanges`.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { ApiError, type ErrorSuccess, renderError } from '../errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Wraps the app so that every request that may change the root or a session (any method but GET,
 * HEAD and OPTIONS) saves the state before its answer goes out, when the
 * answer is a success: at the answer's first output (its head, or its end) the changes are written,
 * and the answer is held back until they are on disk while other requests are served. A failed
 * save answers the catalogue's `stateNotSaved` (500, rendered by `renderError` with the current
 * `errorSuccess`) in place of the answer, so no change that is not on disk is ever acknowledged.
 */
export function saveAfterChanges(
  app: RequestListener,
  save: (res: ServerResponse) => Promise<void> | undefined,
  onError: (error: unknown) => void,
  errorSuccess: () => ErrorSuccess,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!SAFE_METHODS.has(req.method ?? 'GET')) holdUntilSaved(res, () => save(res), onError, errorSuccess);
    app(req, res);
  };
}

function holdUntilSaved(
  res: ServerResponse,
  save: () => Promise<void> | undefined,
  onError: (error: unknown) => void,
  errorSuccess: () => ErrorSuccess,
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
    const apiRequestUid = String(res.getHeader('x-request-id') ?? 'none');
    const answer = renderError(new ApiError('stateNotSaved'), apiRequestUid, errorSuccess());
    if (res.headersSent) {
      res.destroy(); // cannot happen: nothing goes out before the save
      return;
    }
    writeHead.call(res, answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': answer.bytes,
    });
    end.call(res, answer.text);
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
  /**
   * `original` once the save is through; queued while it runs; `failedValue` (nothing written)
   * once it failed. One gate for writeHead, write and end, each deciding on the status first.
   */
  const gate = <R>(
    original: (...args: unknown[]) => R,
    status: (args: unknown[]) => number,
    heldValue: (self: ServerResponse) => R,
    failedValue: (self: ServerResponse) => R,
  ) =>
    function gated(this: ServerResponse, ...args: unknown[]): R {
      decide(status(args));
      if (phase === 'held') {
        held.push(() => original.apply(this, args));
        return heldValue(this);
      }
      if (phase === 'failed') return failedValue(this);
      return original.apply(this, args);
    };
  const self = (r: ServerResponse) => r;
  const statusCode = () => res.statusCode;
  res.writeHead = gate(writeHead, (args) => args[0] as number, self, self) as ServerResponse['writeHead'];
  res.write = gate(
    write,
    statusCode,
    () => true,
    () => false,
  ) as ServerResponse['write'];
  res.end = gate(end, statusCode, self, self) as ServerResponse['end'];
}
