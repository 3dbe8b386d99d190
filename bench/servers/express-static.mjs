/**
 * The framework's ceiling: a minimal Express 5 app answering each benchmarked path with a
 * precomputed body of the same bytes the fake sent. Same app settings as the fake (no ETag, no
 * x-powered-by), no middleware. Usage: node express-static.mjs <port> <routes.json>
 *
 * Express is the fake's own (the package root's node_modules), not the one bench/node_modules
 * holds for json-server 0.17 (Express 4), so the reference is the framework the fake runs on.
 */
import { createRequire } from 'node:module';
import { CONTENT_TYPE, readRoutes } from './static-routes.mjs';

const express = createRequire(new URL('../../package.json', import.meta.url))('express');

const [port, file] = process.argv.slice(2);
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
// A key `PATCH <path>` answers PATCH on the path (its body unread); any other key is a GET path.
for (const [key, body] of readRoutes(file)) {
  const [method, path] = key.startsWith('PATCH ') ? ['patch', key.slice(6)] : ['get', key];
  app[method](path, (_req, res) => {
    res.set('content-type', CONTENT_TYPE);
    res.send(body);
  });
}
app.listen(Number(port), '127.0.0.1');

// Exit cleanly on SIGTERM (so --cpu-prof can write its profile).
process.once('SIGTERM', () => process.exit(0));
