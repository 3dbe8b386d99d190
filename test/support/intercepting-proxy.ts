import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { ServerCertificates } from '../../src/tls/server-certificates.js';

/**
 * A loopback HTTPS proxy that stands in for one public host: a client configured with it
 * (`HTTPS_PROXY`) and trusting only its throw-away CA (`SSL_CERT_FILE`) downloads from the host's
 * URL as printed, and nothing leaves the machine. It accepts `CONNECT host:443` for that host only,
 * answers TLS with a certificate for it issued by a CA made in `tlsDir` (the fake's own certificate
 * code), and serves the given paths' bytes. Anything else (another host, port, path or method) is
 * refused with 403 and recorded in `refused`, for the test to assert it stayed empty.
 */
export interface InterceptingProxy {
  /** The proxy's URL, for `HTTPS_PROXY`. */
  readonly url: string;
  /** The CA's certificate file (PEM): the only one the client should trust. */
  readonly caFile: string;
  /** What was served, as `GET https://host/path`, in order. */
  readonly served: string[];
  /** What was asked for and refused, as it was asked for. */
  readonly refused: string[];
  close(): Promise<void>;
}

export async function startInterceptingProxy(options: {
  host: string;
  /** Path → bytes served with 200 for a GET. */
  files: Record<string, Buffer>;
  /** A folder of the test's own, where the CA and its server certificate are made. */
  tlsDir: string;
}): Promise<InterceptingProxy> {
  const { host, files } = options;
  const certificates = await ServerCertificates.open({
    tlsHosts: host,
    tlsDir: options.tlsDir,
    tlsCaCert: undefined,
    tlsCaKey: undefined,
  });
  const served: string[] = [];
  const refused: string[] = [];

  // The origin inside the tunnels: never listening, fed the decrypted sockets.
  const origin = createHttpServer((request, response) => {
    const path = request.url ?? '';
    const asked = `${request.method} https://${host}${path}`;
    const body = request.method === 'GET' ? files[path] : undefined;
    if (body === undefined) {
      refused.push(asked);
      response.writeHead(403, { 'content-type': 'text/plain' });
      response.end(
        `the test's proxy serves only ${Object.keys(files).join(', ')} of ${host}; refused ${asked}\n`,
      );
      return;
    }
    served.push(asked);
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    response.end(body);
  });

  const proxy: Server = createHttpServer((request, response) => {
    // A plain-HTTP request through the proxy (not a tunnel).
    refused.push(`${request.method} ${request.url}`);
    response.writeHead(403, { 'content-type': 'text/plain' });
    response.end(`the test's proxy tunnels only to ${host}:443\n`);
  });
  const sockets = new Set<Socket>();
  proxy.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  proxy.on('connect', (request, socket: Socket) => {
    const target = request.url ?? '';
    if (target.toLowerCase() !== `${host}:443`) {
      refused.push(`CONNECT ${target}`);
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\nthe test's proxy tunnels only to ${host}:443\n`,
      );
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    const secure = new TLSSocket(socket, { isServer: true, ...certificates.serverOptions() });
    secure.on('error', () => secure.destroy());
    origin.emit('connection', secure);
  });

  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    caFile: certificates.ca.certPath,
    served,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        proxy.close(() => resolve());
      }),
  };
}
