import { once } from 'node:events';
import type { Response } from 'express';
import { type RenderedJson, renderJsonBytes, renderJsonPieces } from '../contract/json-text.js';
import type { OperationResult } from '../contract/operation-handler.js';
import { stateOf } from './request-state.js';

/**
 * The one sender of what handlers return: `text` as it is with its media type, else `body` rendered
 * as JSON (the encoded texts of frozen objects kept by the instance, see contract/json-text.ts):
 * as one buffer, or as texts in pieces when `chunked`.
 */
export function sendResult(res: Response, result: OperationResult): void {
  const state = stateOf(res);
  if (result.marks) state.marks = result.marks;
  if (result.headers) res.set(result.headers);
  if (result.text) {
    sendText(res, result.status, result.text.text, result.text.mediaType);
    return;
  }
  // Unset when the request failed before an instance was picked (an unknown session).
  const instance = state.instance;
  const memo = instance?.jsonTexts;
  if (result.chunked) {
    sendJsonStream(res, result.status, renderJsonPieces(result.body, memo)).catch(() => res.destroy());
    return;
  }
  sendRendered(res, result.status, renderJsonBytes(result.body, memo), result.body);
}

/**
 * Sends a JSON text (or its UTF-8 bytes) and keeps it on the request state for the journal; what
 * `res.json` does, without its per-call option lookups. The head is written first, with the length
 * known. Every JSON answer of the fake goes out here.
 */
export function sendJson(
  res: Response,
  status: number,
  json: string | Buffer,
  bytes = typeof json === 'string' ? Buffer.byteLength(json) : json.length,
): void {
  const state = stateOf(res);
  state.response = json;
  state.responseBytes = bytes;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', bytes);
  res.writeHead(status);
  res.end(json);
}

/** Sends a text that is not JSON (a report as XML or Markdown) with its media type. */
export function sendText(res: Response, status: number, text: string, mediaType: string): void {
  res.setHeader('content-type', mediaType);
  res.setHeader('content-length', Buffer.byteLength(text));
  res.writeHead(status);
  res.end(text);
}

/**
 * `sendJson` for the bytes rendered from `body`: when nothing in the body can change
 * (`RenderedJson.replayable`), the journal keeps the body, which renders to the same text when the
 * journal is read, rather than a copy of the text.
 */
function sendRendered(res: Response, status: number, json: RenderedJson, body: unknown): void {
  if (json.replayable) stateOf(res).responseBody = body;
  sendJson(res, status, json.buffer);
}

/**
 * Sends a JSON text given as pieces, each written when the socket has room for it (chunked, no
 * length known up front): for answers too large to build as one string. Not kept for the journal
 * (only admin answers are this large, and admin calls are not journaled).
 */
export async function sendJsonStream(res: Response, status: number, pieces: Iterable<string>): Promise<void> {
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.writeHead(status);
  for (const piece of pieces) {
    if (res.destroyed) return;
    if (!res.write(piece)) await once(res, 'drain');
  }
  res.end();
}
