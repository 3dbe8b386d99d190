import type { Request, Response } from 'express';
import { computeHash } from '../domain/tokens.js';
import { ApiError } from '../errors.js';
import type { Instance } from '../harness/instance/instance.js';
import { PACKAGE_VERSION } from '../package-root.js';
import { pageHeaders, SWAGGER_UI_DIR, sendStatic, UI_DIR, wantsHtml } from './ui-assets.js';

/**
 * What a person opening the fake in a browser sees, served at the root before any instance (so
 * never journaled, never a violation):
 *
 *   /                 a landing page for browsers (`Accept: text/html`), a JSON summary for others
 *   /favicon.ico      the fake's icon
 *   /docs             the spec in Swagger UI, "try it" aimed at this fake
 *   /docs/...         the docs page's script and Swagger UI's own files (dist/ui/swagger-ui)
 *   /openapi.yaml     shown as text to a browser instead of downloaded (see `app.ts`)
 *   /passportal-signing.js  the signing helper a page imports (`ui/signing.ts`, docs/frontend.md)
 */

export interface FrontPagesContext {
  root: Instance;
  /** Where the root's fixtures came from: a path, `inline` or `default`. */
  fixtureSource: string;
  /**
   * Would the admin API answer this request (served `Host`, no foreign `Origin`, the admin token
   * when one is set)? Only then does the landing page show the keys' secrets.
   */
  mayReadSecrets: (req: Request) => boolean;
}

const NAME = 'Passportal Documents API fake';
/** The files of Swagger UI the docs page loads (scripts/build-ui.mjs copies these). */
const SWAGGER_FILES = /^(?:swagger-ui\.css|swagger-ui-bundle\.js|favicon-(?:16x16|32x32)\.png)$/;
const SAMPLE_CONTENT = 'api-content-hash';
/** Where the signing helper module is served. */
export const SIGNING_MODULE = '/passportal-signing.js';

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e8c"/><path d="M9 7h9a7 7 0 0 1 0 14h-4v5H9z M14 12v4h4a2 2 0 0 0 0-4z" fill="#fff"/></svg>`;

/** The landing page's one inline script, allowed by its hash in the page's policy. */
const LANDING_SCRIPT = "document.getElementById('base').textContent = location.origin;";
/** Made when the landing page is first asked for: a start hashes nothing it may never serve. */
let landingHeaders: Record<string, string> | undefined;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function summary(context: FrontPagesContext) {
  const state = context.root.fake.snapshot();
  return {
    name: NAME,
    version: PACKAGE_VERSION,
    fixtures: context.fixtureSource,
    organizations: state.organizations.length,
    documents: state.documents.length,
    apiKeys: state.apiKeys,
  };
}

const STYLE = `
:root{color-scheme:light;--ink:#1d2430;--muted:#5b6576;--line:#dde2ea;--accent:#1f4e8c;--bg:#f6f8fb}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
header{background:#fff;border-bottom:1px solid var(--line);padding:18px 32px;display:flex;align-items:baseline;gap:12px}
header h1{margin:0;font-size:22px}
.badge{font-size:12px;color:var(--muted);border:1px solid var(--line);border-radius:10px;padding:1px 8px}
main{max-width:980px;margin:0 auto;padding:24px 32px}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px 20px;margin-bottom:18px}
h2{font-size:16px;margin:0 0 10px}
.links{display:flex;gap:12px;flex-wrap:wrap}
.links a{display:block;flex:1 1 200px;padding:12px 14px;border:1px solid var(--line);border-radius:8px;text-decoration:none;color:var(--ink)}
.links a:hover{border-color:var(--accent)}
.links strong{display:block;color:var(--accent)}
.links span{color:var(--muted);font-size:13px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600}
code,pre{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
td code{word-break:break-all}
pre{background:#f1f4f8;border:1px solid var(--line);border-radius:6px;padding:10px 12px;overflow:auto;white-space:pre-wrap;word-break:break-all}
p{margin:6px 0}
.muted{color:var(--muted)}
`;

/** Where the secrets are for someone the landing page shows key IDs only. */
const SECRETS_POINTER = `<p class="muted">Secrets are shown here only to a request the admin API would answer (this
fake's own address, no other site's page, and the admin token when one is set). Find them in the
<a href="__admin/ui#keys">inspector's API keys view</a> or in <code>GET /__admin/state</code>.</p>`;

function landingHtml(context: FrontPagesContext, withSecrets: boolean): string {
  const s = summary(context);
  const keys = s.apiKeys.slice(0, 20);
  const hashOf = (secret: string) => (withSecrets ? computeHash(secret, SAMPLE_CONTENT) : '');
  const rows = keys
    .map(
      (k) =>
        `<tr><td>${k.organizationId}</td><td><code>${escapeHtml(k.keyId)}</code></td>${
          withSecrets
            ? `<td><code>${escapeHtml(k.secret)}</code></td><td><code>${hashOf(k.secret)}</code></td>`
            : ''
        }</tr>`,
    )
    .join('');
  const first = keys[0];
  const curl = first
    ? `curl -s -X POST "$BASE/api/v2/auth/client_token" \\
  -H 'content-type: application/json' \\
  -H 'x-key: ${escapeHtml(first.keyId)}' \\
  -H 'x-hash: ${withSecrets ? hashOf(first.secret) : '&lt;HMAC-SHA256(secret, content) in hex&gt;'}' \\
  -d '{"scope":"docs_api","content":"${SAMPLE_CONTENT}"}'`
    : '';
  const keyHead = withSecrets
    ? `<p class="muted">The <code>x-hash</code> column is HMAC-SHA256(secret, <code>${SAMPLE_CONTENT}</code>) in lower-case hex, for a body of <code>{"scope":"docs_api","content":"${SAMPLE_CONTENT}"}</code>.</p>`
    : SECRETS_POINTER;
  const columns = withSecrets ? '<th>secret</th><th><code>x-hash</code></th>' : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${NAME}</title><link rel="icon" href="/favicon.ico" type="image/svg+xml"><style>${STYLE}</style></head>
<body><header><h1>${NAME}</h1><span class="badge">v${escapeHtml(s.version)}</span></header>
<main>
<section><p>A faithful fake of the Passportal Documents API v2 for contract testing. Point your client here:
every request is checked against the contract and kept in the journal.</p>
<p class="muted">Fixture set: <strong id="fixtures">${escapeHtml(s.fixtures)}</strong> &middot;
${s.organizations} organizations &middot; ${s.documents} documents</p></section>
<section><div class="links">
<a href="docs"><strong>API docs</strong><span>The contract, with "try it" against this fake</span></a>
<a href="__admin/ui"><strong>Inspector</strong><span>Journal, violations, state, faults, clock, sessions</span></a>
<a href="openapi.yaml"><strong>OpenAPI spec</strong><span>openapi.yaml &middot; <code>openapi.json</code></span></a>
</div></section>
<section><h2>API keys</h2>
${keyHead}
<table id="keys"><thead><tr><th>org</th><th>key ID (<code>x-key</code>)</th>${columns}</tr></thead><tbody>${rows}</tbody></table>
${s.apiKeys.length > keys.length ? `<p class="muted">${s.apiKeys.length - keys.length} more in the inspector.</p>` : ''}
</section>
${curl ? `<section><h2>A token</h2><pre>BASE=<span id="base"></span>\n${curl}</pre></section>` : ''}
</main>
<script>${LANDING_SCRIPT}</script>
</body></html>`;
}

/** Handles the front pages; answers false for every other request. */
export function createFrontPages(context: FrontPagesContext): (req: Request, res: Response) => boolean {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = req.path;
    if (path === '/') {
      if (wantsHtml(req)) {
        res.setHeader('cache-control', 'no-store');
        landingHeaders ??= pageHeaders([LANDING_SCRIPT]);
        res.set(landingHeaders);
        res.type('html').send(landingHtml(context, context.mayReadSecrets(req)));
      } else {
        const { apiKeys, ...rest } = summary(context);
        res.json({
          ...rest,
          links: {
            docs: '/docs',
            inspector: '/__admin/ui',
            openapi: '/openapi.yaml',
            openapiJson: '/openapi.json',
            health: '/__admin/health',
          },
        });
      }
      return true;
    }
    if (path === '/favicon.ico') {
      res.setHeader('cache-control', 'public, max-age=86400');
      res.type('image/svg+xml').send(ICON);
      return true;
    }
    if (path === SIGNING_MODULE) {
      // An ES module any page may import (the vendor API's CORS covers it): no data, no secret.
      sendStatic(req, res, UI_DIR, 'assets/passportal-signing.js');
      return true;
    }
    if (path === '/docs') {
      sendStatic(req, res, UI_DIR, 'docs.html');
      return true;
    }
    if (path === '/docs/') {
      res.redirect(302, '/docs');
      return true;
    }
    if (path.startsWith('/docs/swagger-ui/')) {
      const file = path.slice('/docs/swagger-ui/'.length);
      // Only what the docs page loads (not the licence files copied beside them).
      if (SWAGGER_FILES.test(file)) sendStatic(req, res, SWAGGER_UI_DIR, file);
      else req.next?.(new ApiError('routeNotFound', `Route not found: no file "${file}"`));
      return true;
    }
    if (path.startsWith('/docs/')) {
      sendStatic(req, res, UI_DIR, path.slice('/docs/'.length));
      return true;
    }
    return false;
  };
}
