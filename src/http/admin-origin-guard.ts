import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { Request, RequestHandler, Response } from 'express';
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
      // no credentials, and every other answer to that origin stays unreadable (its preflight is
      // answered by `createRefusalPreflight`, so a JSON POST's refusal is readable too).
      res.setHeader('access-control-allow-origin', origin);
      res.vary('Origin');
    }
    next(refusal);
  };
}

/** The methods of the admin API, named in the answer to a refused page's preflight. */
const ADMIN_METHODS = 'GET, HEAD, PUT, PATCH, POST, DELETE';

/**
 * The preflight (`OPTIONS` with `Access-Control-Request-Method`) of a page whose origin the guard
 * refuses, answered so the browser sends the real request and the page can read its 403, which
 * says to set `ADMIN_ORIGINS`: without it a JSON POST or a call with a token shows only "Failed
 * to fetch". It opens nothing: the real request is refused by the guard before it does anything,
 * and no credentials are allowed. Answers only a refusal by origin (a foreign Host gets none, as
 * its 403 gets no CORS header); tells whether it answered.
 */
export function createRefusalPreflight(options: AdminGuardOptions): (req: Request, res: Response) => boolean {
  const check = createAdminGuardCheck(options);
  return (req, res) => {
    const origin = req.headers.origin;
    const requested = req.headers['access-control-request-method'];
    if (req.method !== 'OPTIONS' || origin === undefined || requested === undefined) return false;
    if (check(req)?.errors?.[0]?.location !== 'header.origin') return false;
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('access-control-allow-methods', ADMIN_METHODS);
    const headers = req.headers['access-control-request-headers'];
    // Whatever headers the page asks for: the request they go with is refused all the same.
    if (headers !== undefined) res.setHeader('access-control-allow-headers', headers);
    res.setHeader('access-control-max-age', '600');
    res.vary('Origin');
    res.status(204).end();
    return true;
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
