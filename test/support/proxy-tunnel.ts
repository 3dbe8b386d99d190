import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Body, JsonAnswer } from './json-call.js';

/**
 * A session's calls through the fake's forward proxy, as a client configured with a proxy makes
 * them: `CONNECT` to the vendor's host with the session id as proxy user, TLS trusting only the
 * fake's CA, then the request inside the tunnel.
 */

/** The vendor's host name a client asks the proxy for. */
export const VENDOR_HOST = 'us-clover.passportalmsp.com';

/** A proxy's answer as a test reads it: status, text, its JSON (empty for no text), `Retry-After`. */
export type ProxyAnswer = Omit<JsonAnswer, 'headers'>;

/** Where the proxy listens (a fake's HTTP port, or a balancer's), and the CA file its tunnels' TLS is checked against. */
export interface ProxyTarget {
  port: number;
  caFile: string;
}

/** The `Proxy-Authorization` of a session's proxy user. */
export const proxyAuth = (sessionId: string): string =>
  `Basic ${Buffer.from(`${sessionId}:session`).toString('base64')}`;

/** An answer's text as JSON; empty text as an empty body. */
export function parseBody(text: string): Body {
  return (text === '' ? {} : JSON.parse(text)) as Body;
}

/**
 * Opens a CONNECT tunnel to the vendor's host through the proxy on loopback `port`, the session as
 * proxy user, `extraHeaders` (whole header lines) added. Resolves the socket on 200; any other
 * answer to the CONNECT (a dead owner's 503, a refused hop marker) is returned whole, as the
 * client reads it.
 */
export function openTunnel(
  port: number,
  sessionId: string,
  extraHeaders = '',
): Promise<Socket | ProxyAnswer> {
  const auth = proxyAuth(sessionId);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `CONNECT ${VENDOR_HOST}:443 HTTP/1.1\r\nhost: ${VENDOR_HOST}:443\r\nproxy-authorization: ${auth}\r\n${extraHeaders}\r\n`,
      );
    });
    let received = '';
    const onData = (chunk: Buffer): void => {
      received += chunk.toString('latin1');
      if (!received.includes('\r\n\r\n')) return;
      if (received.startsWith('HTTP/1.1 200')) {
        socket.off('data', onData);
        resolve(socket);
      }
    };
    socket.on('data', onData);
    socket.on('end', () => {
      const [head = '', text = ''] = received.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0),
        text: received,
        body: parseBody(text),
        retryAfter: /^retry-after: *(.*)$/im.exec(head)?.[1],
      });
    });
    socket.on('error', reject);
  });
}

/**
 * A request to the vendor's host over HTTPS through `proxy`, as the session's proxy user; a
 * refused CONNECT is answered as the proxy answered it.
 */
export async function viaProxy(
  proxy: ProxyTarget,
  sessionId: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ProxyAnswer> {
  const tunnel = await openTunnel(proxy.port, sessionId);
  if (!('write' in tunnel)) return tunnel;
  const secure = tlsConnect({ socket: tunnel, servername: VENDOR_HOST, ca: readFileSync(proxy.caFile) });
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        method,
        path,
        host: VENDOR_HOST,
        headers: {
          ...headers,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
        createConnection: () => secure,
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => {
          secure.destroy();
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, text, body: parseBody(text), retryAfter });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
