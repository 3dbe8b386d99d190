import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../src/index.js';

/**
 * The README's example suites, each run as written by vitest in a scratch project:
 * - "In-process": createMockServer() driven by supertest, a reset before every test, a fault, the
 *   clock, and no violation at the end;
 * - "one session per suite", against a listening fake: fixtures imported from JSON, a reset before
 *   every test, and a client under test that caches its token (so a reset that revoked tokens
 *   would fail the second test) and retries a dropped connection once, as the README's comment
 *   asks of it.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
// In test-artifacts/ (git-ignored): out of reach of the project's own test run, linter and type check.
const SCRATCH = join(ROOT, 'test-artifacts', `readme-session-${process.pid}`);

const CLIENT = `import { createHmac, randomUUID } from 'node:crypto';

export class DocumentsClient {
  private token: string | undefined;
  constructor(
    private readonly baseUrl: string,
    private readonly key: { keyId: string; secret: string },
  ) {}

  async getDocument(id: number): Promise<{ id: number }> {
    try {
      return await this.read(id);
    } catch (error) {
      if (error instanceof TypeError) return this.read(id); // a dropped connection: once more
      throw error;
    }
  }

  private async read(id: number): Promise<{ id: number }> {
    const res = await fetch(\`\${this.baseUrl}/api/v2/documents/\${id}\`, {
      headers: { 'x-access-token': await this.accessToken() },
    });
    if (!res.ok) throw new Error(\`\${res.status} \${await res.text()}\`);
    return (await res.json()) as { id: number };
  }

  /** Fetched once and kept, as real clients do. */
  private async accessToken(): Promise<string> {
    if (this.token) return this.token;
    const content = randomUUID();
    const res = await fetch(\`\${this.baseUrl}/api/v2/auth/client_token\`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-key': this.key.keyId,
        'x-hash': createHmac('sha256', this.key.secret).update(content).digest('hex'),
      },
      body: JSON.stringify({ scope: 'docs_api', content }),
    });
    this.token = ((await res.json()) as { access_token: string }).access_token;
    return this.token;
  }
}
`;

/** The README's block between `<!-- name:start -->` and `<!-- name:end -->`, importing this checkout. */
function readmeSuite(name: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = readme.split(`<!-- ${name}:start -->`)[1]?.split(`<!-- ${name}:end -->`)[0] ?? '';
  expect(block).toContain('```ts');
  return block
    .trim()
    .replace(/^```ts\n/, '')
    .replace(/```\s*$/, '')
    .replace("from 'passportal-docs-fake'", `from '${join(ROOT, 'src/index.ts')}'`);
}

/** Runs one of the scratch project's test files with vitest; answers what it printed. */
async function runSuite(file: string): Promise<string> {
  const { stdout } = await run(
    join(ROOT, 'node_modules/.bin/vitest'),
    ['run', '--config', join(SCRATCH, 'vitest.config.mjs'), '--root', SCRATCH, file],
    { cwd: SCRATCH, env: { ...process.env, FAKE_URL: url, NO_COLOR: '1', FORCE_COLOR: '0' } },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`the README suite ${file} failed:\n${error.stdout}\n${error.stderr}`);
  });
  return stdout;
}

let mock: MockServer;
let url: string;

beforeAll(async () => {
  mock = await createMockServer({ logLevel: 'silent' });
  url = await mock.listen(0, '127.0.0.1');
  mkdirSync(join(SCRATCH, 'src'), { recursive: true });
  mkdirSync(join(SCRATCH, 'test/fixtures'), { recursive: true });
  writeFileSync(join(SCRATCH, 'src/documents-client.ts'), CLIENT);
  cpSync(join(ROOT, 'test/fixtures/http/small-set.json'), join(SCRATCH, 'test/fixtures/documents.json'));
  writeFileSync(join(SCRATCH, 'test/in-process.test.ts'), readmeSuite('in-process-suite'));
  writeFileSync(join(SCRATCH, 'test/documents.test.ts'), readmeSuite('session-suite'));
  writeFileSync(join(SCRATCH, 'vitest.config.mjs'), 'export default { test: {} };\n');
});

afterAll(async () => {
  rmSync(SCRATCH, { recursive: true, force: true });
  await mock?.close();
});

describe("the README's example suites", () => {
  it('in-process: passes as written (supertest, a reset before each test, a fault, the clock)', async () => {
    const block = readFileSync(join(SCRATCH, 'test/in-process.test.ts'), 'utf8');
    expect(block).toContain('beforeEach(() => mock.reset())');
    expect(await runSuite('test/in-process.test.ts')).toMatch(/Tests\s+3 passed \(3\)/);
  }, 120_000);

  it('one session per suite: passes as written, a reset before each test keeping the cached token working', async () => {
    const block = readFileSync(join(SCRATCH, 'test/documents.test.ts'), 'utf8');
    expect(block).toContain('beforeEach(() => session.admin.reset())');
    expect(await runSuite('test/documents.test.ts')).toMatch(/Tests\s+2 passed \(2\)/);
  }, 120_000);
});
