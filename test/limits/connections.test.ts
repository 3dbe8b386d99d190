import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer, type MockServerOptions } from '../../src/index.js';
import { exchange } from '../support/raw-http.js';
import { SMALL_SET } from '../support/test-server.js';

/**
 * What a slow, hostile or odd client does at the socket level, answered in the vendor shape and
 * within bounds: a listening fake, raw sockets.
 */

let mock: MockServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function listen(options: MockServerOptions = {}): Promise<{ host: string; port: number }> {
  mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', ...options });
  const url = new URL(await mock.listen(0, '127.0.0.1'));
  return { host: url.hostname, port: Number(url.port) };
}

const HEALTH = 'GET /__admin/health HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n';
const HEALTH_KEEP_ALIVE = 'GET /__admin/health HTTP/1.1\r\nhost: localhost\r\n\r\n';

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * A connected socket that has sent nothing, from `localAddress` (any address of 127/8 is
 * loopback). It never closes its side on its own, as a hostile client would not.
 */
function openSocket(target: { host: string; port: number }, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: target.port, host: target.host, localAddress, allowHalfOpen: true }, () =>
      resolve(socket),
    );
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** The next whole answer on a keep-alive socket (health answers are small: one chunk with its body). */
function readAnswer(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.setEncoding('latin1');
    socket.once('data', (d: string) => resolve(d));
  });
}

const statusOf = (raw: string) => Number(raw.slice(9, 12));
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

describe('connections', () => {
  it('answers 408 in the vendor shape to a client that does not finish its headers in time', async () => {
    const target = await listen({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const raw = await exchange(target, 'GET /api/v2/documents HTTP/1.1\r\nhost: x\r\n', 5000);
    expect(statusOf(raw)).toBe(408);
    expect(bodyOf(raw)).toMatchObject({ success: false, status: 408, code: 0 });
  });

  it('answers 408 to a client that trickles its body past requestTimeoutMs', async () => {
    const target = await listen({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const raw = await exchange(
      target,
      'PUT /api/v2/documents HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n[',
      5000,
    );
    expect(statusOf(raw)).toBe(408);
    expect(bodyOf(raw)).toMatchObject({ status: 408 });
  });

  it('answers 413 at once to a declared length over the limit, before any body', async () => {
    const target = await listen({ bodyLimit: 1000 });
    const raw = await exchange(
      target,
      'PUT /api/v2/documents HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 5000000\r\n\r\n',
      5000,
    );
    expect(statusOf(raw)).toBe(413);
    expect(bodyOf(raw)).toMatchObject({ success: false, status: 413 });
  });

  it('answers CONNECT with 405 and an unknown Expect with 417, both in the vendor shape', async () => {
    const target = await listen();
    const tunnel = await exchange(
      target,
      'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n',
    );
    expect(statusOf(tunnel)).toBe(405);
    expect(bodyOf(tunnel)).toMatchObject({ status: 405, code: 3000 });
    const expect100 = await exchange(
      target,
      'GET /api/v2/documents HTTP/1.1\r\nhost: x\r\nexpect: 200-ok\r\nconnection: close\r\n\r\n',
    );
    expect(statusOf(expect100)).toBe(417);
    expect(bodyOf(expect100)).toMatchObject({ status: 417, errors: [{ location: 'header.expect' }] });
  });

  it('answers 408 to a connection that sends nothing, and closes it even if the client never does', async () => {
    const target = await listen({ headersTimeoutMs: 400, requestTimeoutMs: 5000 });
    const opened = Date.now();
    const socket = await openSocket(target);
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      raw += d;
    });
    await new Promise((done) => socket.once('end', done));
    expect(statusOf(raw)).toBe(408);
    expect(bodyOf(raw)).toMatchObject({ success: false, status: 408 });
    expect(Date.now() - opened).toBeGreaterThanOrEqual(350);
    // The client keeps its side open. Once the grace to read the answer is over, the fake has
    // let go of the connection: what the client still sends is refused (a reset).
    await pause(3000);
    const refused = new Promise<string>((done) =>
      socket.once('error', (e: NodeJS.ErrnoException) => done(String(e.code))),
    );
    socket.write('GET /__admin/health HTTP/1.1\r\nhost: localhost\r\n\r\n');
    await pause(200);
    socket.write('more');
    expect(await refused).toMatch(/ECONNRESET|EPIPE/);
  });

  it('serves a new client at once while one address holds every slot with silent and half-sent requests', async () => {
    const target = await listen({ maxConnections: 20, headersTimeoutMs: 30_000, requestTimeoutMs: 60_000 });
    const attacker = await Promise.all(Array.from({ length: 20 }, () => openSocket(target)));
    // Half of them start a request and never finish its headers (slowloris).
    for (const s of attacker.slice(10)) s.write('GET /api/v2/documents HTTP/1.1\r\nhost: x\r\n');
    await pause(100);
    const started = Date.now();
    const answer = await exchange(target, HEALTH);
    expect(statusOf(answer)).toBe(200);
    // Served well inside the header timeout: a slot was taken from the attacker, the oldest first.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(attacker[0]?.destroyed || attacker[0]?.readableEnded).toBe(true);
    // Again and again: each newcomer is served while the attacker keeps the rest.
    for (let i = 0; i < 5; i++) expect(statusOf(await exchange(target, HEALTH))).toBe(200);
    for (const s of attacker) s.destroy();
  });

  it('never cuts a request being answered: at a cap full of them, the newcomer is closed', async () => {
    const target = await listen({ maxConnections: 2, latencyMs: 800 });
    const slow = [0, 1].map(() =>
      exchange(target, 'GET /api/v2/documents HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'),
    );
    await pause(300);
    expect(await exchange(target, HEALTH)).toBe('');
    for (const raw of await Promise.all(slow)) expect(statusOf(raw)).toBe(401);
    expect(statusOf(await exchange(target, HEALTH))).toBe(200);
  });

  it('at the cap, takes the slot from the address holding the most idle connections', async () => {
    const target = await listen({ maxConnections: 4, headersTimeoutMs: 30_000, requestTimeoutMs: 60_000 });
    // A client's keep-alive connection, opened first and idle between requests.
    const client = await openSocket(target, '127.0.0.3');
    const first = readAnswer(client);
    client.write(HEALTH_KEEP_ALIVE);
    expect(statusOf(await first)).toBe(200);
    // Another address then fills the other slots with silent sockets.
    const attacker = await Promise.all([0, 1, 2].map(() => openSocket(target, '127.0.0.2')));
    await pause(100);
    // A new connection from the client's address is served; the attacker's oldest made room.
    expect(statusOf(await exchange(target, HEALTH, 0, '127.0.0.3'))).toBe(200);
    await pause(100);
    expect(attacker[0]?.destroyed || attacker[0]?.readableEnded).toBe(true);
    // The client's own older connection was left alone and still answers.
    expect(client.destroyed || client.readableEnded).toBe(false);
    const second = readAnswer(client);
    client.write(HEALTH_KEEP_ALIVE);
    expect(statusOf(await second)).toBe(200);
    client.destroy();
    for (const s of attacker) s.destroy();
  });

  it('never writes an error into the answer of a slow request ahead of it on the same connection', async () => {
    const target = await listen({ latencyMs: 300 });
    const raw = await exchange(
      target,
      'GET /api/v2/documents HTTP/1.1\r\nhost: x\r\n\r\nBROKEN REQUEST LINE\r\n\r\n',
    );
    // The slow request's own answer (401: no token), whole, is the only one; then the close.
    const answers = raw.split('HTTP/1.1 ').filter(Boolean);
    expect(answers).toHaveLength(1);
    expect(statusOf(`HTTP/1.1 ${answers[0]}`)).toBe(401);
    expect(bodyOf(`HTTP/1.1 ${answers[0]}`)).toMatchObject({ status: 401 });
  });
});
