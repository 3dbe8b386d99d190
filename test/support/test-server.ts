import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { computeHash } from '../../src/domain/tokens.js';
import {
  createMockServer,
  type FixtureSet,
  type MockServer,
  type MockServerOptions,
} from '../../src/index.js';

/** The small fixture set most HTTP tests use: two organizations, five documents, explicit keys. */
export const SMALL_SET = fileURLToPath(new URL('../fixtures/http/small-set.json', import.meta.url));

export const ACME_KEY = {
  keyId: '9f2c4b7a1e6d3c8b5a0f9e2d7c4b1a6e3d8c5b2a7f4e1d6c3b8a5f2e9d6c3b0a',
  secret: 'secret-of-acme',
  organizationId: 1,
};
export const OTHER_KEY = {
  keyId: '0b3c6d9e2f5a8b1c4d7e0f3a6b9c2d5e8f1a4b7c0d3e6f9a2b5c8d1e4f7a0b3c',
  secret: 'secret-of-other',
  organizationId: 2,
};

/** A string detail entry as the vendor writes it. */
export const textEntry = (name: string, text: string) => ({
  name,
  description: '',
  value: { type: 'string', text },
});

export interface TestServer {
  mock: MockServer;
  http: ReturnType<typeof supertest>;
  /** Gets a fresh access token for a key through the real token call. */
  token(key?: { keyId: string; secret: string }): Promise<string>;
}

/** An in-process fake over the small set (or other options), silent, for supertest. */
export async function createTestServer(options: MockServerOptions = {}): Promise<TestServer> {
  const mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', ...options });
  const http = supertest(mock.app);
  return {
    mock,
    http,
    async token(key = ACME_KEY) {
      const content = 'api-content-hash';
      const res = await http
        .post('/api/v2/auth/client_token')
        .set('x-key', key.keyId)
        .set('x-hash', computeHash(key.secret, content))
        .send({ scope: 'docs_api', content });
      if (res.status !== 200) throw new Error(`token call failed: ${res.status} ${JSON.stringify(res.body)}`);
      return (res.body as { access_token: string }).access_token;
    },
  };
}

/**
 * Gets an access token through the real token call of the instance served under `prefix`
 * (`''` for the root, `/sessions/{id}` for a session); `http` is supertest over the app or a URL.
 */
export async function issueToken(
  http: ReturnType<typeof supertest>,
  prefix = '',
  key: { keyId: string; secret: string } = ACME_KEY,
): Promise<string> {
  const content = 'api-content-hash';
  const res = await http
    .post(`${prefix}/api/v2/auth/client_token`)
    .set('x-key', key.keyId)
    .set('x-hash', computeHash(key.secret, content))
    .send({ scope: 'docs_api', content });
  if (res.status !== 200) throw new Error(`token call failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { access_token: string }).access_token;
}

/** The small set as a plain object, to modify in a test (a fresh copy on every call). */
export function readSmallSet(): FixtureSet {
  return JSON.parse(readFileSync(SMALL_SET, 'utf8')) as FixtureSet;
}
