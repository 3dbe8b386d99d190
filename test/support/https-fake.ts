import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockServer, type MockServer, type MockServerOptions } from '../../src/index.js';
import { SMALL_SET } from './test-server.js';

export interface HttpsFake {
  mock: MockServer;
  /** `http://127.0.0.1:<port>`: the HTTP port, which is also the proxy. */
  proxyUrl: string;
  /**
   * The proxy URL with a session's id as its user and a password the fake ignores: Python's
   * requests sends proxy credentials only when the URL has a password.
   */
  sessionProxyUrl(sessionId: string): string;
  /** The CA certificate's file, for the clients' trust settings. */
  caPath: string;
  close(): Promise<void>;
}

/**
 * A listening fake with HTTPS on (any free ports) over the small set, its CA generated into a
 * scratch folder removed by `close()` (or into `tlsDir` when given, kept).
 */
export async function startHttpsFake(options: MockServerOptions = {}): Promise<HttpsFake> {
  const scratch = options.tlsDir === undefined ? mkdtempSync(join(tmpdir(), 'fake-tls-')) : undefined;
  const mock = await createMockServer({
    fixtures: SMALL_SET,
    logLevel: 'silent',
    port: 0,
    httpsPort: 0,
    tlsDir: scratch,
    ...options,
  });
  const proxyUrl = await mock.listen();
  const tls = mock.tls;
  if (tls === undefined) throw new Error('HTTPS did not start');
  return {
    mock,
    proxyUrl,
    sessionProxyUrl: (id) => proxyUrl.replace('http://', `http://${encodeURIComponent(id)}:session@`),
    caPath: tls.caCertPath,
    async close() {
      await mock.close();
      if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * A Python 3 that has `requests`: the one on PATH, else Debian's (`apt-get install
 * python3-requests` installs it for /usr/bin/python3, which a pyenv or venv on PATH hides).
 */
export function pythonWithRequests(): string {
  for (const candidate of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(candidate, ['-c', 'import requests'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  throw new Error("no python3 with requests: install Debian's python3-requests");
}
