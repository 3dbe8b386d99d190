import { once } from 'node:events';
import type { Response } from 'express';
import { type JsonText, renderJson, renderJsonPieces } from '../contract/json-text.js';
import type { OperationResult } from '../contract/operation-handler.js';
import { type RequestState, stateOf } from './request-state.js';

/**
 * The one sender of what handlers return: `text` as it is with its media type, else `body` rendered as JSON (the texts of frozen objects
 * kept by the instance, see contract/json-text.ts), whole, or in pieces when `chunked`.
 */
export function sendResult(res: Response, result: OperationResult): void {
  const state = stateOf(res);
  if (result.facts) state.facts = result.facts;
  if (result.headers) res.set(result.headers);
  if (result.text) {
    sendText(res, result.status, result.text.text, result.text.mediaType);
    return;
  }
  // Unset when the request failed before an instance was picked (an unknown session).
  const instance = state.instance as RequestState['instance'] | undefined;
  const memo = instance?.jsonTexts;
  if (result.chunked) {
    sendJsonStream(res, result.status, renderJsonPieces(result.body, memo)).catch(() => res.destroy());
    return;
  }
  sendJsonText(res, result.status, renderJson(result.body, memo));
}

/**
 * Sends a JSON text and keeps it on the request state for the journal; what `res.json` does,
 * without its per-call option lookups. The head is written first: `end` on a response without
 * one measures the body's bytes itself, which copies a body concatenated from pieces into one
 * string only to count it. Every JSON answer of the fake goes out here.
 */
export function sendJson(res: Response, status: number, text: string, bytes = Buffer.byteLength(text)): void {
  const state = stateOf(res);
  state.responseText = text;
  state.responseBytes = bytes;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', bytes);
  res.writeHead(status);
  res.end(text);
}

/** Sends a text that is not JSON (a report as XML or Markdown) with its media type. */
export function sendText(res: Response, status: number, text: string, mediaType: string): void {
  res.setHeader('content-type', mediaType);
  res.setHeader('content-length', Buffer.byteLength(text));
  res.writeHead(status);
  res.end(text);
}

/** `sendJson` for a rendered text: the journal keeps its pieces rather than a copy of the whole. */
export function sendJsonText(res: Response, status: number, json: JsonText): void {
  stateOf(res).responsePieces = json.pieces;
  sendJson(res, status, json.text, json.bytes);
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
