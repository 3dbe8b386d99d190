import { computeHash } from '../../src/index.js';

/** The token call over real HTTP, as a client of a listening fake (a process, a container) makes it. */
export function requestToken(
  baseUrl: string,
  key: { keyId: string; secret: string },
  content = 'c',
): Promise<Response> {
  return fetch(`${baseUrl}/api/v2/auth/client_token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-key': key.keyId,
      'x-hash': computeHash(key.secret, content),
    },
    body: JSON.stringify({ scope: 'docs_api', content }),
  });
}

/** An access token from a listening fake for `key`; throws, naming the answer, when it is refused. */
export async function accessToken(baseUrl: string, key: { keyId: string; secret: string }): Promise<string> {
  const res = await requestToken(baseUrl, key);
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || typeof body.access_token !== 'string') {
    throw new Error(`token call answered ${res.status}: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}
