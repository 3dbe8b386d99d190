import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ApiError } from '../errors.js';
import { packagePath } from '../package-root.js';

/**
 * The pages' static files, all from the build (`dist/ui/`, made by `scripts/build-ui.mjs`): the
 * inspector's and the docs page's own, and the Swagger UI files the docs page loads (copied from
 * the `swagger-ui-dist` package at build time, which an installed fake does not depend on). Nothing
 * is read until a page is first asked for, so a fake nobody opens in a browser pays nothing.
 * They hold no data (every datum comes through the admin API, with its token), so they need none.
 */

/** Where the UI build puts its files. */
export const UI_DIR = packagePath('dist/ui');

/** Where the UI build puts Swagger UI's files (with its LICENSE and NOTICE). */
export const SWAGGER_UI_DIR = packagePath('dist/ui/swagger-ui');

/**
 * The pages' Content-Security-Policy. They show what any client sent (journal bodies, documents)
 * and hold the admin token, so only their own files may run as scripts: script files from this
 * fake, an inline script only by its hash (`inlineScripts`), no plugins, no `<base>` to re-aim
 * relative URLs, no framing by another site's page. They talk only to the fake that served them
 * (the admin API, the spec, "try it"). Inline styles stay allowed: Swagger UI and the pages set
 * them, and a style runs no code.
 */
export function contentSecurityPolicy(inlineScripts: readonly string[] = []): string {
  const hashes = inlineScripts.map(
    (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`,
  );
  return [
    "default-src 'self'",
    ["script-src 'self'", ...hashes].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Headers of every page: the policy, never framed by another site's page (they drive the admin
 * API). `nosniff` is on every answer already (`app.ts`).
 */
export function pageHeaders(inlineScripts: readonly string[] = []): Record<string, string> {
  return {
    'x-frame-options': 'DENY',
    'content-security-policy': contentSecurityPolicy(inlineScripts),
  };
}

/** The headers of a page with no inline script (the inspector, the docs page). */
export const PAGE_HEADERS = pageHeaders();

/** Only plain file names below the folder: no dot files, no `..`, no backslashes. */
const SAFE_FILE = /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/**
 * Sends `file` (relative, `/`-separated) from `dir`; a name that is not a plain file name, or a
 * file that is not there, answers the vendor's 404. HTML is never cached (it names the assets),
 * assets for a short while.
 */
export function sendStatic(req: Request, res: Response, dir: string, file: string): void {
  const next = req.next;
  const notFound = () => next?.(new ApiError('routeNotFound', `Route not found: no file "${file}"`));
  if (!SAFE_FILE.test(file) || file.split('/').some((part) => part === '..')) {
    notFound();
    return;
  }
  const html = file.endsWith('.html');
  res.sendFile(
    file,
    {
      root: dir,
      dotfiles: 'deny',
      etag: false,
      lastModified: !html,
      cacheControl: true,
      maxAge: html ? 0 : 300_000,
      headers: html ? PAGE_HEADERS : {},
    },
    (error) => {
      if (!error) return;
      if (res.headersSent) return;
      notFound();
    },
  );
}

/** Does the client (a browser's navigation) want HTML? */
export function wantsHtml(req: Request): boolean {
  const accept = req.headers.accept;
  return accept?.includes('text/html') === true;
}

const INSPECTOR = '/__admin/ui';
const INSPECTOR_ASSETS = '/__admin/ui/';

/** Is this instance-relative path one of the inspector's (page or asset)? */
export const isInspectorPath = (path: string): boolean =>
  path === INSPECTOR || path.startsWith(INSPECTOR_ASSETS);

/** Admin paths a browser opens by hand (`/__admin`, `/__admin/journal`), sent to the inspector. */
const INSPECTOR_ALIASES = new Set(['/__admin', '/__admin/', '/__admin/journal', '/__admin/ui/']);

/**
 * The inspector of the instance the request is addressed to: `/__admin/ui` (the page) and
 * `/__admin/ui/assets/...`, relative to the root or to a session (`basePath`). The page finds its
 * admin API from its own URL. A browser opening `/__admin` or `/__admin/journal` is sent to it.
 */
export const inspector = {
  serve(req: Request, res: Response, path: string): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      req.next?.(new ApiError('methodNotAllowed'));
      return;
    }
    if (path === INSPECTOR) sendStatic(req, res, UI_DIR, 'inspector.html');
    else sendStatic(req, res, UI_DIR, path.slice(INSPECTOR_ASSETS.length));
  },
  /** A browser's visit to an admin path it opened by hand: answered with a redirect to the page. */
  redirect(req: Request, res: Response, path: string, basePath: string): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (!INSPECTOR_ALIASES.has(path) || !wantsHtml(req)) return false;
    res.redirect(302, `${basePath}${INSPECTOR}`);
    return true;
  },
};
