// HEALTHCHECK: the image has no curl or shell, so Node asks the fake's health endpoint itself.
// Exit 0 healthy (200 from /__admin/health on PORT), 1 otherwise. It runs every interval for as
// long as the container lives, so it stays cheap: `node:http` rather than `fetch`, whose first use
// loads and compiles undici (about three times this check's whole cost).
import { get } from 'node:http';

const port = process.env.PORT || '4010';
get({ host: '127.0.0.1', port, path: '/__admin/health', timeout: 2000, agent: false }, (res) => {
  process.exit(res.statusCode === 200 ? 0 : 1);
})
  .on('timeout', () => process.exit(1))
  .on('error', () => process.exit(1));
