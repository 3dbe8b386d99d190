import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpsFake, startHttpsFake } from '../support/https-fake.js';

/**
 * `--proxy-auth challenge`: .NET's HttpClient (PowerShell's Invoke-RestMethod) sends the proxy
 * credentials of HTTPS_PROXY or -ProxyCredential only after a 407 with `Proxy-Authenticate:
 * Basic`. With the option, a proxy request without credentials gets that challenge; the answer
 * with the session as user reaches the session, the user `root` the root. Without the option a
 * request without credentials is served by the root, as curl and Python's requests rely on.
 * (clients/powershell/tests drives the same with real pwsh.)
 */

let challenging: HttpsFake;
let plain: HttpsFake;

beforeAll(async () => {
  [challenging, plain] = await Promise.all([startHttpsFake({ proxyAuth: 'challenge' }), startHttpsFake()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([challenging.close(), plain.close()]);
});

/** Writes `text` on a new connection to `fake`'s proxy and reads until the answer is whole or the connection closes. */
function exchange(fake: HttpsFake, text: string, until: RegExp): Promise<string> {
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(new URL(fake.proxyUrl).port), '127.0.0.1', () =>
      socket.write(text),
    );
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (until.test(got)) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('close', () => resolve(got));
  });
}

const basic = (user: string) =>
  `proxy-authorization: Basic ${Buffer.from(`${user}:x`).toString('base64')}\r\n`;
const documentsThrough = (fake: HttpsFake, auth: string) =>
  exchange(
    fake,
    `GET http://us-clover.passportalmsp.com/api/v2/documents HTTP/1.1\r\nhost: us-clover.passportalmsp.com\r\n${auth}connection: close\r\n\r\n`,
    /\r\n\r\n[\s\S]*\}$/,
  );
const connectThrough = (fake: HttpsFake, auth: string) =>
  exchange(
    fake,
    `CONNECT us-clover.passportalmsp.com:443 HTTP/1.1\r\nhost: us-clover.passportalmsp.com:443\r\n${auth}\r\n`,
    /\r\n\r\n/,
  );
const statusOf = (raw: string) => Number(raw.split(' ')[1]);

describe('--proxy-auth challenge', () => {
  it('challenges a request and a CONNECT without credentials with 407 Proxy-Authenticate: Basic, saying what to send', async () => {
    for (const raw of [await documentsThrough(challenging, ''), await connectThrough(challenging, '')]) {
      expect(statusOf(raw)).toBe(407);
      expect(raw.toLowerCase()).toMatch(/proxy-authenticate: basic realm=/);
    }
    const raw = await documentsThrough(challenging, '');
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { message: string; status: number };
    expect(body.status).toBe(407);
    expect(body.message).toContain("'root' for the root");
  });

  it("the proxy's own 407, 403 and 400 answers to absolute-form requests carry X-Content-Type-Options: nosniff", async () => {
    const through = (target: string, host: string) =>
      exchange(
        challenging,
        `GET ${target} HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`,
        /\r\n\r\n[\s\S]*\}$/,
      );
    const answers = [
      await documentsThrough(challenging, ''),
      await through('http://example.com/api/v2/documents', 'example.com'),
      await through('http://[bad/api', 'bad'),
    ];
    expect(answers.map(statusOf)).toEqual([407, 403, 400]);
    for (const raw of answers) {
      const head = raw.slice(0, raw.indexOf('\r\n\r\n')).toLowerCase();
      expect(head).toContain('\r\nx-content-type-options: nosniff');
      expect(head).toContain('\r\ncontent-type: application/json');
    }
  });

  it('challenges every answer that names no live session: another scheme, an unknown, deleted or partial id, a huge header', async () => {
    const session = await challenging.mock.session();
    const deleted = await challenging.mock.session();
    deleted.delete();
    const answers = [
      await documentsThrough(challenging, 'proxy-authorization: Bearer abc\r\n'),
      await documentsThrough(challenging, basic('no-such-session')),
      await documentsThrough(challenging, basic(deleted.id)),
      await documentsThrough(challenging, basic(session.id.slice(0, 6))),
      await connectThrough(challenging, basic(deleted.id)),
    ];
    expect(answers.map(statusOf)).toEqual([407, 407, 407, 407, 407]);
    // Nothing reached the live session's journal.
    expect(session.instance.journal.list({}).length).toBe(0);
    const huge = await documentsThrough(challenging, `proxy-authorization: Basic ${'A'.repeat(12_000)}\r\n`);
    expect([407, 431]).toContain(statusOf(huge));
    session.delete();
  });

  it('serves the answer to the challenge: a session by its id, the root by the user root', async () => {
    const session = await challenging.mock.session();
    const listed = (journal: { list: (q: { path: string }) => unknown[] }) =>
      journal.list({ path: '/api/v2/documents' }).length;
    try {
      // Without a token both answer 401: what tells them apart is whose journal holds the request.
      expect(statusOf(await documentsThrough(challenging, basic(session.id)))).toBe(401);
      expect([listed(session.instance.journal), listed(challenging.mock.root.journal)]).toEqual([1, 0]);
      expect(statusOf(await documentsThrough(challenging, basic('root')))).toBe(401);
      expect([listed(session.instance.journal), listed(challenging.mock.root.journal)]).toEqual([1, 1]);
      expect(statusOf(await connectThrough(challenging, basic(session.id)))).toBe(200);
      expect(statusOf(await connectThrough(challenging, basic('root')))).toBe(200);
    } finally {
      session.delete();
    }
  });

  it('is off by default: a request without credentials is served by the root, and root still names it', async () => {
    const before = plain.mock.root.journal.list({ path: '/api/v2/documents' }).length;
    expect(statusOf(await documentsThrough(plain, ''))).toBe(401);
    expect(statusOf(await documentsThrough(plain, basic('root')))).toBe(401);
    expect(plain.mock.root.journal.list({ path: '/api/v2/documents' }).length).toBe(before + 2);
    expect(statusOf(await connectThrough(plain, ''))).toBe(200);
  });
});
