import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, type ErrorAnswer, renderError } from '../errors.js';

/**
 * Answers, in the vendor error shape, what Node's HTTP server handles before Express sees it:
 * requests its parser rejects (a header block over maxHeaderSize, malformed request lines), a
 * client too slow to send its request (headersTimeoutMs, requestTimeoutMs), an `Expect` other
 * than `100-continue`, and CONNECT. A HEAD request gets the same status and headers without the
 * body, as HTTP requires.
 */

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

/** A whole HTTP/1.1 answer in the vendor error shape, for a socket Node's HTTP server has let go of. */
export function rawAnswer(apiError: ApiError, head: boolean, extra = ''): string {
  const answer = renderError(apiError, 'none');
  return (
    `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? 'Error'}\r\n` +
    `content-type: application/json; charset=utf-8\r\nx-content-type-options: nosniff\r\n` +
    `content-length: ${answer.bytes}\r\n` +
    `${extra}connection: close\r\n\r\n${head ? '' : answer.text}`
  );
}

/** The head of an error answer written through Node's response, after which the connection closes. */
function closingHead(answer: ErrorAnswer) {
  return {
    'content-type': 'application/json; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-length': answer.bytes,
    connection: 'close',
  };
}

/**
 * Time a client gets to read an answer sent with `connection: close` and close its side. Node's
 * HTTP sockets are half-open, so a client that never closed kept the connection, and its slot
 * of `maxConnections`, for ever.
 */
const CLOSE_GRACE_MS = 2000;

/** Sends the last bytes of a connection, then closes it: when the client does, or after the grace. */
function endConnection(socket: Socket, text: string): void {
  socket.end(text);
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  socket.once('close', () => clearTimeout(timer));
}

function clientErrorOf(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new ApiError('headersTooLarge');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError('requestTimeout', 'request timeout: the request was not received in time');
  }
  return new ApiError('invalidBody', 'malformed HTTP request');
}

export function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const apiError = clientErrorOf(error);
  // Node's own field: the response of the request this socket is serving, if any.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (inFlight) {
    if (!inFlight.headersSent && apiError.kind === 'requestTimeout') {
      // The request being read timed out (a trickled body): it is that request's answer.
      const answer = renderError(apiError, 'none');
      inFlight.writeHead(answer.status, closingHead(answer));
      inFlight.end(answer.text, () => socket.destroy());
      return;
    }
    if (!inFlight.req.complete) {
      // The client ended its side in the middle of the request's body: it is gone, and nothing
      // more of that body will come. Closing now gives back what the request held (its bytes in
      // the budget, its connection slot) instead of at requestTimeoutMs.
      socket.destroy();
      return;
    }
    // A broken request pipelined behind one still being answered: nothing is written into that
    // answer; the connection closes once it is sent.
    inFlight.shouldKeepAlive = false;
    return;
  }
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  endConnection(socket, rawAnswer(apiError, head));
}

/** `Expect` other than `100-continue`: 417 in the vendor shape (Node's own is empty). */
export function answerExpectation(req: IncomingMessage, res: ServerResponse): void {
  const apiError = new ApiError(
    'expectationFailed',
    `expectation failed: Expect ${String(req.headers.expect)} is not supported`,
    [{ location: 'header.expect', message: 'only 100-continue is supported' }],
  );
  const answer = renderError(apiError, 'none');
  res.writeHead(answer.status, closingHead(answer));
  res.end(req.method === 'HEAD' ? undefined : answer.text);
}

/**
 * CONNECT without HTTPS on: no tunnels; 405 in the vendor shape (Node would drop the connection
 * unanswered). With `--https-port`, http/forward-proxy.ts answers CONNECT instead.
 */
export function answerConnect(_req: IncomingMessage, socket: Socket): void {
  endConnection(
    socket,
    rawAnswer(
      new ApiError(
        'methodNotAllowed',
        'Method not allowed: CONNECT is answered only with HTTPS on (--https-port, HTTPS_PORT)',
      ),
      false,
      'allow: GET, HEAD, PUT, PATCH, POST, DELETE, OPTIONS\r\n',
    ),
  );
}
