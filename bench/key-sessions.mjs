/**
 * What routing by a session's own key costs a request at the root: one document read, measured
 * over real HTTP (keep-alive, CONCURRENCY requests in flight) in three cases:
 *   root               no session with own keys exists (the routing step is skipped)
 *   root, N keyed      N sessions with own keys exist, each holding a token; the request is the root's
 *   key-routed         the same, with a token of one of those sessions (served by it)
 * Run after `npm run build`:  node bench/key-sessions.mjs [sessions=1000] [requests=4000]
 * Prints one JSON object: requests per second and median latency for each case.
 */
import { createHmac } from 'node:crypto';
import { Agent, request } from 'node:http';

const SESSIONS = Number(process.argv[2] ?? 1000);
const REQUESTS = Number(process.argv[3] ?? 4000);
const CONCURRENCY = 8;

const { createMockServer, defaultApiKey } = await import('../dist/index.js');
const mock = await createMockServer({ logLevel: 'silent', maxSessions: SESSIONS + 10 });
const url = new URL(await mock.listen(0, '127.0.0.1'));
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function token(key) {
  const content = 'bench';
  const res = await send(
    'POST',
    '/api/v2/auth/client_token',
    {
      'content-type': 'application/json',
      'x-key': key.keyId,
      'x-hash': createHmac('sha256', key.secret).update(content).digest('hex'),
    },
    JSON.stringify({ scope: 'docs_api', content }),
  );
  if (res.status !== 200) throw new Error(`token call answered ${res.status}: ${res.body}`);
  return JSON.parse(res.body).access_token;
}

const rootKey = defaultApiKey(1);
const rootToken = await token(rootKey);
const documentId = mock.root.fake.listDocuments({ organizationId: 1, keyId: rootKey.keyId }, {}).rows[0].id;
const path = `/api/v2/documents/${documentId}`;

async function measure(name, accessToken) {
  const latencies = [];
  let next = 0;
  const worker = async () => {
    while (next++ < REQUESTS) {
      const t = performance.now();
      const res = await send('GET', path, { 'x-access-token': accessToken });
      if (res.status !== 200) throw new Error(`${name}: answered ${res.status}`);
      latencies.push(performance.now() - t);
    }
  };
  // A warm-up round, then the measured one.
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  next = 0;
  latencies.length = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    case: name,
    requestsPerSecond: Math.round(REQUESTS / seconds),
    medianMs: latencies[latencies.length >> 1],
  };
}

const results = [await measure('root', rootToken)];
let routed;
for (let i = 0; i < SESSIONS; i++) {
  const session = mock.sessions.create(mock.root.fake.resetPoint(), { ownKeys: true });
  const key = session.instance.ownKeys.list()[0];
  const sessionToken = await token(key);
  routed ??= sessionToken;
}
results.push(await measure(`root, ${SESSIONS} keyed`, rootToken));
results.push(await measure('key-routed', routed));
console.log(
  JSON.stringify({ sessions: SESSIONS, requests: REQUESTS, concurrency: CONCURRENCY, results }, null, 2),
);
agent.destroy();
await mock.close();
