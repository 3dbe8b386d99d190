import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/json-call.js';
import { ROOT } from '../support/kustomize.js';
import { type Balancer, startBalancer } from '../support/nginx.js';

/**
 * deploy/nginx/fleet-owner-map.conf in Debian's nginx, as docs/kubernetes.md tells an operator to
 * include it: a request that names its owner (a session URL, a token or a session's own key id
 * the fleet issued) goes straight to that replica; anything else (new sessions, the root, default
 * keys) goes to any replica. The replicas here are loopback servers that say which one answered,
 * so every routing rule is seen in isolation; test/fleet/balancer.test.ts drives real fakes.
 */

const MAP_FILE = join(ROOT, 'deploy/nginx/fleet-owner-map.conf');
const servers: Server[] = [];
const replicas = new Map<number, number>();
let balancer: Balancer;
let byOwner: string;

beforeAll(async () => {
  for (const ordinal of [0, 1, 2, 3]) {
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ordinal, url: req.url }));
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    servers.push(server);
    replicas.set(ordinal, (server.address() as { port: number }).port);
  }
  const ownerMapPort = await freePort();
  balancer = await startBalancer({
    replicas,
    httpPort: await freePort(),
    proxyPort: await freePort(),
    ownerMapPort,
    ownerMapFile: MAP_FILE,
  });
  byOwner = `http://127.0.0.1:${ownerMapPort}`;
}, 30_000);

afterAll(async () => {
  await balancer?.stop();
  for (const server of servers) server.close();
});

async function landsOn(path: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${byOwner}${path}`, { headers });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { ordinal: number; url: string };
  expect(body.url).toBe(path);
  return body.ordinal;
}

const ownKey = (prefix: string) => `${prefix}${'7c'.repeat(30)}`;

describe('the balancer map routes by owner', () => {
  it('sends a session URL to the replica its id names', async () => {
    expect(await landsOn('/sessions/f2-9sJkQ2xW_aB-cdEfGhIjKl/api/v2/documents')).toBe(2);
    expect(await landsOn('/sessions/f1-AAAAAAAAAAAAAAAAAAAAAA/__admin/report')).toBe(1);
    expect(await landsOn('/sessions/f3-zzzzzzzzzzzzzzzzzzzzzz')).toBe(3);
  });

  it('sends a token or an own key id at the root URL to its issuer; the URL wins over both', async () => {
    expect(await landsOn('/api/v2/documents', { 'x-access-token': 'f1-c2VjcmV0LXRva2Vu' })).toBe(1);
    expect(await landsOn('/api/v2/auth/client_token', { 'x-key': ownKey('0002') })).toBe(2);
    expect(await landsOn('/api/v2/auth/client_token', { 'x-key': ownKey('0003') })).toBe(3);
    expect(await landsOn('/sessions/f0-AAAAAAAAAAAAAAAAAAAAAA/api', { 'x-access-token': 'f2-x' })).toBe(0);
    expect(await landsOn('/api/v2/documents', { 'x-access-token': 'f3-x', 'x-key': ownKey('0001') })).toBe(3);
  });

  it('spreads what names no owner over every replica (new sessions, default keys, unknown names)', async () => {
    const seen = new Set<number>();
    const unplaced: Array<[string, Record<string, string>]> = [
      ['/__admin/sessions', {}],
      ['/api/v2/auth/client_token', { 'x-key': 'a'.repeat(64) }],
      ['/api/v2/documents', { 'x-access-token': 'plain-token-without-a-replica' }],
      ['/sessions/not-a-fleet-id/api', {}],
    ];
    for (let round = 0; round < 4; round++) {
      for (const [path, headers] of unplaced) seen.add(await landsOn(path, headers));
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3]);
  });
});
