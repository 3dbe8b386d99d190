import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../errors.js';

export interface AdminGuardOptions {
  /** Origins (comma-separated) whose pages may call the admin API; absent: none but the fake's own. */
  adminOrigins: string | undefined;
  /** Host names (comma-separated) the admin API answers to besides loopback, IP literals and this machine's name. */
  adminHosts: string | undefined;
}

const list = (value: string | undefined): Set<string> =>
  new Set(
    (value ?? '')
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean),
  );

/** The host name of a `Host` header, lower-cased, without port or IPv6 brackets. */
export function hostNameOf(host: string | undefined): string {
  const value = (host ?? '').trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']'));
  const colon = value.lastIndexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}

/**
 * Keeps web pages away from the admin API, which reads and rewrites every state, its API key
 * secrets and its journal's tokens:
 *
 * - the `Host` must be one the fake serves: an IP literal, `localhost` or `*.localhost`, this
 *   machine's name, or a name in `adminHosts`. A page on another site that rebinds its own DNS
 *   name to 127.0.0.1 reaches the fake under that name, and is refused;
 * - a request that carries an `Origin` (a browser's, from a page) must come from the fake's own
 *   pages (same origin, such as the inspector) or an origin in `adminOrigins`; otherwise it is
 *   refused before it does anything (a cross-site form post needs no preflight).
 *
 * Test clients and tools send no `Origin` and use the address they started the fake on. The
 * health check is left open to every host: container health checks call it by service name.
 */
export function createAdminGuard(options: AdminGuardOptions): RequestHandler {
  const check = createAdminGuardCheck(options);
  return (req, res, next) => {
    const refusal = check(req);
    const origin = req.headers.origin;
    if (refusal !== undefined && origin !== undefined && refusal.errors?.[0]?.location === 'header.origin') {
      // The refusal alone may be read by the refused page: its message says which option allows
      // the origin, where the browser would otherwise show only a CORS error. It opens nothing:
      // no credentials, no preflight, and every other answer to that origin stays unreadable.
      res.setHeader('access-control-allow-origin', origin);
      res.vary('Origin');
    }
    next(refusal);
  };
}

/**
 * The guard's test as a function: the error a request would be refused with, or undefined when
 * it passes. The landing page asks it too before it shows key secrets.
 */
export function createAdminGuardCheck(options: AdminGuardOptions): (req: Request) => ApiError | undefined {
  const origins = list(options.adminOrigins);
  const hosts = list(options.adminHosts);
  hosts.add(hostname().toLowerCase());
  const servedHost = (name: string): boolean =>
    isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost') || hosts.has(name);
  return (req) => {
    const name = hostNameOf(req.headers.host);
    if (!servedHost(name)) {
      return new ApiError(
        'adminForbidden',
        `Forbidden: the admin API does not answer to host "${name}" (allow it with --admin-hosts or ADMIN_HOSTS)`,
        [{ location: 'header.host', message: 'is not a host the fake serves' }],
      );
    }
    const origin = req.headers.origin;
    if (
      origin !== undefined &&
      origin !== `${req.protocol}://${req.headers.host}` &&
      !origins.has(origin.toLowerCase())
    ) {
      return new ApiError(
        'adminForbidden',
        `Forbidden: pages from ${origin} may not call the admin API (allow the origin with --admin-origins or ADMIN_ORIGINS)`,
        [{ location: 'header.origin', message: 'is not an allowed origin' }],
      );
    }
    return undefined;
  };
}
