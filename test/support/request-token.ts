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
