/**
 * The vendor's token signature for a web page, with the browser's WebCrypto: `x-hash` is the
 * HMAC-SHA256 of the body's `content`, keyed with the key's secret, in lower-case hex (or base64,
 * for a fake started with `--hash-encoding base64`). Served by the fake as an ES module at
 * `/passportal-signing.js` (docs/frontend.md), so a page imports it with no build step:
 *
 *   import { requestToken } from 'http://127.0.0.1:4010/passportal-signing.js';
 *   const { access_token } = await requestToken('http://127.0.0.1:4010', keyId, secret);
 *
 * A bundled page or a Node backend imports it, with its declarations, as
 * `passportal-docs-fake/signing` (the package's export of the same built file).
 *
 * WebCrypto's `crypto.subtle` exists only in a secure context (https, or http on localhost and
 * 127.0.0.1): on a LAN address such as http://192.168.1.20:5173 it is missing, and these
 * functions throw an error that says what to do instead.
 */

export type SignatureEncoding = 'hex' | 'base64';

/** What the token call answers. */
export interface TokenAnswer {
  success: boolean;
  access_token: string;
  refresh_token: string;
  expiry_time: number;
}

const INSECURE =
  'crypto.subtle is missing: WebCrypto works only in a secure context (https, or http://localhost and http://127.0.0.1). ' +
  'Open the page at http://localhost:<port> (an SSH or dev-server port forward works from another machine), serve it over https, ' +
  "or compute x-hash in the app's backend";

function subtleCrypto(): SubtleCrypto {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error(INSECURE);
  return subtle;
}

/** `x-hash` for `content`: HMAC-SHA256 keyed with `secret`, lower-case hex unless asked for base64. */
export async function signContent(
  secret: string,
  content: string,
  encoding: SignatureEncoding = 'hex',
): Promise<string> {
  const subtle = subtleCrypto();
  const encoder = new TextEncoder();
  const key = await subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const mac = new Uint8Array(await subtle.sign('HMAC', key, encoder.encode(content)));
  if (encoding === 'base64') return btoa(String.fromCharCode(...mac));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Fresh content for a token call: random, as the vendor's examples send. */
function freshContent(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * A token from `baseUrl` (the fake's URL, or a session's `baseUrl`): signs fresh content and
 * POSTs the vendor's token call as JSON. Throws with the fake's status and message when it
 * refuses (an unknown key ID, a hash that does not match).
 */
export async function requestToken(
  baseUrl: string,
  keyId: string,
  secret: string,
  options: { encoding?: SignatureEncoding; content?: string } = {},
): Promise<TokenAnswer> {
  const content = options.content ?? freshContent();
  const hash = await signContent(secret, content, options.encoding);
  const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/api/v2/auth/client_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-key': keyId, 'x-hash': hash },
    body: JSON.stringify({ scope: 'docs_api', content }),
  });
  const body = (await res.json().catch(() => ({}))) as Partial<TokenAnswer> & { message?: string };
  if (!res.ok || typeof body.access_token !== 'string') {
    throw new Error(`token call answered ${res.status}: ${body.message ?? 'no token in the answer'}`);
  }
  return body as TokenAnswer;
}
