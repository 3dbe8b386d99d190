import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../../src/domain/types.js';
import type { JournalEntryView } from '../../src/harness/journal.js';
import { createAdminClient } from '../../src/index.js';
import {
  ACME_KEY,
  createTestServer,
  issueToken,
  readSmallSet,
  type TestServer,
  textEntry,
} from '../support/test-server.js';

/** Key-bound sessions: a session's own API keys (and their tokens) reach it at the root URL. */

interface OwnKeySession {
  id: string;
  prefix: string;
  keys: ApiKey[];
}

async function createKeyedSession(server: TestServer, body: object = {}): Promise<OwnKeySession> {
  const res = await server.http.post('/__admin/sessions').send({ keys: 'own', ...body });
  expect(res.status).toBe(201);
  return { id: res.body.id, prefix: `/sessions/${res.body.id}`, keys: res.body.keys };
}

const keyOf = (session: OwnKeySession, organizationId: number) => {
  const key = session.keys.find((k) => k.organizationId === organizationId);
  if (!key) throw new Error(`no key for organization ${organizationId}`);
  return key;
};

const rename = (text: string) => ({ name: textEntry('Name', text) });

async function journalOf(server: TestServer, prefix = ''): Promise<JournalEntryView[]> {
  const res = await server.http.get(`${prefix}/__admin/requests`);
  expect(res.status).toBe(200);
  return res.body.requests;
}

describe('POST /__admin/sessions with keys: own', () => {
  it('answers one random key per organization, in place of the fixture keys, listed by id only', async () => {
    const server = await createTestServer();
    const a = await createKeyedSession(server);
    const b = await createKeyedSession(server);
    expect(a.keys.map((k) => k.organizationId).sort()).toEqual([1, 2]);
    for (const key of [...a.keys, ...b.keys]) {
      expect(key.keyId).toMatch(/^[0-9a-f]{64}$/);
      expect(key.secret.length).toBeGreaterThanOrEqual(40);
    }
    const ids = new Set([...a.keys, ...b.keys].flatMap((k) => [k.keyId, k.secret]));
    expect(ids.size).toBe(8);
    expect(ids.has(ACME_KEY.keyId)).toBe(false);

    // The session's state holds its own keys (with secrets, as the root's state holds its keys).
    const state = await server.http.get(`${a.prefix}/__admin/state`);
    expect(state.body.apiKeys).toEqual(a.keys);

    // The list shows that a session has keys of its own, by ID, never the secrets.
    const listed = await server.http.get('/__admin/sessions');
    const entry = listed.body.sessions.find((s: { id: string }) => s.id === a.id);
    expect(entry.ownKeyIds.sort()).toEqual(a.keys.map((k) => k.keyId).sort());
    expect(JSON.stringify(listed.body)).not.toContain(keyOf(a, 1).secret);
    const plain = await server.http.post('/__admin/sessions').send({});
    expect(plain.body.keys).toBeUndefined();
    const plainListed = (await server.http.get('/__admin/sessions')).body.sessions.find(
      (s: { id: string }) => s.id === plain.body.id,
    );
    expect(plainListed.ownKeyIds).toBeUndefined();
  });

  it('refuses an unknown keys value with 400 naming the field', async () => {
    const server = await createTestServer();
    const res = await server.http.post('/__admin/sessions').send({ keys: 'mine' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('keys');
    expect((await server.http.get('/__admin/sessions')).body.sessions).toHaveLength(0);
  });
});

describe('a request at the root with a session own key', () => {
  it('is served by the session: token, list, read and patch, journaled there only', async () => {
    const server = await createTestServer();
    const session = await createKeyedSession(server);
    const token = await issueToken(server.http, '', keyOf(session, 1));

    const patched = await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send(rename('Edited in the session'));
    expect(patched.status).toBe(200);
    expect(patched.headers['x-fake-session']).toBeUndefined();
    const read = await server.http.get('/api/v2/documents/101101').set('x-access-token', token);
    expect(read.body.details.name.value.text).toBe('Edited in the session');
    const list = await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);
    expect(list.status).toBe(200);
    expect(list.body.results.map((d: { id: number }) => d.id)).toContain(101101);

    // The root's data and journal never saw it; the session's journal holds all four.
    const rootToken = await server.token();
    const rootRead = await server.http.get('/api/v2/documents/101101').set('x-access-token', rootToken);
    expect(rootRead.body.details.name.value.text).toBe('Dundee Office');
    const rootJournal = await journalOf(server);
    expect(rootJournal.map((e) => e.via)).toEqual(['direct', 'direct']);
    const journal = await journalOf(server, session.prefix);
    expect(journal.map((e) => [e.method, e.path, e.status, e.via])).toEqual([
      ['POST', '/api/v2/auth/client_token', 200, 'key-session'],
      ['PATCH', '/api/v2/documents/101101', 200, 'key-session'],
      ['GET', '/api/v2/documents/101101', 200, 'key-session'],
      ['GET', '/api/v2/documents', 200, 'key-session'],
    ]);
  });

  it('a token in x-api-token routes too (with the usual notice)', async () => {
    const server = await createTestServer();
    const session = await createKeyedSession(server);
    const token = await issueToken(server.http, '', keyOf(session, 2));
    const res = await server.http.get('/api/v2/documents/201101').set('x-api-token', token);
    expect(res.status).toBe(200);
    const [, entry] = await journalOf(server, session.prefix);
    expect(entry?.via).toBe('key-session');
    expect(entry?.notices.map((n) => n.location)).toContain('header.x-api-token');
  });

  it('the session own keys work under its prefix too, and the fixture keys no longer do there', async () => {
    const server = await createTestServer();
    const session = await createKeyedSession(server);
    const token = await issueToken(server.http, session.prefix, keyOf(session, 1));
    expect(
      (await server.http.get(`${session.prefix}/api/v2/documents/101101`).set('x-access-token', token))
        .status,
    ).toBe(200);
    // A token issued under the prefix is the session's too: it reaches it at the root.
    expect((await server.http.get('/api/v2/documents/101101').set('x-access-token', token)).status).toBe(200);
    const refused = await server.http
      .post(`${session.prefix}/api/v2/auth/client_token`)
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', 'x')
      .send({ scope: 'docs_api', content: 'c' });
    expect(refused.status).toBe(401);
    const journal = await journalOf(server, session.prefix);
    expect(journal.map((e) => e.via)).toEqual(['direct', 'direct', 'key-session', 'direct']);
  });

  it('a reset keeps the keys and their tokens; a fixture load keeps each organization key', async () => {
    const server = await createTestServer();
    const session = await createKeyedSession(server);
    const token = await issueToken(server.http, '', keyOf(session, 1));
    await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send(rename('Before reset'));
    expect((await server.http.post(`${session.prefix}/__admin/reset`)).status).toBe(200);
    const afterReset = await server.http.get('/api/v2/documents/101101').set('x-access-token', token);
    expect(afterReset.status).toBe(200);
    expect(afterReset.body.details.name.value.text).toBe('Dundee Office');

    // A set with organization 1 only, and a new organization 3: key 1 kept, 3 fresh, 2 gone.
    const set = readSmallSet();
    set.organizations = [
      { id: 1, name: 'Acme MSP' },
      { id: 3, name: 'Third MSP' },
    ];
    set.clients = set.clients?.filter((c) => c.organizationId === 1);
    set.documents = set.documents?.filter((d) => d.organization_id === 1);
    delete set.apiKeys;
    expect((await server.http.put(`${session.prefix}/__admin/fixtures`).send(set)).status).toBe(200);
    const keys: ApiKey[] = (await server.http.get(`${session.prefix}/__admin/state`)).body.apiKeys;
    expect(keys.find((k) => k.organizationId === 1)).toEqual(keyOf(session, 1));
    const third = keys.find((k) => k.organizationId === 3);
    expect(third?.keyId).toMatch(/^[0-9a-f]{64}$/);
    expect(keys).toHaveLength(2);
    const listed = (await server.http.get('/__admin/sessions')).body.sessions[0];
    expect(listed.ownKeyIds.sort()).toEqual(keys.map((k) => k.keyId).sort());

    // A load ends the tokens (as at the root): the old one reaches nothing and is unknown.
    const stale = await server.http.get('/api/v2/documents/101101').set('x-access-token', token);
    expect(stale.status).toBe(401);
    expect(stale.body.message).toContain('unknown token');
    // The kept key and the fresh one both reach the session; the dropped one reaches nothing.
    const fresh = await issueToken(server.http, '', third as ApiKey);
    expect((await server.http.get('/api/v2/documents').set('x-access-token', fresh)).body.results).toEqual(
      [],
    );
    await issueToken(server.http, '', keyOf(session, 1));
    const dropped = await server.http
      .post('/api/v2/auth/client_token')
      .set('x-key', keyOf(session, 2).keyId)
      .set('x-hash', 'x')
      .send({ scope: 'docs_api', content: 'c' });
    expect(dropped.status).toBe(401);
    expect(dropped.body.message).toContain('unknown key ID');
  });

  it('once the session is deleted, its keys and tokens are unknown at the root (401)', async () => {
    const server = await createTestServer();
    const session = await createKeyedSession(server);
    const key = keyOf(session, 1);
    const token = await issueToken(server.http, '', key);
    expect((await server.http.delete(`/__admin/sessions/${session.id}`)).status).toBe(200);

    const read = await server.http.get('/api/v2/documents/101101').set('x-access-token', token);
    expect(read.status).toBe(401);
    expect(read.body.message).toContain('unknown token');
    await expect(issueToken(server.http, '', key)).rejects.toThrow(/401.*unknown key ID/);
    // And they land in the root's journal, as any unknown credential does.
    expect((await journalOf(server)).map((e) => [e.status, e.via])).toEqual([
      [401, 'direct'],
      [401, 'direct'],
    ]);
    expect(server.mock.sessions.routesByKey).toBe(false);
  });

  it('an unknown key or token at the root is the root 401, whatever sessions exist', async () => {
    const server = await createTestServer();
    await createKeyedSession(server);
    const unknown = await server.http
      .post('/api/v2/auth/client_token')
      .set('x-key', 'f'.repeat(64))
      .set('x-hash', 'x')
      .send({ scope: 'docs_api', content: 'c' });
    expect(unknown.status).toBe(401);
    const badToken = await server.http.get('/api/v2/documents').set('x-access-token', 'not-a-token');
    expect(badToken.status).toBe(401);
    expect((await journalOf(server)).map((e) => e.status)).toEqual([401, 401]);
  });

  it('the admin API at the root is never routed by a session key or token', async () => {
    const server = await createTestServer();
    const session = await createKeyedSession(server);
    const token = await issueToken(server.http, '', keyOf(session, 1));
    const health = await server.http.get('/__admin/health').set('x-access-token', token);
    expect(health.body.session).toBeNull();
  });

  it('a token pruned after expiry stops routing: the table follows the session token store', async () => {
    const server = await createTestServer();
    const session = await createKeyedSession(server);
    const key = keyOf(session, 1);
    const token = await issueToken(server.http, '', key);
    expect(server.mock.sessions.byToken(token)?.id).toBe(session.id);
    await server.http.post(`${session.prefix}/__admin/clock`).send({ advanceSeconds: 4000 });
    // Expired but still held: the session answers why.
    const expired = await server.http.get('/api/v2/documents').set('x-access-token', token);
    expect(expired.status).toBe(401);
    expect(expired.body.message).toContain('token expired');
    // The next token call prunes it from the session, and so from the routing table.
    await issueToken(server.http, '', key);
    expect(server.mock.sessions.byToken(token)).toBeUndefined();
  });
});

describe('the routing table follows idle sessions', () => {
  it('a key-bound session reaped for being idle takes its keys and tokens with it', async () => {
    const server = await createTestServer({ sessionIdleSeconds: 600 });
    const session = await createKeyedSession(server);
    const key = keyOf(session, 1);
    const token = await issueToken(server.http, '', key);
    const registry = server.mock.sessions;
    // Using the key or a token keeps the session alive, as its prefix does.
    const before = registry.list()[0]?.lastUsedAt ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(registry.byToken(token)?.id).toBe(session.id);
    expect(registry.list()[0]?.lastUsedAt).toBeGreaterThan(before);
    for (const s of registry.list()) s.lastUsedAt -= 86_400_000;
    expect(registry.reapIdle()).toEqual([session.id]);
    expect(registry.byKey(key.keyId)).toBeUndefined();
    expect(registry.byToken(token)).toBeUndefined();
    expect((await server.http.get('/api/v2/documents').set('x-access-token', token)).status).toBe(401);
  });
});

describe('with a state file', () => {
  it("a write a session served by its key is saved like the root's: with the file's folder gone, both answer stateNotSaved", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'fake-key-state-'));
    const server = await createTestServer({ stateFile: join(folder, 'state.json') });
    try {
      const session = await createKeyedSession(server);
      const token = await issueToken(server.http, '', keyOf(session, 1));
      const rootToken = await server.token();
      rmSync(folder, { recursive: true, force: true });
      const routed = await server.http
        .patch('/api/v2/documents/101101')
        .set('x-access-token', token)
        .send(rename('Session edit'));
      // The session is kept in the file too: its change is not acknowledged unless it is on disk.
      expect(routed.status).toBe(500);
      expect(routed.body.message).toBe('the change could not be saved to the state file');
      const rootWrite = await server.http
        .patch('/api/v2/documents/101101')
        .set('x-access-token', rootToken)
        .send(rename('Root edit'));
      expect(rootWrite.status).toBe(500);
      expect(rootWrite.body.message).toBe('the change could not be saved to the state file');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('secrets and tokens', () => {
  it('the journals never show a key secret, and the request log never shows a token', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const server = await createTestServer({ logger });
    const session = await createKeyedSession(server);
    const key = keyOf(session, 1);
    const token = await issueToken(server.http, '', key);
    await server.http.get('/api/v2/documents').set('x-access-token', token);
    await server.http.get(`/api/v2/documents?searchTxt=x`).set('x-api-token', token);

    const journals = JSON.stringify([await journalOf(server, session.prefix), await journalOf(server)]);
    expect(journals).toContain(key.keyId);
    expect(journals).not.toContain(key.secret);
    const log = lines.join('');
    expect(log).toContain(session.id);
    expect(log).not.toContain(token);
    expect(log).not.toContain(key.secret);
  });
});

describe('journal entries: scheme, Host as sent and how the request arrived', () => {
  it('records them for the root and a session, in the admin API and the programmatic one', async () => {
    const server = await createTestServer();
    const session = await createKeyedSession(server);
    await server.http.get('/api/v2/documents').set('host', 'us-clover.passportalmsp.com');
    await server.http.get(`${session.prefix}/api/v2/documents`).set('host', 'fake.localhost:4010');
    const root = await journalOf(server);
    expect(root[0]).toMatchObject({ scheme: 'http', host: 'us-clover.passportalmsp.com', via: 'direct' });
    const inSession = await journalOf(server, session.prefix);
    expect(inSession[0]).toMatchObject({ scheme: 'http', host: 'fake.localhost:4010', via: 'direct' });
    const [viaApi] = await server.mock.requests();
    expect(viaApi).toMatchObject({ scheme: 'http', host: 'us-clover.passportalmsp.com', via: 'direct' });
  });
});

describe('the programmatic API and the admin client stay in step', () => {
  it('mock.session(fixtures, { keys: "own" }) answers the keys; delete() ends them', async () => {
    const server = await createTestServer();
    const session = await server.mock.session(undefined, { keys: 'own' });
    expect(session.keys?.map((k) => k.organizationId).sort()).toEqual([1, 2]);
    expect(session.state().apiKeys).toEqual(session.keys);
    const key = session.keys?.find((k) => k.organizationId === 1) as ApiKey;
    const token = await issueToken(server.http, '', key);
    expect((await server.http.get('/api/v2/documents/101101').set('x-access-token', token)).status).toBe(200);
    const [entry] = await session.requests();
    expect(entry).toMatchObject({ via: 'key-session', scheme: 'http', operationId: 'createClientToken' });
    expect(await server.mock.requests()).toEqual([]);
    const plain = await server.mock.session();
    expect(plain.keys).toBeUndefined();

    session.delete();
    expect((await server.http.get('/api/v2/documents/101101').set('x-access-token', token)).status).toBe(401);
  });

  it('the admin client creates a session with own keys and lists their IDs', async () => {
    const server = await createTestServer();
    const url = await server.mock.listen(0, '127.0.0.1');
    try {
      const admin = createAdminClient(url);
      const created = await admin.createSession({ keys: 'own', expires: false });
      expect(created.keys).toHaveLength(2);
      const [listed] = await admin.sessions();
      expect(listed).toMatchObject({ id: created.id, expires: false });
      expect(listed?.ownKeyIds?.sort()).toEqual(created.keys?.map((k) => k.keyId).sort());
      expect((await created.admin.state()).apiKeys).toEqual(created.keys);
    } finally {
      await server.mock.close();
    }
  });
});
