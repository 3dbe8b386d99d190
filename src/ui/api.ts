/**
 * The inspector's access to the admin API of the instance it was opened from: the root
 * (`/__admin/ui`) or a session (`/sessions/{id}/__admin/ui`). The admin token, when the fake
 * has one, is asked for once and kept in sessionStorage; it travels as the bearer header only.
 */

import { type AdminClient, AdminError, createAdminClient } from '../client/admin-client.js';
import { signContent } from './signing.js';

const TOKEN_KEY = 'passportal-fake-admin-token';

/** `/sessions/{id}` or empty: the instance prefix, taken from the page's own URL. */
export const basePath: string = location.pathname.replace(/\/__admin\/ui\/?$/, '');

/** The session id when the page is a session's, else undefined. */
export const sessionId: string | undefined = /^\/sessions\/([^/]+)$/.exec(basePath)?.[1];

export function getToken(): string | undefined {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function setToken(token: string | undefined): void {
  try {
    if (token === undefined) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Storage refused (private mode): the token is asked for again on the next load.
  }
}

/** Listeners told when the admin API asks for a token (401). */
const unauthorizedListeners = new Set<() => void>();
export const onUnauthorized = (listener: () => void): (() => void) => {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
};

/**
 * The admin client's `fetch` for this page: the token (as it is now) as the bearer header, never
 * a cookie, and a 401 told to the listeners. `poll` marks the live journal's repeated read in
 * `x-fake-inspector`, so the fake logs it at debug.
 */
function inspectorFetch(poll: boolean): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('accept', 'application/json');
    if (poll) headers.set('x-fake-inspector', 'poll');
    const token = getToken();
    if (token) headers.set('authorization', `Bearer ${token}`);
    const res = await fetch(input, { ...init, headers, credentials: 'omit' });
    if (res.status === 401) for (const listener of unauthorizedListeners) listener();
    return res;
  };
}

/** The typed admin client of the instance this page was opened from; refusals are `AdminError`s. */
export const admin: AdminClient = createAdminClient(basePath, { fetch: inspectorFetch(false) });

/** The same, for the live journal's repeated read. */
export const polling: AdminClient = createAdminClient(basePath, { fetch: inspectorFetch(true) });

export { AdminError };

/** Lower-case hex HMAC-SHA256(secret, content) with WebCrypto; undefined outside a secure context. */
export async function hmacHex(secret: string, content: string): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) return undefined;
  return signContent(secret, content);
}
