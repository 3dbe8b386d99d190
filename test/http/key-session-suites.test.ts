import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKey } from '../../src/domain/types.js';
import { createAdminClient, createMockServer, type MockServer } from '../../src/index.js';
import { SMALL_SET } from '../support/test-server.js';

/**
 * Two suites of a client pinned to one base URL (the fake's root, as a client pinned to
 * https://us-clover.passportalmsp.com is), run in parallel over real HTTP on shared keep-alive
 * connections, each with a session of its own keys: the key alone decides where a request lands.
 */

/** What the calls used here answer (a list, or one document). */
interface Answer {
  results: Array<{ id: number }>;
  details: { name: { value: { text: string } } };
}

/** A client as teams write it: base URL and key fixed, token fetched once and kept. */
class PinnedClient {
  #token: string | undefined;
  constructor(
    private readonly baseUrl: string,
    private readonly key: { keyId: string; secret: string },
  ) {}

  async token(): Promise<string> {
    if (this.#token) return this.#token;
    const content = randomUUID();
    const res = await fetch(`${this.baseUrl}/api/v2/auth/client_token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-key': this.key.keyId,
        'x-hash': createHmac('sha256', this.key.secret).update(content).digest('hex'),
      },
      body: JSON.stringify({ scope: 'docs_api', content }),
    });
    if (!res.ok) throw new Error(`token call answered ${res.status}: ${await res.text()}`);
    this.#token = ((await res.json()) as { access_token: string }).access_token;
    return this.#token;
  }

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Answer }> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-access-token': await this.token(),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer };
  }

  label(id: number): Promise<string> {
    return this.call('GET', `/api/v2/documents/${id}`).then((r) => r.body.details.name.value.text);
  }
}

const rename = (text: string) => ({
  name: { name: 'Name', description: '', value: { type: 'string', text } },
});

let mock: MockServer;
let url: string;

beforeAll(async () => {
  mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent' });
  url = await mock.listen(0, '127.0.0.1');
});
afterAll(() => mock.close());

/** One suite: its own session and client at the root URL; edits, reads back, lists. */
async function suite(name: string, rounds: number) {
  const admin = createAdminClient(url);
  const session = await admin.createSession({ keys: 'own' });
  const key = session.keys?.find((k) => k.organizationId === 1) as ApiKey;
  const client = new PinnedClient(url, key);
  const seen: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const text = `${name} round ${round}`;
    expect((await client.call('PATCH', '/api/v2/documents/101101', rename(text))).status).toBe(200);
    // Let the other suite write in between: it must never show here.
    await new Promise((resolve) => setImmediate(resolve));
    seen.push(await client.label(101101));
    const list = await client.call('GET', '/api/v2/documents?pageNum=1&searchTxt=round');
    expect(list.body.results.map((d: { id: number }) => d.id)).toEqual([101101]);
  }
  return { session, key, client, seen };
}

describe('two suites pinned to the root URL, in parallel, with key-bound sessions', () => {
  it('each sees only its own changes and its own journal; the root sees neither', async () => {
    const [a, b] = await Promise.all([suite('A', 8), suite('B', 8)]);
    expect(a.seen).toEqual(Array.from({ length: 8 }, (_, i) => `A round ${i}`));
    expect(b.seen).toEqual(Array.from({ length: 8 }, (_, i) => `B round ${i}`));

    for (const { session, key } of [a, b]) {
      const { requests, count } = await session.admin.requests();
      // One token call, then 3 calls per round.
      expect(count).toBe(1 + 3 * 8);
      expect(requests.every((e) => e.via === 'key-session' && e.path.startsWith('/api/v2/'))).toBe(true);
      expect(requests[0]?.headers['x-key']).toBe(key.keyId);
      const other = session === a.session ? b : a;
      const token = await other.client.token();
      expect(requests.some((e) => e.headers['x-access-token'] === token)).toBe(false);
      expect(JSON.stringify(requests)).not.toContain(other.session.id);
    }
    expect((await createAdminClient(url).requests()).count).toBe(0);
    // The root's data is untouched.
    expect(mock.state().documents.find((d) => d.id === 101101)?.details.name).toMatchObject({
      value: { text: 'Dundee Office' },
    });
  });

  it("a credential decides, not the connection: A's token in B's client lands in A; B's secret cannot sign for A's key", async () => {
    const admin = createAdminClient(url);
    const [a, b] = await Promise.all([
      admin.createSession({ keys: 'own' }),
      admin.createSession({ keys: 'own' }),
    ]);
    const keyA = a.keys?.[0] as ApiKey;
    const keyB = b.keys?.[0] as ApiKey;
    const clientA = new PinnedClient(url, keyA);
    await clientA.call('PATCH', '/api/v2/documents/101101', rename('only in A'));

    const borrowed = await fetch(`${url}/api/v2/documents/101101`, {
      headers: { 'x-access-token': await clientA.token() },
    });
    expect(((await borrowed.json()) as Answer).details.name.value.text).toBe('only in A');
    expect(await new PinnedClient(url, keyB).label(101101)).toBe('Dundee Office');

    const forged = new PinnedClient(url, { keyId: keyA.keyId, secret: keyB.secret });
    await expect(forged.token()).rejects.toThrow(/401/);
    const journalA = await a.admin.requests({ status: 401 });
    expect(journalA.requests.map((e) => e.operationId)).toEqual(['createClientToken']);
  });

  it('unknown keys and the keys of a deleted session answer 401 at the root', async () => {
    const admin = createAdminClient(url);
    const session = await admin.createSession({ keys: 'own' });
    const key = session.keys?.[0] as ApiKey;
    const client = new PinnedClient(url, key);
    await client.token();
    await admin.deleteSession(session.id);
    expect((await client.call('GET', '/api/v2/documents')).status).toBe(401);
    await expect(new PinnedClient(url, key).token()).rejects.toThrow(/401/);
    await expect(new PinnedClient(url, { keyId: 'a'.repeat(64), secret: 's' }).token()).rejects.toThrow(
      /401/,
    );
    const rootJournal = await admin.requests();
    expect(rootJournal.requests.map((e) => e.status)).toEqual([401, 401, 401]);
    expect(rootJournal.requests.map((e) => (e.response as { message: string }).message)).toEqual([
      'Invalid token: unknown token',
      expect.stringContaining('unknown key ID'),
      expect.stringContaining('unknown key ID'),
    ]);
  });
});
