import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/index.js';
import { startReplica } from '../support/fleet-kit.js';
import { type Body, callJson as call, documentName, freePort } from '../support/json-call.js';
import { type Balancer, requireNginx, startBalancer } from '../support/nginx.js';
import {
  openTunnel,
  type ProxyAnswer,
  parseBody,
  proxyAuth,
  VENDOR_HOST,
  viaProxy,
} from '../support/proxy-tunnel.js';
import { killChild } from '../support/run-cli.js';
import { ACME_KEY, SMALL_SET, textEntry } from '../support/test-server.js';

/**
 * The fleet's acceptance test (docs/fleet.md, docs/kubernetes.md#a-fleet): three real fakes on
 * loopback, each with its own state file, behind Debian's nginx doing plain round-robin (HTTP, and
 * TCP in nginx's stream module for the forward proxy's CONNECT). Through the balancer, 30
 * sessions (10 by URL prefix, 10 by their own keys at the root URL, 10 as the proxy user over
 * HTTPS) each take a token, list, PATCH and batch; then one replica is killed (-9) and restarted
 * from its state file, and a fourth replica is added by restarting every replica with the longer
 * peers list and reloading nginx. Without nginx and its stream module the test fails, naming
 * what to install (.ci/run does).
 */

const dir = mkdtempSync(join(tmpdir(), 'fleet-balancer-'));
const tlsDir = join(dir, 'tls');
const SECRET = randomBytes(32).toString('hex');
const RUN = 'fleet-acceptance';

type Kind = 'prefix' | 'own' | 'proxy';
interface Session {
  id: string;
  kind: Kind;
  owner: number;
  key: { keyId: string; secret: string };
  token: string;
  name: string;
}

const ports = new Map<number, number>();
const children = new Map<number, ChildProcess>();
let balancer: Balancer;
let httpPort: number;
let proxyPort: number;
const sessions: Session[] = [];

const ownerOf = (id: string) => Number(/^f(\d{1,4})-/.exec(id)?.[1] ?? Number.NaN);

async function startOne(ordinal: number): Promise<void> {
  const child = startReplica(ordinal, ports, SECRET, [
    '--https-port',
    '0',
    '--tls-dir',
    tlsDir,
    '--fixtures',
    SMALL_SET,
    '--state-file',
    join(dir, `replica-${ordinal}.json`),
  ]);
  children.set(ordinal, await child);
}

const balancerConfig = () => ({ replicas: ports, httpPort, proxyPort });

/** An absolute-form request (as axios sends through a proxy) straight to a replica's HTTP port, the session as proxy user. */
function absoluteForm(port: number, session: Session): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'GET',
        path: `http://${VENDOR_HOST}/api/v2/documents/101101`,
        headers: {
          host: VENDOR_HOST,
          'proxy-authorization': proxyAuth(session.id),
          'x-access-token': session.token,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text, body: parseBody(text), retryAfter: undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A vendor call of `session` the way its kind reaches the fleet, through the balancer. */
function vendor(
  session: Session,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ProxyAnswer> {
  if (session.kind === 'proxy')
    return viaProxy(
      { port: proxyPort, caFile: join(tlsDir, 'ca.pem') },
      session.id,
      method,
      path,
      body,
      headers,
    );
  const base = session.kind === 'prefix' ? `${balancer.url}/sessions/${session.id}` : balancer.url;
  return call(method, `${base}${path}`, body, headers);
}

async function tokenOf(session: Session): Promise<string> {
  const answer = await vendor(
    session,
    'POST',
    '/api/v2/auth/client_token',
    { scope: 'docs_api', content: 'c' },
    { 'x-key': session.key.keyId, 'x-hash': computeHash(session.key.secret, 'c') },
  );
  expect(answer.status, answer.text).toBe(200);
  return answer.body.access_token as string;
}

/** The session's document 101101, read with its token, through the balancer. */
function readOwn(session: Session): Promise<ProxyAnswer> {
  return vendor(session, 'GET', '/api/v2/documents/101101', undefined, { 'x-access-token': session.token });
}

const WORKLOAD = [
  'POST /api/v2/auth/client_token',
  'GET /api/v2/documents',
  'PATCH /api/v2/documents/101101',
  'PATCH /api/v2/documents',
];

async function journalOf(id: string) {
  const answer = await call('GET', `${balancer.url}/sessions/${id}/__admin/requests?limit=1000`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { count: number; requests: Array<Body & { method: string; path: string }> };
}

async function listedIds(): Promise<string[]> {
  const listed = await call('GET', `${balancer.url}/__admin/sessions`);
  expect(listed.status, listed.text).toBe(200);
  return (listed.body.sessions as Array<{ id: string }>).map((s) => s.id).sort();
}

/** Every session of the replicas other than `dead` answers with its document, as its name was patched. */
async function othersUntouched(dead: number): Promise<void> {
  await Promise.all(
    sessions
      .filter((s) => s.owner !== dead)
      .map(async (session) => {
        const answer = await readOwn(session);
        expect(answer.status, `${session.kind} ${session.id}: ${answer.text}`).toBe(200);
        expect(documentName(answer.body)).toBe(session.name);
      }),
  );
}

/**
 * The run's report through the balancer at each moment of the test: with every replica up, the
 * union of the run's sessions (each session's share equal to its own report, the totals their
 * sum), whichever replica is asked; with one down, 503 naming it, and `?partial=1` the live
 * sessions' union saying which replica is missing; whole again after the restart.
 */
async function checkRunReport(moment: 'all up' | 'one down' | 'restarted', dead?: number): Promise<void> {
  const url = `${balancer.url}/__admin/report?run=${RUN}`;
  type RunReport = { sessions: Array<{ id: string; requests: number }>; requests: { total: number } };
  const shares = (report: Body) =>
    new Map((report as unknown as RunReport).sessions.map((entry) => [entry.id, entry.requests]));
  const live = sessions.filter((s) => s.owner !== dead);
  // Each live session's own report, read at its URL: what the run's report must add up.
  const own = new Map(
    await Promise.all(
      live.map(async (session): Promise<[string, number]> => {
        const report = await call('GET', `${balancer.url}/sessions/${session.id}/__admin/report`);
        expect(report.status, report.text).toBe(200);
        return [session.id, (report.body as unknown as RunReport).requests.total];
      }),
    ),
  );
  const sum = [...own.values()].reduce((a, b) => a + b, 0);
  if (moment !== 'one down') {
    // Asked three times, so round-robin puts the question to every replica: the union each time.
    for (let i = 0; i < 3; i++) {
      const report = await call('GET', url);
      expect(report.status, `${moment}: ${report.text}`).toBe(200);
      expect(shares(report.body), moment).toEqual(own);
      expect((report.body as unknown as RunReport).requests.total, moment).toBe(sum);
      expect(report.body.partial ?? false).toBe(false);
    }
    // Combined before it is rendered: the JUnit of the whole run.
    const junit = await fetch(`${url}&format=junit`);
    const xml = await junit.text();
    expect(junit.status, xml).toBe(200);
    expect(xml).toMatch(/^<\?xml/);
    expect(xml).toContain(`requests" value="${sum}"`);
    return;
  }
  // One replica down: the run's report fails closed naming it, unless a partial one is asked for.
  for (let i = 0; i < 3; i++) {
    const closed = await call('GET', url);
    expect(closed.status, closed.text).toBe(503);
    expect(closed.body.message).toContain(`replica ${dead}`);
    expect(closed.retryAfter).toBe('1');
  }
  const partial = await call('GET', `${url}&partial=1`);
  expect(partial.status, partial.text).toBe(200);
  expect(partial.body.partial).toBe(true);
  expect(partial.body.missing).toEqual([dead]);
  expect(shares(partial.body)).toEqual(own);
  expect((partial.body as unknown as RunReport).requests.total).toBe(sum);
}

beforeAll(async () => {
  requireNginx();
  for (const ordinal of [0, 1, 2]) ports.set(ordinal, await freePort());
  httpPort = await freePort();
  proxyPort = await freePort();
  // The first makes the CA in the shared TLS folder, the others use it: every replica's
  // certificates come from one CA, as a tunnel's TLS ends at the session's owner.
  await startOne(0);
  await Promise.all([startOne(1), startOne(2)]);
  balancer = await startBalancer(balancerConfig());
}, 60_000);

afterAll(async () => {
  for (const child of children.values()) await killChild(child);
  await balancer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a fleet of three behind nginx round-robin', () => {
  it('spreads 30 sessions of three kinds; each does token, list, PATCH and batch; every journal holds exactly its own requests', async () => {
    const kinds: Kind[] = ['prefix', 'own', 'proxy'];
    for (let i = 0; i < 30; i++) {
      // Ten of a kind in a row: round-robin spreads each kind over the three replicas.
      const kind = kinds[Math.floor(i / 10)] as Kind;
      const created = await call(
        'POST',
        `${balancer.url}/__admin/sessions`,
        kind === 'own' ? { keys: 'own', run: RUN } : { run: RUN },
      );
      expect(created.status, created.text).toBe(201);
      const id = created.body.id as string;
      const keys =
        (created.body.keys as Array<{ keyId: string; secret: string; organizationId: number }>) ?? [];
      const key = kind === 'own' ? keys.find((k) => k.organizationId === ACME_KEY.organizationId) : ACME_KEY;
      if (key === undefined) throw new Error(`session ${id}: no own key for the organization`);
      sessions.push({ id, kind, owner: ownerOf(id), key, token: '', name: `${kind} ${id}` });
    }
    // Sessions are created where the balancer sent the request: every replica owns some of each kind.
    for (const kind of kinds)
      expect(new Set(sessions.filter((s) => s.kind === kind).map((s) => s.owner)), kind).toEqual(
        new Set([0, 1, 2]),
      );
    for (const s of sessions.filter((x) => x.kind === 'own'))
      expect(s.key.keyId.slice(0, 4), s.key.keyId).toBe(String(s.owner).padStart(4, '0'));

    await Promise.all(
      sessions.map(async (session) => {
        session.token = await tokenOf(session);
        expect(ownerOf(session.token), session.token).toBe(session.owner);
        const auth = { 'x-access-token': session.token };
        const list = await vendor(session, 'GET', '/api/v2/documents?resultsPerPage=5', undefined, auth);
        expect(list.status, list.text).toBe(200);
        const patched = await vendor(
          session,
          'PATCH',
          '/api/v2/documents/101101',
          { name: textEntry('Name', session.name) },
          auth,
        );
        expect(patched.status, patched.text).toBe(200);
        const batch = await vendor(
          session,
          'PATCH',
          '/api/v2/documents',
          [{ templateUid: '79', id: '', title: `batch ${session.id}`, clientId: 41001 }],
          auth,
        );
        expect(batch.status, batch.text).toBe(200);
      }),
    );

    for (const session of sessions) {
      const journal = await journalOf(session.id);
      expect(
        journal.requests.map((r) => `${r.method} ${r.path}`),
        `${session.kind} ${session.id}`,
      ).toEqual(WORKLOAD);
      expect(journal.count).toBe(WORKLOAD.length);
      // A proxy user's requests are journaled as in one process: through the proxy, over HTTPS.
      if (session.kind === 'proxy')
        for (const entry of journal.requests) {
          expect(entry.via).toBe('proxy-session');
          expect(entry.scheme).toBe('https');
        }
      // The hop marker never reaches a journal.
      expect(JSON.stringify(journal).toLowerCase()).not.toContain('x-passportal-fleet-hop');
    }
    await othersUntouched(-1);
    // The root lives on replica 0: its journal, asked through the balancer at whichever replica,
    // holds none of the sessions' requests.
    for (let i = 0; i < 3; i++) {
      const root = await call('GET', `${balancer.url}/__admin/requests`);
      expect(root.status, root.text).toBe(200);
      expect(root.body.count).toBe(0);
    }
  }, 40_000);

  it('carries a proxy user to its owner in absolute form too, and refuses a CONNECT with a forged hop marker', async () => {
    const proxied = sessions.filter((s) => s.kind === 'proxy');
    for (const [ordinal, port] of ports) {
      // A session another replica owns, asked of this replica directly.
      const session = proxied.find((s) => s.owner !== ordinal) as Session;
      const answer = await absoluteForm(port, session);
      expect(answer.status, answer.text).toBe(200);
      expect(documentName(answer.body)).toBe(session.name);
      const forged = await openTunnel(
        port,
        session.id,
        `x-passportal-fleet-hop: ${(ordinal + 1) % 3}.${Date.now()}.${'0'.repeat(64)}\r\n`,
      );
      expect('write' in forged).toBe(false);
      expect((forged as ProxyAnswer).status, (forged as ProxyAnswer).text).toBe(403);
      expect((forged as ProxyAnswer).body.success).toBe(false);
    }
  });

  it('lists the union of every replica’s sessions, through the balancer and from each replica', async () => {
    const ids = sessions.map((s) => s.id).sort();
    expect(await listedIds()).toEqual(ids);
    for (const port of ports.values()) {
      const direct = await call('GET', `http://127.0.0.1:${port}/__admin/sessions`);
      expect((direct.body.sessions as Array<{ id: string }>).map((s) => s.id).sort()).toEqual(ids);
    }
    await checkRunReport('all up');
  });

  it('kill -9 of a replica: its sessions of every kind answer 503 naming it within a second, the others are untouched', async () => {
    const dead = 2;
    await killChild(children.get(dead));
    for (const session of sessions.filter((s) => s.owner === dead)) {
      const since = Date.now();
      const answer = await readOwn(session);
      expect(Date.now() - since, `${session.kind} ${session.id}`).toBeLessThan(1000);
      expect(answer.status, `${session.kind} ${session.id}: ${answer.text}`).toBe(503);
      expect(answer.body.success, answer.text).toBe(false);
      expect(answer.body.message).toContain(`replica ${dead} (127.0.0.1:${ports.get(dead)})`);
      expect(answer.retryAfter).toBe('1');
      // A proxy user's CONNECT itself is answered so, before any TLS: its answer is the vendor's shape too.
      if (session.kind === 'proxy') expect(answer.text).toMatch(/^HTTP\/1\.1 503 /);
    }
    await othersUntouched(dead);
    await checkRunReport('one down', dead);
  }, 20_000);

  it('a replica restarted with its state file answers for its sessions with their documents and tokens', async () => {
    const dead = 2;
    await startOne(dead);
    // Its sessions read their patched documents with the tokens issued before the kill.
    await Promise.all(
      sessions
        .filter((s) => s.owner === dead)
        .map(async (session) => {
          const answer = await readOwn(session);
          expect(answer.status, `${session.kind} ${session.id}: ${answer.text}`).toBe(200);
          expect(documentName(answer.body)).toBe(session.name);
        }),
    );
    expect(await listedIds()).toEqual(sessions.map((s) => s.id).sort());
    await checkRunReport('restarted');
  }, 20_000);

  it('a fourth replica (every replica restarted with the longer peers list, nginx reloaded): no session moves, new ones reach it', async () => {
    ports.set(3, await freePort());
    await Promise.all(
      [0, 1, 2, 3].map(async (ordinal) => {
        await killChild(children.get(ordinal));
        await startOne(ordinal);
      }),
    );
    await balancer.reload(balancerConfig());
    await othersUntouched(-1);
    const added: string[] = [];
    for (let i = 0; i < 8; i++) {
      const created = await call('POST', `${balancer.url}/__admin/sessions`, {});
      expect(created.status, created.text).toBe(201);
      added.push(created.body.id as string);
    }
    expect(added.map(ownerOf)).toContain(3);
    // Every earlier session still names, and is listed from, the replica that created it.
    expect(await listedIds()).toEqual([...sessions.map((s) => s.id), ...added].sort());
  }, 40_000);
});
