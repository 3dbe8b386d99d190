import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer, type MockServerOptions } from '../../src/index.js';
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

/** Opens a socket, writes `data`, and resolves with all it reads until the server closes it. */
function exchange(target: { host: string; port: number }, data: string, keepOpenMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(target.port, target.host, () => {
      socket.write(data);
      if (keepOpenMs > 0) setTimeout(() => socket.end(), keepOpenMs).unref();
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
    });
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
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

  it('closes connections past maxConnections instead of letting them pile up', async () => {
    const target = await listen({ maxConnections: 2 });
    const held = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(target.port, target.host, () => resolve(s));
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 100));
    const third = await exchange(target, 'GET /__admin/health HTTP/1.1\r\nhost: localhost\r\n\r\n');
    expect(third).toBe('');
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    const after = await exchange(
      target,
      'GET /__admin/health HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n',
    );
    expect(statusOf(after)).toBe(200);
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
