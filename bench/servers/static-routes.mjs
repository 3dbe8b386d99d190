/** Reads the precomputed responses: `{"<path>": "<body>"}` from the JSON file named by argv[3]. */
import { readFileSync } from 'node:fs';

export function readRoutes(file) {
  const routes = JSON.parse(readFileSync(file, 'utf8'));
  return new Map(Object.entries(routes).map(([path, body]) => [path, Buffer.from(body, 'utf8')]));
}

export const CONTENT_TYPE = 'application/json; charset=utf-8';
