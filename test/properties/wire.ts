/**
 * A raw HTTP/1.1 client for the property tests: sends exactly the bytes and headers it is given
 * (duplicates, odd names, bad escapes), with a hard timeout so a hang fails the property.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';

export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** Parsed when the response says JSON; `undefined` for an empty body. */
  body: unknown;
  /** Set when the response says JSON but its body does not parse. */
  jsonError?: string;
}

export interface WireInput {
  method: string;
  path: string;
  /** Flat [name, value, ...]; `host` and `content-length` are added. */
  headers: string[];
  body: Buffer | undefined;
}

export function createWireClient(baseUrl: string, timeoutMs: number) {
  const base = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const send = async (input: WireInput): Promise<WireResponse> => {
    try {
      return await attempt(input);
    } catch (error) {
      // A kept-alive socket the server closed as it idled: the request never reached it.
      if ((error as { retryable?: boolean }).retryable) return attempt(input);
      throw error;
    }
  };
  const attempt = (input: WireInput): Promise<WireResponse> =>
    new Promise((resolve, reject) => {
      const headers = [`host`, base.host, ...input.headers];
      if (input.body !== undefined) headers.push('content-length', String(input.body.length));
      const req = request(
        {
          host: base.hostname,
          port: base.port,
          method: input.method,
          path: input.path,
          headers,
          agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            const out: WireResponse = {
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              body: undefined,
            };
            if (/json/i.test(String(res.headers['content-type'] ?? '')) && text !== '') {
              try {
                out.body = JSON.parse(text);
              } catch (error) {
                out.jsonError = String(error);
              }
            } else if (text !== '') out.body = text;
            resolve(out);
          });
        },
      );
      const timer = setTimeout(() => {
        req.destroy(
          new Error(`no answer within ${timeoutMs} ms: ${input.method} ${input.path.slice(0, 200)}`),
        );
      }, timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          Object.assign(error, { retryable: true });
        }
        reject(error);
      });
      req.end(input.body);
    });
  return { send, close: () => agent.destroy() };
}
