import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tenant that misbehaves, on loopback over plain HTTP, for the live tools' bounds: its token
 * call answers a token (or what `token` says), and every other request goes to `answer`, which
 * may drip, send without end, repeat a page, or echo the key back. `requests` lists what came.
 */

export const TENANT_TOKEN = 'tok3n-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
export const TENANT_KEY = {
  keyId: 'K3Y-1D-5550123456789',
  secret: 's3cr3t-0a1b2c3d4e5f60718293a4b5c6d7e8f9',
};

export interface HostileTenant {
  base: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export async function startHostileTenant(
  answer: Handler,
  token: Handler = (_req, res) =>
    json(res, 200, {
      success: true,
      access_token: TENANT_TOKEN,
      refresh_token: `${TENANT_TOKEN}-r`,
      expires_in: 3600,
    }),
): Promise<HostileTenant> {
  const requests: HostileTenant['requests'] = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/api/v2/auth/client_token')) token(req, res);
      else answer(req, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The environment the live commands read the key from (no proxy: the tenant is on loopback). */
export const tenantEnv = (): NodeJS.ProcessEnv => ({
  PASSPORTAL_KEY_ID: TENANT_KEY.keyId,
  PASSPORTAL_SECRET: TENANT_KEY.secret,
  HTTPS_PROXY: '',
  https_proxy: '',
  HTTP_PROXY: '',
  http_proxy: '',
});
