import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Options } from '../config.js';
import type { ErrorSuccess } from '../errors.js';
import type { Fleet } from '../fleet/fleet.js';
import type { SessionRegistry } from '../harness/sessions/sessions.js';
import type { ServerCertificates } from '../tls/server-certificates.js';
import type { TlsHosts } from '../tls/tls-hosts.js';
import { serverClasses } from './app.js';
import { answerClientError, answerConnect, answerExpectation } from './client-error.js';
import { ConnectionGuard } from './connection-guard.js';
import { createForwardProxy } from './forward-proxy.js';

// node:https loads only when HTTPS is on: a start without it does not pay for it.
const require = createRequire(import.meta.url);

export interface ListenersInput {
  options: Options;
  /** The request listener every port serves (the app, wrapped by the state file when kept). */
  app: RequestListener;
  /** Sessions a proxy user names. */
  sessions: SessionRegistry;
  /** HTTPS and the proxy's CONNECT, when `httpsPort` is set. */
  certificates: ServerCertificates | undefined;
  /** The host names the proxy serves. */
  hosts: TlsHosts;
  errorSuccess: () => ErrorSuccess;
  /** The fleet this server is a replica of (its proxy carries other replicas' proxy users to them). */
  fleet?: Fleet;
}

/** Where a server listens. */
export interface Addresses {
  url: string;
  /** Set when `httpsPort` is. */
  httpsUrl: string | undefined;
}

export interface Listeners {
  /** Listens on the port (0: a free one) and host, and on the HTTPS port when set. */
  listen(port: number, host: string): Promise<Addresses>;
  /** Stops accepting connections, lets requests in flight finish, then closes idle ones. */
  close(): Promise<void>;
}

/** `127.0.0.1` for an address that listens everywhere; IPv6 in brackets. */
function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function listenOn(s: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, host, () => {
      s.off('error', reject);
      resolve((s.address() as AddressInfo).port);
    });
  });
}

/** Answers malformed requests and `Expect` headers before they reach the app. */
function answerEarly(s: Server): Server {
  s.on('clientError', answerClientError);
  s.on('checkExpectation', answerExpectation);
  return s;
}

/**
 * The ports of one server: HTTP (which is also the forward proxy, with CONNECT for the TLS hosts
 * when HTTPS is on) and HTTPS, sharing one pool of connections.
 */
export function createListeners({
  options,
  app,
  sessions,
  certificates,
  hosts,
  errorSuccess,
  fleet,
}: ListenersInput): Listeners {
  const { Request, Response } = serverClasses();
  const serverOptions: ServerOptions = {
    // Requests and responses born with Express's helpers (http/app.ts).
    IncomingMessage: Request,
    ServerResponse: Response,
    maxHeaderSize: options.maxHeaderSize,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeout: Math.min(options.headersTimeoutMs, options.requestTimeoutMs),
    requestTimeout: options.requestTimeoutMs,
    // How often Node checks those two timeouts.
    connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs),
  };
  // The requests inside the proxy's CONNECT tunnels (their TLS ended in this process) are served
  // by this server, which never listens.
  const tunnels = answerEarly(createServer(serverOptions));
  const proxy = createForwardProxy(app, tunnels, {
    hosts,
    sessions,
    certificates,
    challenge: options.proxyAuth === 'challenge',
    errorSuccess,
    fleet,
  });
  let http: Server | undefined;
  let https: Server | undefined;

  const closeServer = (s: Server | undefined): Promise<void> => {
    if (!s) return Promise.resolve();
    return new Promise((resolve) => {
      // A keep-alive connection turns idle once its request in flight is answered: sweep until
      // none is left, so a client's open connection never holds the shutdown up.
      const sweep = setInterval(() => {
        s.closeIdleConnections();
        tunnels.closeIdleConnections();
      }, 20).unref();
      const force = setTimeout(() => {
        s.closeAllConnections();
        tunnels.closeAllConnections();
      }, options.shutdownDrainMs).unref();
      s.close(() => {
        clearInterval(sweep);
        clearTimeout(force);
        resolve();
      });
      s.closeIdleConnections();
      tunnels.closeIdleConnections();
    });
  };

  return {
    async listen(port, host) {
      const s = answerEarly(createServer(serverOptions, proxy.requests));
      // Not Node's maxConnections: it refuses the newcomer even when silent sockets hold every
      // slot. One pool for both ports: a flood on one cannot lock clients out of the other.
      const guard = new ConnectionGuard(options);
      guard.watch(s);
      s.on('connect', certificates === undefined ? answerConnect : proxy.connect);
      const bound = await listenOn(s, port, host);
      http = s;
      // Never listening itself, it still tracks its connections (timeouts, closing) from here on.
      tunnels.emit('listening');
      const url = `http://${hostForUrl(host)}:${bound}`;
      if (certificates === undefined || options.httpsPort === undefined) return { url, httpsUrl: undefined };
      const { createServer: createHttpsServer } = require('node:https') as typeof import('node:https');
      const t = answerEarly(
        createHttpsServer(
          {
            ...serverOptions,
            ...certificates.serverOptions(),
            // A connection that has not finished its TLS handshake is closed as one that has
            // not sent its headers would be (Node's default is 120 s).
            handshakeTimeout: options.headersTimeoutMs,
          },
          app,
        ),
      );
      guard.watchTls(t);
      try {
        const boundTls = await listenOn(t, options.httpsPort, host);
        https = t;
        return { url, httpsUrl: `https://${hostForUrl(host)}:${boundTls}` };
      } catch (error) {
        http = undefined;
        await closeServer(s);
        throw error;
      }
    },

    async close() {
      const s = http;
      const t = https;
      http = undefined;
      https = undefined;
      await Promise.all([closeServer(s), closeServer(t)]);
      tunnels.close(() => undefined);
    },
  };
}
