import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpsFake, startHttpsFake } from '../support/https-fake.js';

/**
 * The HTTPS port keeps the HTTP port's promises for connections that have not finished their TLS
 * handshake: counted against maxConnections from accept (one pool with the HTTP port), evictable
 * at the cap, closed after headersTimeoutMs; a flood of silent sockets on it locks no client out
 * of either port.
 */

let fake: HttpsFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** A TCP connection that never starts its TLS handshake; `closed` tells when the fake let it go. */
function silentSocket(port: number): Promise<{ socket: Socket; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    let closed = false;
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () =>
      resolve({ socket, closed: () => closed }),
    );
    socket.on('error', () => {});
    // The client keeps its side open (allowHalfOpen), as a hostile one would: the fake's end is
    // what closes it.
    const onGone = () => {
      closed = true;
    };
    socket.on('end', onGone);
    socket.on('close', onGone);
    socket.once('error', reject);
  });
}

/** A health check from another loopback address, over HTTP or HTTPS; its status. */
function health(url: string, ca?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const options = { localAddress: '127.0.0.2', ca, timeout: 5000 };
    const request = (ca === undefined ? httpGet : httpsGet)(`${url}/__admin/health`, options, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    request.on('timeout', () => request.destroy(new Error('no answer in 5 s')));
    request.on('error', reject);
  });
}

describe('the HTTPS port under a flood of sockets that never finish the TLS handshake', () => {
  it('holds no more than maxConnections of them, answers health on both ports meanwhile, and closes them after headersTimeoutMs', async () => {
    fake = await startHttpsFake({ headersTimeoutMs: 1000, requestTimeoutMs: 5000, maxConnections: 40 });
    const httpsUrl = fake.mock.httpsUrl ?? '';
    const port = Number(new URL(httpsUrl).port);
    const flood: Array<{ socket: Socket; closed: () => boolean }> = [];
    const opened = Date.now();
    for (let i = 0; i < 150; i++) flood.push(await silentSocket(port));
    await pause(100);
    // Counted from accept: the newest took the slots of the oldest.
    expect(flood.filter((s) => !s.closed()).length).toBeLessThanOrEqual(40);
    // Neither port is locked: each check takes the slot of a silent socket.
    expect(await health(fake.proxyUrl)).toBe(200);
    expect(await health(httpsUrl, readFileSync(fake.caPath, 'utf8'))).toBe(200);
    // Timed out like a client that sends no headers (Node's own default would be 120 s).
    while (flood.some((s) => !s.closed()) && Date.now() - opened < 10_000) await pause(100);
    expect(flood.filter((s) => !s.closed())).toHaveLength(0);
    expect(Date.now() - opened).toBeLessThan(5000);
    for (const { socket } of flood) socket.destroy();
  }, 30_000);
});
