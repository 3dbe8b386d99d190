import { once } from 'node:events';
import type { Response } from 'express';
import type { JsonText } from '../contract/json-text.js';
import { stateOf } from './request-state.js';

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

/** `sendJson` for a built text: the journal keeps its pieces rather than a copy of the whole. */
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
