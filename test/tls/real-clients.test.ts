import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/index.js';
import { type HttpsFake, pythonWithRequests, startHttpsFake } from '../support/https-fake.js';
import { ACME_KEY } from '../support/test-server.js';

/**
 * Real client stacks whose code is pinned to the vendor's hosts reach the fake with their URLs
 * unchanged and TLS verification on: only their environment (proxy, CA trust) points them at it.
 * Each gets a token, lists, reads and patches a document, and the fake's own state shows the
 * patch, so the answers came from the fake and nowhere else.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const client = (name: string) => fileURLToPath(new URL(`./clients/${name}`, import.meta.url));
const VENDOR = 'https://us-clover.passportalmsp.com';
const WHITE_LABEL = 'https://mycompany.mypasswordapp.com';
const DOCUMENT_ID = 101101;

/** The environment of a CI job: no proxy or CA of the machine's own leaks in. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { ...env, ...extra };
}

const clientEnv = (base: string, mark: string) => ({
  BASE_URL: base,
  KEY_ID: ACME_KEY.keyId,
  KEY_SECRET: ACME_KEY.secret,
  DOCUMENT_ID: String(DOCUMENT_ID),
  MARK: mark,
});

interface Seen {
  token: number;
  list: [number, number];
  read: [number, string];
  patch: [number, unknown];
  after: string;
}

let fake: HttpsFake;

beforeAll(async () => {
  fake = await startHttpsFake();
}, 60_000);
afterAll(() => fake.close());
beforeEach(() => fake.mock.reset());

/** What the fake stores for the document now: proof the client's patch landed here. */
const storedAddress = (mock = fake.mock) => {
  const doc = mock.root.fake.snapshot().documents.find((d) => d.id === DOCUMENT_ID);
  return (doc?.details.address_1 as { value?: { text?: string } } | undefined)?.value?.text;
};

function expectFullRound(seen: Seen, mark: string): void {
  expect(seen.token).toBe(200);
  expect(seen.list[0]).toBe(200);
  expect(seen.list[1]).toBeGreaterThan(0);
  expect(seen.read).toEqual([200, 'tpl-5001']);
  expect(seen.patch).toEqual([200, { success: 'true' }]);
  expect(seen.after).toBe(mark);
  expect(storedAddress()).toBe(mark);
}

describe('Python requests, HTTPS_PROXY and REQUESTS_CA_BUNDLE', () => {
  it.each([VENDOR, WHITE_LABEL])('works against %s unchanged', async (base) => {
    const mark = `python ${base}`;
    const { stdout } = await run(pythonWithRequests(), [client('documents_client.py')], {
      env: cleanEnv({
        ...clientEnv(base, mark),
        HTTPS_PROXY: fake.proxyUrl,
        REQUESTS_CA_BUNDLE: fake.caPath,
      }),
    });
    expectFullRound(JSON.parse(stdout) as Seen, mark);
  });

  it('refuses the fake when its CA is not trusted: verification is real', async () => {
    const failed = await run(pythonWithRequests(), [client('documents_client.py')], {
      env: cleanEnv({ ...clientEnv(VENDOR, 'never'), HTTPS_PROXY: fake.proxyUrl }),
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).not.toBe(0);
    expect(failed?.stderr).toMatch(/CERTIFICATE_VERIFY_FAILED/);
    expect(storedAddress()).toBe('1 High St');
  });
});

describe("Node fetch with undici's EnvHttpProxyAgent and NODE_EXTRA_CA_CERTS", () => {
  it.each([VENDOR, WHITE_LABEL])('works against %s unchanged', async (base) => {
    const mark = `fetch ${base}`;
    const { stdout } = await run(process.execPath, [client('fetch-client.mjs')], {
      cwd: ROOT,
      env: cleanEnv({
        ...clientEnv(base, mark),
        HTTPS_PROXY: fake.proxyUrl,
        NODE_EXTRA_CA_CERTS: fake.caPath,
      }),
    });
    expectFullRound(JSON.parse(stdout) as Seen, mark);
  });

  it('refuses the fake when its CA is not trusted', async () => {
    const failed = await run(process.execPath, [client('fetch-client.mjs')], {
      cwd: ROOT,
      env: cleanEnv({ ...clientEnv(VENDOR, 'never'), HTTPS_PROXY: fake.proxyUrl }),
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).not.toBe(0);
    expect(failed?.stderr).toMatch(
      /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|self-signed certificate/,
    );
    expect(storedAddress()).toBe('1 High St');
  });
});

describe('axios with the https_proxy variable and NODE_EXTRA_CA_CERTS', () => {
  it.each([VENDOR, WHITE_LABEL])('works against %s unchanged', async (base) => {
    const mark = `axios ${base}`;
    const { stdout } = await run(process.execPath, [client('axios-client.mjs')], {
      cwd: ROOT,
      env: cleanEnv({
        ...clientEnv(base, mark),
        https_proxy: fake.proxyUrl,
        NODE_EXTRA_CA_CERTS: fake.caPath,
      }),
    });
    expectFullRound(JSON.parse(stdout) as Seen, mark);
  });
});

describe('curl through the proxy with --cacert', () => {
  const curl = async (args: string[], cacert = true) => {
    const { stdout } = await run('curl', [
      '--silent',
      '--show-error',
      '--proxy',
      fake.proxyUrl,
      ...(cacert ? ['--cacert', fake.caPath] : []),
      '--write-out',
      '\n%{http_code}',
      ...args,
    ]);
    const cut = stdout.lastIndexOf('\n');
    return {
      status: Number(stdout.slice(cut + 1)),
      body: JSON.parse(stdout.slice(0, cut)) as Record<string, unknown>,
    };
  };

  it.each([VENDOR, WHITE_LABEL])('works against %s unchanged', async (base) => {
    const content = 'curl-content';
    const token = await curl([
      '--json',
      JSON.stringify({ scope: 'docs_api', content }),
      '-H',
      `x-key: ${ACME_KEY.keyId}`,
      '-H',
      `x-hash: ${computeHash(ACME_KEY.secret, content)}`,
      `${base}/api/v2/auth/client_token`,
    ]);
    expect(token.status).toBe(200);
    const auth = ['-H', `x-access-token: ${String(token.body.access_token)}`];
    const listed = await curl([...auth, `${base}/api/v2/documents?resultsPerPage=5`]);
    expect(listed.status).toBe(200);
    expect((listed.body.results as unknown[]).length).toBeGreaterThan(0);
    const read = await curl([...auth, `${base}/api/v2/documents/${DOCUMENT_ID}`]);
    expect(read.body.templateUid).toBe('tpl-5001');
    const mark = `curl ${base}`;
    const entry = { name: 'Address 1', description: '', value: { type: 'string', text: mark } };
    const patched = await curl([
      ...auth,
      '-X',
      'PATCH',
      '--json',
      JSON.stringify({ address_1: entry }),
      `${base}/api/v2/documents/${DOCUMENT_ID}`,
    ]);
    expect(patched).toEqual({ status: 200, body: { success: 'true' } });
    expect(storedAddress()).toBe(mark);
  });

  it('refuses the fake without --cacert', async () => {
    const failed = await curl([`${VENDOR}/api/v2/documents`], false).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(60);
    expect(failed?.stderr).toMatch(/certificate/i);
  });
});
