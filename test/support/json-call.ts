import { createServer } from 'node:net';

/** A JSON body as a test reads it. */
export type Body = Record<string, unknown>;

/** What a call answered: status, headers, text, its JSON (empty when it is not JSON), `Retry-After`. */
export interface JsonAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: Body;
  retryAfter: string | undefined;
}

/** The text of a document's name, as the vendor API answers a document. */
export const documentName = (doc: Body): string | undefined =>
  (doc.details as { name?: { value?: { text?: string } } } | undefined)?.name?.value?.text;

/** One HTTP call with a JSON body (when given), as a client of the fake makes it. */
export async function callJson(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonAnswer> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('json') === true && text !== '';
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: (json ? JSON.parse(text) : {}) as Body,
    retryAfter: res.headers.get('retry-after') ?? undefined,
  };
}

/** A loopback port free at the moment of asking (for a process that must be told its port). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
