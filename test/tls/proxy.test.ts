import { execFile } from 'node:child_process';
import dns from 'node:dns';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Server, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMockServer } from '../../src/index.js';
import { type HttpsFake, pythonWithRequests, startHttpsFake } from '../support/https-fake.js';
import { ACME_KEY, SMALL_SET } from '../support/test-server.js';

/**
 * The HTTP port as a forward proxy for the fake's own hosts only: CONNECT and absolute-form
 * requests for `--tls-hosts` are served by the fake itself, everything else is refused, nothing
 * ever connects out, and proxy credentials route a pinned client to its session.
 */

const run = promisify(execFile);
const PYTHON_CLIENT = fileURLToPath(new URL('./clients/documents_client.py', import.meta.url));

let fake: HttpsFake;
let port: number;

beforeAll(async () => {
  fake = await startHttpsFake();
  port = Number(new URL(fake.proxyUrl).port);
}, 60_000);
afterAll(() => fake.close());

/** A connection to the proxy. */
const openSocket = () =>
  new Promise<Socket>((resolve) => {
    const s: Socket = connect(port, '127.0.0.1', () => resolve(s));
  });

/** Writes `text` on a connection to the proxy (opened now unless given), reads until `until` or close. */
async function exchange(text: string, until?: RegExp, opened?: Socket): Promise<string> {
  const socket = opened ?? (await openSocket());
  return new Promise((resolve) => {
    let got = '';
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (until?.test(got)) {
        socket.destroy();
        resolve(got);
      }
    });
    socket.on('close', () => resolve(got));
    socket.write(text);
  });
}

const statusOf = (raw: string) => Number(raw.split(' ')[1]);
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

describe('hosts the fake does not serve', () => {
  let standIn: Server;
  let standInPort: number;
  const reached: string[] = [];

  beforeAll(async () => {
    // A listener standing in for another host: were the fake to forward anything, it would land here.
    standIn = createServer((s) => {
      reached.push('connection');
      s.destroy();
    });
    await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
    standInPort = (standIn.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => standIn.close(() => resolve())));

  it('refuses CONNECT example.com:443 and GET http://example.com/ with 403 naming --tls-hosts, and connects nowhere', async () => {
    // The client's own connections are opened first: from here on, any connection or name
    // look-up in this process would be the fake's.
    const [first, second, third] = await Promise.all([openSocket(), openSocket(), openSocket()]);
    const connects = vi.spyOn(Socket.prototype, 'connect');
    const lookups = vi.spyOn(dns, 'lookup');
    try {
      const tunnel = await exchange(
        'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n',
        undefined,
        first,
      );
      const plain = await exchange(
        'GET http://example.com/ HTTP/1.1\r\nhost: example.com\r\nconnection: close\r\n\r\n',
        undefined,
        second,
      );
      const https = await exchange(
        'GET https://example.com/api/v2/documents HTTP/1.1\r\nhost: example.com\r\nconnection: close\r\n\r\n',
        undefined,
        third,
      );
      for (const raw of [tunnel, plain, https]) {
        expect(statusOf(raw)).toBe(403);
        expect(bodyOf(raw)).toMatchObject({ success: false, status: 403, code: 0 });
        expect(String(bodyOf(raw).message)).toContain('--tls-hosts (TLS_HOSTS)');
        expect(String(bodyOf(raw).message)).toContain('example.com');
      }
      expect(connects).not.toHaveBeenCalled();
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      connects.mockRestore();
      lookups.mockRestore();
    }
  });

  it('never forwards to another port either: the stand-in listener receives nothing', async () => {
    const tunnel = await exchange(`CONNECT 127.0.0.1:${standInPort} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    expect(statusOf(tunnel)).toBe(403);
    expect(String(bodyOf(tunnel).message)).toContain('port 443 only');
    // A served host on another port, absolute form: answered by the fake itself.
    const plain = await exchange(
      `GET http://localhost:${standInPort}/api/v2/documents HTTP/1.1\r\nhost: localhost:${standInPort}\r\nconnection: close\r\n\r\n`,
    );
    expect(statusOf(plain)).toBe(401);
    expect(bodyOf(plain)).toMatchObject({ success: false, code: 1006 });
    await new Promise((r) => setTimeout(r, 50));
    expect(reached).toEqual([]);
  });
});

describe('absolute-form requests for the fake hosts', () => {
  it('serves GET https://us-clover.passportalmsp.com/... directly, as the same app', async () => {
    const raw = await exchange(
      'GET https://us-clover.passportalmsp.com/api/v2/documents HTTP/1.1\r\nhost: us-clover.passportalmsp.com\r\nconnection: close\r\n\r\n',
    );
    expect(statusOf(raw)).toBe(401);
    expect(bodyOf(raw)).toMatchObject({ success: false, status: 401, code: 1006 });
  });

  it('serves curl through the proxy to http://mycompany.mypasswordapp.com unchanged', async () => {
    const { stdout } = await run('curl', [
      '--silent',
      '--proxy',
      fake.proxyUrl,
      'http://mycompany.mypasswordapp.com/__admin/health',
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', session: null });
  });
});

describe('TLS through the proxy', () => {
  /** Opens a CONNECT tunnel, then TLS inside it trusting only the fake's CA; resolves with the peer's names. */
  async function tunnelTo(host: string): Promise<string> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s: Socket = connect(port, '127.0.0.1', () => {
        s.write(`CONNECT ${host}:443 HTTP/1.1\r\nhost: ${host}:443\r\n\r\n`);
        s.once('data', (d: Buffer) =>
          d.toString().startsWith('HTTP/1.1 200') ? resolve(s) : reject(new Error(d.toString())),
        );
      });
    });
    return new Promise((resolve, reject) => {
      const secure = tlsConnect({ socket, servername: host, ca: readFileSync(fake.caPath) }, () => {
        const names = secure.getPeerCertificate().subjectaltname ?? '';
        secure.destroy();
        resolve(names);
      });
      secure.on('error', reject);
    });
  }

  it('terminates with a certificate the client verifies, for a vendor host and for a deeper name', async () => {
    expect(await tunnelTo('us-clover.passportalmsp.com')).toContain('DNS:*.passportalmsp.com');
    // A one-label wildcard does not cover a two-level name: that name gets a certificate of its own.
    expect(await tunnelTo('eu.de-clover.passportalmsp.com')).toBe('DNS:eu.de-clover.passportalmsp.com');
  });
});

describe('proxy credentials: the proxy user is a session id', () => {
  it('answers 407, naming the session, when no such session lives (CONNECT and absolute form)', async () => {
    const auth = `proxy-authorization: Basic ${Buffer.from('no-such-session:').toString('base64')}\r\n`;
    const tunnel = await exchange(
      `CONNECT us-clover.passportalmsp.com:443 HTTP/1.1\r\nhost: us-clover.passportalmsp.com:443\r\n${auth}\r\n`,
    );
    const plain = await exchange(
      `GET https://us-clover.passportalmsp.com/api/v2/documents HTTP/1.1\r\nhost: us-clover.passportalmsp.com\r\n${auth}connection: close\r\n\r\n`,
    );
    for (const raw of [tunnel, plain]) {
      expect(statusOf(raw)).toBe(407);
      expect(raw.toLowerCase()).toContain('proxy-authenticate: basic');
      expect(bodyOf(raw)).toMatchObject({ success: false, status: 407 });
      expect(String(bodyOf(raw).message)).toContain('"no-such-session"');
    }
  });

  it('isolates two suites of a client pinned to the vendor host, run in parallel', async () => {
    const sessions = await Promise.all([fake.mock.session(), fake.mock.session()]);
    const runSuite = (sessionId: string, mark: string) =>
      run(pythonWithRequests(), [PYTHON_CLIENT], {
        env: {
          PATH: process.env.PATH,
          BASE_URL: 'https://us-clover.passportalmsp.com',
          KEY_ID: ACME_KEY.keyId,
          KEY_SECRET: ACME_KEY.secret,
          DOCUMENT_ID: '101101',
          MARK: mark,
          HTTPS_PROXY: fake.sessionProxyUrl(sessionId),
          REQUESTS_CA_BUNDLE: fake.caPath,
        },
      });
    const [a, b] = sessions;
    if (a === undefined || b === undefined) throw new Error('no sessions');
    const [outA, outB] = await Promise.all([runSuite(a.id, 'suite A'), runSuite(b.id, 'suite B')]);
    expect(JSON.parse(outA.stdout)).toMatchObject({ patch: [200, { success: 'true' }], after: 'suite A' });
    expect(JSON.parse(outB.stdout)).toMatchObject({ patch: [200, { success: 'true' }], after: 'suite B' });
    const address = (docs: { id: number; details: Record<string, unknown> }[]) =>
      (docs.find((d) => d.id === 101101)?.details.address_1 as { value?: { text?: string } } | undefined)
        ?.value?.text;
    expect(address(a.instance.fake.snapshot().documents)).toBe('suite A');
    expect(address(b.instance.fake.snapshot().documents)).toBe('suite B');
    expect(address(fake.mock.root.fake.snapshot().documents)).toBe('1 High St');
    // Each session's journal holds its own suite's calls (token, list, read, patch, read), the root's none.
    for (const session of [a, b]) {
      const paths = session.instance.journal.list().map((e) => e.path);
      expect(paths).toContain('/api/v2/auth/client_token');
      expect(paths.filter((p) => p === '/api/v2/documents/101101')).toHaveLength(3);
    }
    expect(fake.mock.root.journal.list({ path: '/api/v2/documents/*' })).toEqual([]);
    for (const session of sessions) session.delete();
  }, 60_000);
});

describe('the CA certificate', () => {
  it('is served at /__admin/tls/ca.pem, the same as the file, without any key', async () => {
    const res = await fetch(`${fake.proxyUrl}/__admin/tls/ca.pem`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-pem-file');
    const text = await res.text();
    expect(text).toBe(readFileSync(fake.caPath, 'utf8'));
    expect(text).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(text).not.toContain('PRIVATE KEY');
  });

  it('answers 404 tlsNotEnabled, saying what to do, when HTTPS is off; CONNECT is then 405', async () => {
    const mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', port: 0 });
    const url = await mock.listen();
    try {
      const res = await fetch(`${url}/__admin/tls/ca.pem`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({
        success: false,
        status: 404,
        message: expect.stringContaining('--https-port'),
      });
      expect(mock.tls).toBeUndefined();
    } finally {
      await mock.close();
    }
  });
});
