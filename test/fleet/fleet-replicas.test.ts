import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '../../src/client/admin-client.js';
import { computeHash } from '../../src/index.js';
import { fakeProcesses } from '../support/fake-processes.js';
import { startReplica } from '../support/fleet-kit.js';
import { callJson as call, freePort } from '../support/json-call.js';
import { accessToken, requestToken } from '../support/request-token.js';
import { killChild, runCli } from '../support/run-cli.js';
import { ACME_KEY, SMALL_SET } from '../support/test-server.js';

/**
 * Three real fake processes on loopback, configured as a fleet (no balancer): every replica owns
 * the sessions it creates, any replica forwards a session's requests once to its owner and relays
 * the answer, a forged or stale hop marker is refused, a dead owner is a 503 naming it, and a
 * restarted replica brings its sessions back from its state file.
 */

const SECRET = 'fleet-secret-for-the-tests-0123456789';
const { dir, children } = fakeProcesses('fake-fleet-', 'file');

describe('fleet options', () => {
  it('refuse a fleet without replica 0, without a secret, or with a bad peer, exiting 2 naming the option', async () => {
    const [noRoot, noSecret, badPeer, notListed] = await Promise.all([
      runCli(['--fleet-peers', '1=http://127.0.0.1:1', '--fleet-ordinal', '1'], { FLEET_SECRET: SECRET }),
      runCli(['--fleet-peers', '0=http://127.0.0.1:1', '--fleet-ordinal', '0']),
      runCli(['--fleet-ordinal', '0'], { FLEET_PEERS: '0=ftp://x', FLEET_SECRET: SECRET }),
      runCli(['--fleet-peers', '0=http://127.0.0.1:1', '--fleet-ordinal', '3'], { FLEET_SECRET: SECRET }),
    ]);
    expect(noRoot.code).toBe(2);
    expect(noRoot.stderr).toContain('--fleet-peers');
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('--fleet-secret');
    expect(badPeer.code).toBe(2);
    expect(badPeer.stderr).toContain('FLEET_PEERS');
    expect(notListed.code).toBe(2);
    expect(notListed.stderr).toContain('--fleet-ordinal');
  });
});

describe('a fleet of three replicas', () => {
  let urls: string[] = [];
  let replicas: ChildProcess[] = [];
  let start: (ordinal: number) => Promise<ChildProcess>;
  /** One session created on each replica (index = its owner). */
  const ids: string[] = [];

  beforeAll(async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    urls = ports.map((port) => `http://127.0.0.1:${port}`);
    start = async (ordinal: number) => {
      const child = await startReplica(ordinal, ports, SECRET, [
        '--fixtures',
        SMALL_SET,
        '--state-file',
        join(dir, `state-${ordinal}.json`),
      ]);
      children.push(child);
      return child;
    };
    replicas = await Promise.all([0, 1, 2].map(start));
  }, 60_000);

  it('forwards each session to its owner and refuses forged hops', async () => {
    // One session created on each replica: its id names the replica.
    for (const [ordinal, url] of urls.entries()) {
      const created = await call('POST', `${url}/__admin/sessions`, {});
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect(id).toMatch(new RegExp(`^f${ordinal}-[A-Za-z0-9_-]{22}$`));
      ids.push(id);
    }
    // Each session called by URL prefix through each other replica: answered by its owner.
    for (const [owner, id] of ids.entries()) {
      for (const [via, url] of urls.entries()) {
        if (via === owner) continue;
        const listed = await call('GET', `${url}/sessions/${id}/api/v2/documents?pageNum=1&via=${via}`);
        expect(listed.status).toBe(401); // no token: the owner's answer, relayed unchanged
        expect(listed.headers.get('x-fake-session')).toBe(id);
        const admin = await call('GET', `${url}/sessions/${id}/__admin/health`);
        expect(admin.status).toBe(200);
        expect(admin.headers.get('x-fake-session')).toBe(id);
      }
    }

    // Every session's journal holds exactly its own requests, without the hop marker; the roots' none.
    for (const [owner, id] of ids.entries()) {
      const journal = await call('GET', `${urls[owner]}/sessions/${id}/__admin/requests`);
      expect(journal.status).toBe(200);
      const entries = journal.body.requests as Array<{ path: string; headers?: Record<string, string> }>;
      expect(entries.map((entry) => entry.path).sort()).toEqual(
        [0, 1, 2]
          .filter((via) => via !== owner)
          .map(() => '/api/v2/documents')
          .sort(),
      );
      expect(JSON.stringify(entries)).not.toContain('x-passportal-fleet-hop');
    }
    // A session deleted through another replica (admin call on a session) is gone at its owner.
    const spare = (await call('POST', `${urls[1]}/__admin/sessions`, {})).body.id as string;
    expect((await call('DELETE', `${urls[0]}/__admin/sessions/${spare}`)).status).toBe(200);
    expect((await call('GET', `${urls[1]}/sessions/${spare}/__admin/health`)).status).toBe(404);
    for (const url of urls) {
      const rootJournal = await call('GET', `${url}/__admin/requests`);
      expect(rootJournal.body.count).toBe(0);
    }

    // A hop marker not signed with the fleet secret, or stale, is refused.
    const path = `/sessions/${ids[1]}/api/v2/documents?pageNum=1`;
    const forged = await call('GET', `${urls[1]}${path}`, undefined, {
      'x-passportal-fleet-hop': `0.${Date.now()}.${'0'.repeat(64)}`,
    });
    expect(forged.status).toBe(403);
    expect(forged.body.success).toBe(false);
    const old = Date.now() - 120_000;
    const mac = createHmac('sha256', SECRET).update(`0.${old}.GET.${path}`).digest('hex');
    const stale = await call('GET', `${urls[1]}${path}`, undefined, {
      'x-passportal-fleet-hop': `0.${old}.${mac}`,
    });
    expect(stale.status).toBe(403);
  }, 60_000);

  it('routes own keys and tokens at the root URL to the replica that issued them, and the rest to replica 0', async () => {
    const created = await call('POST', `${urls[1]}/__admin/sessions`, { keys: 'own' });
    expect(created.status).toBe(201);
    const keyed = created.body.id as string;
    const [key] = created.body.keys as Array<{ keyId: string; secret: string }>;
    // The key ID is still 64 hex characters, its first four naming replica 1.
    expect(key?.keyId).toMatch(/^0001[0-9a-f]{60}$/);
    const own = key as { keyId: string; secret: string };

    // The token call at the root of replica 0 reaches the session on replica 1; its token names it.
    const token = await accessToken(urls[0] as string, own);
    expect(token).toMatch(/^f1-/);
    // The token at the root of replica 2 too.
    const listed = await call('GET', `${urls[2]}/api/v2/documents?pageNum=1`, undefined, {
      'x-access-token': token,
    });
    expect(listed.status).toBe(200);
    const journal = await call('GET', `${urls[1]}/sessions/${keyed}/__admin/requests`);
    expect((journal.body.requests as Array<{ path: string }>).map((entry) => entry.path)).toEqual([
      '/api/v2/auth/client_token',
      '/api/v2/documents',
    ]);

    // A session named by the W3C baggage an app's backend carries: at the root URL of replica 2,
    // the default keys' token call reaches the session on replica 1, not the root on replica 0
    // (nor the session of replica 1's own keys above).
    const carried = await fetch(`${urls[2]}/api/v2/auth/client_token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-key': ACME_KEY.keyId,
        'x-hash': computeHash(ACME_KEY.secret, 'c'),
        baggage: `tenant=acme, passportal-fake-session=${ids[1]}`,
      },
      body: JSON.stringify({ scope: 'docs_api', content: 'c' }),
    });
    expect(carried.status).toBe(200);
    expect(((await carried.json()) as { access_token: string }).access_token).toMatch(/^f1-/);
    const byBaggage = await call('GET', `${urls[0]}/sessions/${ids[1]}/__admin/requests?order=desc&limit=1`);
    expect((byBaggage.body.requests as Array<{ via: string }>)[0]?.via).toBe('baggage-session');

    // Default keys belong to the root instance, which lives on replica 0, whichever replica is called.
    const rootToken = await accessToken(urls[2] as string, ACME_KEY);
    expect(rootToken).toMatch(/^f0-/);
    const rootList = await call('GET', `${urls[1]}/api/v2/documents?pageNum=1`, undefined, {
      'x-access-token': rootToken,
    });
    expect(rootList.status).toBe(200);
    // The root's admin API lives with it on replica 0: its journal, asked at any replica, is replica 0's.
    for (const url of urls) {
      const rootJournal = await call('GET', `${url}/__admin/requests`);
      expect(rootJournal.body.count).toBe(2);
      expect(rootJournal.headers.get('x-passportal-fleet-hop')).toBeNull();
    }
    // An unknown key is answered by replica 0's root, as the vendor answers it.
    const refused = await requestToken(urls[2] as string, { keyId: 'f'.repeat(64), secret: 's' });
    expect(refused.status).toBe(401);
    expect((await call('GET', `${urls[0]}/__admin/requests`)).body.count).toBe(3);
    // A root admin call that changes the root, made at replica 1, changes it on replica 0.
    expect((await call('DELETE', `${urls[1]}/__admin/requests`)).status).toBe(200);
    expect((await call('GET', `${urls[0]}/__admin/requests`)).body.count).toBe(0);
    expect((await call('DELETE', `${urls[2]}/__admin/sessions/${keyed}`)).status).toBe(200);
  }, 60_000);

  it("lists every replica's sessions from any replica; health says which replicas answer", async () => {
    for (const url of urls) {
      const listed = await call('GET', `${url}/__admin/sessions`);
      expect(listed.status).toBe(200);
      const listedIds = (listed.body.sessions as Array<{ id: string }>).map((entry) => entry.id).sort();
      expect(listedIds).toEqual([...ids].sort());
      expect(listed.body.partial).toBeUndefined();
    }
    // The root's health says which replica answers and which replicas accept connections.
    const health = await call('GET', `${urls[1]}/__admin/health`);
    expect(health.status).toBe(200);
    expect(health.body.fleet).toEqual({
      ordinal: 1,
      draining: false,
      peers: urls.map((url, ordinal) => ({ ordinal, url, up: true })),
    });
    // From a session's URL, the list is that session alone, as in one process.
    const own = await call('GET', `${urls[1]}/sessions/${ids[1]}/__admin/sessions`);
    expect((own.body.sessions as Array<{ id: string }>).map((entry) => entry.id)).toEqual([ids[1]]);
  }, 60_000);

  it('answers 503 for a dead owner and brings its sessions back after a restart', async () => {
    // kill -9 of replica 2: its session answers 503 naming it, from any replica; the others are untouched.
    await killChild(replicas[2]);
    const down = await call('GET', `${urls[0]}/sessions/${ids[2]}/api/v2/documents?pageNum=1`);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(down.body.success).toBe(false);
    expect(down.body.message).toContain('replica 2');
    expect((await call('GET', `${urls[0]}/sessions/${ids[1]}/__admin/health`)).status).toBe(200);

    const health = await call('GET', `${urls[0]}/__admin/health`);
    expect(health.status).toBe(200);
    expect((health.body.fleet as { peers: Array<{ up: boolean }> }).peers.map((peer) => peer.up)).toEqual([
      true,
      true,
      false,
    ]);

    // The session list fails closed naming the dead replica, unless a partial list is asked for.
    const closed = await call('GET', `${urls[1]}/__admin/sessions`);
    expect(closed.status).toBe(503);
    expect(closed.headers.get('retry-after')).toBe('1');
    expect(closed.body.message).toContain('replica 2');
    const partial = await call('GET', `${urls[1]}/__admin/sessions?partial=1`);
    expect(partial.status).toBe(200);
    expect(partial.body.partial).toBe(true);
    expect(partial.body.missing).toEqual([2]);
    expect((partial.body.sessions as Array<{ id: string }>).map((entry) => entry.id).sort()).toEqual(
      [ids[0], ids[1]].sort(),
    );
    // The TypeScript client asks the same.
    const listed = await createAdminClient(urls[1] ?? '').sessions({ partial: '1' });
    expect(listed.partial).toBe(true);
    expect(listed.missing).toEqual([2]);
    expect(listed.sessions.map((entry) => entry.id).sort()).toEqual([ids[0], ids[1]].sort());

    // Restarted with its state file, replica 2 serves its session again, through the others too.
    await start(2);
    const back = await call('GET', `${urls[0]}/sessions/${ids[2]}/__admin/requests`);
    expect(back.status).toBe(200);
    expect(back.headers.get('x-fake-session')).toBe(ids[2]);
  }, 60_000);
});
