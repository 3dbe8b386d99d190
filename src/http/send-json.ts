import type { Response } from 'express';
import { stateOf } from './request-state.js';

/**
 * Sends a JSON text and keeps it on the request state for the journal; what `res.json` does,
 * without its per-call option lookups. The head is written first: `end` on a response without
 * one measures the body's bytes itself, which copies a body concatenated from pieces into one
 * string only to count it. Every JSON answer of the fake goes out here.
 */
export function sendJson(res: Response, status: number, text: string, bytes = Buffer.byteLength(text)): void {
  stateOf(res).responseText = text;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', bytes);
  res.writeHead(status);
  res.end(text);
}
