/**
 * The runtime's ceiling: a bare node:http server answering each benchmarked path with a
 * precomputed body of the same bytes the fake sent. Usage: node node-static.mjs <port> <routes.json>
 */
import { createServer } from 'node:http';
import { CONTENT_TYPE, readRoutes } from './static-routes.mjs';

const [port, file] = process.argv.slice(2);
const routes = readRoutes(file);
createServer((req, res) => {
  const q = req.url.indexOf('?');
  const body = routes.get(q < 0 ? req.url : req.url.slice(0, q));
  if (!body) {
    res.writeHead(404, { 'content-length': 0 });
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-length': body.length });
  res.end(body);
}).listen(Number(port), '127.0.0.1');

// Exit cleanly on SIGTERM (so --cpu-prof can write its profile).
process.once('SIGTERM', () => process.exit(0));
