/**
 * The inspector's access to the admin API of the instance it was opened from: the root
 * (`/__admin/ui`) or a session (`/sessions/{id}/__admin/ui`). The admin token, when the fake
 * has one, is asked for once and kept in sessionStorage; it travels as the bearer header only.
 */

const TOKEN_KEY = 'passportal-fake-admin-token';

/** `/sessions/{id}` or empty: the instance prefix, taken from the page's own URL. */
export const basePath: string = location.pathname.replace(/\/__admin\/ui\/?$/, '');

/** The session id when the page is a session's, else undefined. */
export const sessionId: string | undefined = /^\/sessions\/([^/]+)$/.exec(basePath)?.[1];

export const adminUrl = (path: string): string => `${basePath}/__admin${path}`;

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

/** One `{location, message}` of a refusal. */
export interface Problem {
  location: string;
  message: string;
}

/** A refusal of the admin API, in the vendor's error shape. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
  }
}

/** Listeners told when the admin API asks for a token (401). */
const unauthorizedListeners = new Set<() => void>();
export const onUnauthorized = (listener: () => void): (() => void) => {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
};

/**
 * Calls the admin API; JSON in and out; a refusal throws AdminError with its problems. A `poll`
 * (the live journal's repeated read) says so in `x-fake-inspector`, so the fake logs it at debug.
 */
export async function admin<T>(method: string, path: string, body?: unknown, poll = false): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (poll) headers['x-fake-inspector'] = 'poll';
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(adminUrl(path), {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    credentials: 'omit',
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = text;
  }
  if (!res.ok) {
    const error = (json ?? {}) as { message?: string; errors?: Problem[] };
    if (res.status === 401) for (const listener of unauthorizedListeners) listener();
    throw new AdminError(res.status, error.message ?? `HTTP ${res.status}`, error.errors ?? []);
  }
  return json as T;
}

/** Lower-case hex HMAC-SHA256(secret, content) with WebCrypto; undefined outside a secure context. */
export async function hmacHex(secret: string, content: string): Promise<string | undefined> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return undefined;
  const encoder = new TextEncoder();
  const key = await subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const signature = new Uint8Array(await subtle.sign('HMAC', key, encoder.encode(content)));
  return Array.from(signature, (b) => b.toString(16).padStart(2, '0')).join('');
}
