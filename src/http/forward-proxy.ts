import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import type { TLSSocket as TlsSocketType } from 'node:tls';
import { ApiError, type ErrorSuccess, renderError } from '../errors.js';
import type { Fleet } from '../fleet/fleet.js';
import { forwardTo } from '../fleet/forward.js';
import { carryConnect, proxyHop } from '../fleet/proxy.js';
import { type SessionRegistry, sessionPath } from '../harness/sessions/sessions.js';
import type { RequestVia } from '../harness/verdicts/journal.js';
import type { ServerCertificates } from '../tls/server-certificates.js';
import type { TlsHosts } from '../tls/tls-hosts.js';
import { rawAnswer } from './client-error.js';

// node:tls loads with the first CONNECT tunnel (HTTPS on): a start without HTTPS does not pay for it.
const require = createRequire(import.meta.url);

/**
 * The fake as a forward proxy for its own hosts only (`tlsHosts`), so a client whose URLs are
 * pinned to the vendor's hosts reaches it with `HTTPS_PROXY=http://127.0.0.1:4010`:
 *
 * - `CONNECT host:443` (with HTTPS on) is tunnelled into the fake's own TLS, terminated in this
 *   process with a certificate for that host; the requests inside are served by the same app;
 * - an absolute-form request (`GET https://us-clover.passportalmsp.com/api/v2/...`, as axios
 *   sends through a proxy) is served directly;
 * - any other host is refused (403 `proxyHostRefused`). Nothing here opens a connection: the
 *   fake never reaches another host.
 *
 * Proxy credentials route to a session: the proxy user is a session id
 * (`HTTPS_PROXY=http://<sessionId>@127.0.0.1:4010`), and every request through that connection
 * is served as if its path had the session's prefix. An unknown id answers 407
 * `proxySessionNotFound`; the user `root` names the root.
 *
 * A request without credentials is served by the root, unless `challenge` (`--proxy-auth
 * challenge`): then it answers 407 with `Proxy-Authenticate: Basic`. .NET's HttpClient (so
 * PowerShell's Invoke-RestMethod, with HTTPS_PROXY's user info or -ProxyCredential) sends proxy
 * credentials only in answer to that challenge, while curl, Python's requests and Node's agents
 * send them at once and a client with none cannot answer it: the proxy cannot tell the two
 * apart from the first request, so the challenge is a start-up choice, off by default.
 */

export interface ProxyRoute {
  via: Extract<RequestVia, 'proxy' | 'proxy-session'>;
  /** The session the proxy credentials named. */
  sessionId: string | undefined;
  /** The scheme of an absolute-form request's URL (a tunnel's requests arrive on TLS: its socket tells). */
  scheme?: 'http' | 'https';
}

const ROUTE = Symbol('passportal-docs-fake.proxyRoute');
type Marked = { [ROUTE]?: ProxyRoute };

/** How a request reached the fake through the proxy, or undefined for a direct request. */
export function proxyRouteOf(req: IncomingMessage): ProxyRoute | undefined {
  return (req as Marked)[ROUTE] ?? (req.socket as Marked | null)?.[ROUTE];
}

export interface ForwardProxyOptions {
  hosts: TlsHosts;
  sessions: SessionRegistry;
  /** The server's TLS certificates; undefined when HTTPS is off (CONNECT is then refused with 405 elsewhere). */
  certificates: ServerCertificates | undefined;
  /** Answer a request without proxy credentials with 407 (`--proxy-auth challenge`) instead of serving the root. */
  challenge?: boolean;
  errorSuccess: () => ErrorSuccess;
  /** The fleet this server is a replica of: a proxy user another replica owns is carried to it (fleet/proxy.ts). */
  fleet?: Fleet;
}

/** The session id a `Proxy-Authorization: Basic` header names (its user), if any. */
function proxyUser(header: string | undefined): string | undefined {
  const match = /^Basic[ \t]+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  try {
    return decodeURIComponent(user) || undefined;
  } catch {
    return user || undefined;
  }
}

const refusedHost = (host: string) =>
  new ApiError(
    'proxyHostRefused',
    `Forbidden: "${host}" is not a host this fake serves; it intercepts only --tls-hosts (TLS_HOSTS) and never connects to other hosts`,
    [{ location: 'header.host', message: 'is not in --tls-hosts' }],
  );

const unknownSession = (id: string) =>
  new ApiError(
    'proxySessionNotFound',
    `Proxy session not found: "${id}" (the proxy user must be the id of a live session; deleted, idle too long, or never created)`,
    [{ location: 'header.proxy-authorization', message: 'names no live session' }],
  );

const credentialsRequired = () =>
  new ApiError(
    'proxyCredentialsRequired',
    "Proxy credentials required: the proxy user is a session id, or 'root' for the root (this fake runs with --proxy-auth challenge)",
    [{ location: 'header.proxy-authorization', message: 'is missing' }],
  );

/** The proxy user that names the root instance. */
const ROOT_USER = 'root';

const PROXY_AUTHENTICATE = 'Basic realm="passportal-docs-fake session id"';

/** `host:port` of a CONNECT request, IPv6 in brackets. */
function connectTarget(target: string | undefined): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target ?? '');
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { host: match[1].replace(/^\[|\]$/g, '').toLowerCase(), port: Number(match[2]) };
}

export interface ForwardProxy {
  /** The HTTP port's request listener: absolute-form requests checked and rewritten, then the app. */
  requests: RequestListener;
  /** The HTTP port's CONNECT listener (HTTPS on). */
  connect: (req: IncomingMessage, socket: Socket, head: Buffer) => void;
}

/**
 * Builds the proxy around `app`. `tunnels` is the HTTP server (not listening) that serves the
 * requests arriving inside CONNECT tunnels, once their TLS is terminated here.
 */
export function createForwardProxy(
  app: RequestListener,
  tunnels: Server,
  options: ForwardProxyOptions,
): ForwardProxy {
  const { hosts, sessions, certificates } = options;

  /** The route of proxy credentials: a session (checked to exist) or the root. */
  function routeFor(header: string | undefined): ProxyRoute | ApiError {
    const id = proxyUser(header);
    if (id === undefined)
      return options.challenge ? credentialsRequired() : { via: 'proxy', sessionId: undefined };
    if (id === ROOT_USER) return { via: 'proxy', sessionId: undefined };
    if (sessions.use(id) === undefined) return unknownSession(id);
    return { via: 'proxy-session', sessionId: id };
  }

  /** Serves `req` as routed: a session's prefix put before its path. */
  function serve(req: IncomingMessage, res: ServerResponse, route: ProxyRoute, path: string): void {
    (req as Marked)[ROUTE] = route;
    req.url =
      route.sessionId === undefined || path.startsWith('/sessions/')
        ? path
        : sessionPath(route.sessionId) + path;
    app(req, res);
  }

  function answer(req: IncomingMessage, res: ServerResponse, error: ApiError): void {
    const answer = renderError(error, randomUUID(), options.errorSuccess());
    res.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      // As on every answer of the app (app.ts): a browser never reads the JSON as another type.
      'x-content-type-options': 'nosniff',
      'content-length': answer.bytes,
      ...(error.status === 407 ? { 'proxy-authenticate': PROXY_AUTHENTICATE } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : answer.text);
  }

  tunnels.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const route = proxyRouteOf(req) ?? { via: 'proxy', sessionId: undefined };
    serve(req, res, route, req.url ?? '/');
  });

  const requests: RequestListener = (req, res) => {
    const target = req.url ?? '/';
    if (target.startsWith('/') || target === '*') {
      app(req, res);
      return;
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      answer(
        req,
        res,
        new ApiError('invalidBody', 'malformed HTTP request: the request target is not a URL'),
      );
      return;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !hosts.matches(url.hostname)) {
      answer(req, res, refusedHost(url.host));
      return;
    }
    if (options.fleet !== undefined) {
      const hop = proxyHop(options.fleet, req, proxyUser(req.headers['proxy-authorization']));
      if (hop.to === 'refused') {
        answer(req, res, hop.error);
        return;
      }
      if (hop.to === 'owner') {
        forwardTo(options.fleet, hop.peer, req, res, (error) => answer(req, res, error));
        return;
      }
    }
    const route = routeFor(req.headers['proxy-authorization']);
    if (route instanceof ApiError) {
      answer(req, res, route);
      return;
    }
    delete req.headers['proxy-authorization'];
    delete req.headers['proxy-connection'];
    serve(
      req,
      res,
      { ...route, scheme: url.protocol === 'https:' ? 'https' : 'http' },
      url.pathname + url.search,
    );
  };

  const connect = (req: IncomingMessage, socket: Socket, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const target = connectTarget(req.url);
    if (target === undefined || !hosts.matches(target.host) || certificates === undefined) {
      socket.end(rawAnswer(refusedHost(req.url ?? ''), false));
      return;
    }
    if (target.port !== 443) {
      const error = new ApiError(
        'proxyHostRefused',
        `Forbidden: the proxy tunnels port 443 only (asked for ${req.url})`,
      );
      socket.end(rawAnswer(error, false));
      return;
    }
    if (options.fleet !== undefined) {
      const hop = proxyHop(options.fleet, req, proxyUser(req.headers['proxy-authorization']));
      if (hop.to === 'refused') {
        socket.end(rawAnswer(hop.error, false));
        return;
      }
      if (hop.to === 'owner') {
        carryConnect(options.fleet, hop.peer, req, socket, head, (error) =>
          socket.end(rawAnswer(error, false, 'retry-after: 1\r\n')),
        );
        return;
      }
    }
    const route = routeFor(req.headers['proxy-authorization']);
    if (route instanceof ApiError) {
      socket.end(rawAnswer(route, false, `proxy-authenticate: ${PROXY_AUTHENTICATE}\r\n`));
      return;
    }
    certificates.contextFor(target.host).then(
      (secureContext) => {
        if (socket.destroyed) return;
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) socket.unshift(head);
        const { TLSSocket } = require('node:tls') as typeof import('node:tls');
        const tls: TlsSocketType = new TLSSocket(socket, {
          isServer: true,
          secureContext,
          SNICallback: certificates.serverOptions().SNICallback,
          ALPNProtocols: ['http/1.1'],
        });
        (tls as Marked)[ROUTE] = route;
        tls.on('error', () => tls.destroy());
        tunnels.emit('connection', tls);
      },
      () => socket.destroy(),
    );
  };

  return { requests, connect };
}
