import type { Socket } from 'node:net';
import { ApiError, toErrorBody } from '../errors.js';

/**
 * Answers requests Node's HTTP parser rejects before Express sees them (a header block over
 * maxHeaderSize, malformed request lines) in the vendor error shape. A HEAD request gets the
 * same status and headers without the body, as HTTP requires.
 */
export function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Socket,
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const apiError = tooLarge
    ? new ApiError('headersTooLarge')
    : new ApiError('invalidBody', 'malformed HTTP request');
  const body = JSON.stringify(toErrorBody(apiError, 'none'));
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${apiError.status} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `connection: close\r\n\r\n${head ? '' : body}`,
  );
}
