import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../src/index.js';

/**
 * The README's example suites, each run as written by vitest in a scratch project:
 * - "In-process" (README.md): createMockServer() driven by supertest, a reset before every test, a fault, the
 *   clock, and a check for violations after every test;
 * - "one session per suite" (docs/testing.md, linked from the README), against a listening fake: fixtures imported from JSON, a reset before
 *   every test, and a client under test that caches its token (so a reset that revoked tokens
 *   would fail the second test) and retries a dropped connection once, as the README's comment
 *   asks of it.
 * Then each again with one more test put first that breaks the contract: a suite that checked
 * violations once at the end would report green (the resets clear the journal); the README's must
 * fail, naming the violation, and still close the server or delete its session.
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

  /** Replaces details of a document; throws on an error answer, with its status first. */
  async updateDetails(id: number, details: Record<string, unknown>): Promise<void> {
    const res = await fetch(\`\${this.baseUrl}/api/v2/documents/\${id}\`, {
      method: 'PATCH',
      headers: { 'x-access-token': await this.accessToken(), 'content-type': 'application/json' },
      body: JSON.stringify(details),
    });
    if (!res.ok) throw new Error(\`\${res.status} \${await res.text()}\`);
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

/** The block of `page` between `<!-- name:start -->` and `<!-- name:end -->`, importing this checkout. */
function readmeSuite(page: string, name: string): string {
  const readme = readFileSync(join(ROOT, page), 'utf8');
  const block = readme.split(`<!-- ${name}:start -->`)[1]?.split(`<!-- ${name}:end -->`)[0] ?? '';
  expect(block).toContain('```ts');
  return block
    .trim()
    .replace(/^```ts\n/, '')
    .replace(/```\s*$/, '')
    .replace("from 'passportal-docs-fake'", `from '${join(ROOT, 'src/index.ts')}'`);
}

/** `suite` with `test` put before its first test (at the first top-level `it(`). */
function withFirstTest(suite: string, test: string): string {
  const at = suite.indexOf('\nit(');
  expect(at).toBeGreaterThan(0);
  return `${suite.slice(0, at)}\n${test}\n${suite.slice(at)}`;
}

/** Runs one of the scratch project's test files with vitest; answers what it printed and whether it passed. */
async function vitestRun(file: string): Promise<{ passed: boolean; output: string }> {
  return run(
    join(ROOT, 'node_modules/.bin/vitest'),
    ['run', '--config', join(SCRATCH, 'vitest.config.mjs'), '--root', SCRATCH, file],
    {
      cwd: SCRATCH,
      env: { ...process.env, FAKE_URL: url, CLOSED_MARKER, NO_COLOR: '1', FORCE_COLOR: '0' },
    },
  ).then(
    ({ stdout, stderr }) => ({ passed: true, output: `${stdout}\n${stderr}` }),
    (error: { stdout?: string; stderr?: string }) => ({
      passed: false,
      output: `${error.stdout}\n${error.stderr}`,
    }),
  );
}

/** Runs a file that must pass; answers what it printed. */
async function runSuite(file: string): Promise<string> {
  const { passed, output } = await vitestRun(file);
  if (!passed) throw new Error(`the README suite ${file} failed:\n${output}`);
  return output;
}

/** Runs a file that must fail; answers what it printed. */
async function runFailingSuite(file: string): Promise<string> {
  const { passed, output } = await vitestRun(file);
  if (passed) throw new Error(`the README suite ${file} passed, though it must fail:\n${output}`);
  return output;
}

/** Where the scratch in-process suite notes that `mock.close()` ran to its end. */
const CLOSED_MARKER = join(SCRATCH, 'closed.txt');
/**
 * Appended to the in-process suite: wraps `mock.close()` so that it leaves a marker once it has
 * closed the server (ESM hoists the import).
 */
const NOTE_CLOSE = `
import { writeFileSync as noteClosed } from 'node:fs';
const closeMock = mock.close.bind(mock);
mock.close = async () => {
  await closeMock();
  noteClosed(process.env.CLOSED_MARKER, 'closed');
};
`;

/** The README's shell lines that make the in-process suite's fixture folder. */
function readmeFixtureCommands(): { installed: string; clone: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block =
    readme.split('<!-- in-process-fixtures:start -->')[1]?.split('<!-- in-process-fixtures:end -->')[0] ?? '';
  const lines = block
    .replace(/```sh\n/, '')
    .replace(/```\s*$/, '')
    .trim()
    .split('\n');
  const clone = lines.find((l) => l.startsWith('# in a clone of this repository: '))?.split(': ')[1] ?? '';
  return { installed: lines[0] ?? '', clone };
}

/**
 * Runs the README's fixture commands: the one for an installed package in the scratch project
 * (its `node_modules/passportal-docs-fake/examples` is this checkout's, as the package ships it),
 * and the one for a clone in a copy of the checkout's examples.
 */
async function setUpReadmeFixtures(): Promise<void> {
  const { installed, clone } = readmeFixtureCommands();
  expect(installed).toContain('node_modules/passportal-docs-fake/examples/fixtures/suite');
  expect(clone).toContain('examples/fixtures/suite');
  mkdirSync(join(SCRATCH, 'node_modules/passportal-docs-fake'), { recursive: true });
  symlinkSync(join(ROOT, 'examples'), join(SCRATCH, 'node_modules/passportal-docs-fake/examples'));
  await run('bash', ['-euo', 'pipefail', '-c', installed], { cwd: SCRATCH });
  const checkout = join(SCRATCH, 'checkout');
  mkdirSync(join(checkout, 'test/fixtures'), { recursive: true });
  symlinkSync(join(ROOT, 'examples'), join(checkout, 'examples'));
  await run('bash', ['-euo', 'pipefail', '-c', clone], { cwd: checkout });
  expect(readdirSync(join(checkout, 'test/fixtures/passportal')).sort()).toEqual(
    readdirSync(join(SCRATCH, 'test/fixtures/passportal')).sort(),
  );
}

let mock: MockServer;
let url: string;

beforeAll(async () => {
  mock = await createMockServer({ logLevel: 'silent' });
  url = await mock.listen(0, '127.0.0.1');
  mkdirSync(join(SCRATCH, 'src'), { recursive: true });
  mkdirSync(join(SCRATCH, 'test/fixtures'), { recursive: true });
  writeFileSync(join(SCRATCH, 'src/documents-client.ts'), CLIENT);
  // docs/testing.md's suite imports its own JSON set; the README's sets its folder up as it says.
  cpSync(join(ROOT, 'test/fixtures/http/small-set.json'), join(SCRATCH, 'test/fixtures/documents.json'));
  await setUpReadmeFixtures();
  const inProcess = readmeSuite('README.md', 'in-process-suite');
  const session = readmeSuite('docs/testing.md', 'session-suite');
  writeFileSync(join(SCRATCH, 'test/in-process.test.ts'), inProcess);
  writeFileSync(join(SCRATCH, 'test/documents.test.ts'), session);
  // The same suites with a first test that breaks the contract (a list call without a token header).
  writeFileSync(
    join(SCRATCH, 'test/in-process-violating.test.ts'),
    withFirstTest(
      inProcess,
      `it('lists documents without a token', async () => {\n  await http.get('/api/v2/documents?pageNum=1');\n});`,
    ) + NOTE_CLOSE,
  );
  writeFileSync(
    join(SCRATCH, 'test/documents-violating.test.ts'),
    withFirstTest(
      session,
      `it('lists documents without a token', async () => {\n  await fetch(\`\${session.baseUrl}/api/v2/documents?pageNum=1\`);\n});`,
    ),
  );
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
    expect(block).toContain('afterEach(() => mock.expectNoViolations())');
    expect(block).toContain("fixtures: './test/fixtures/passportal'");
    expect(readdirSync(join(SCRATCH, 'test/fixtures/passportal'))).toContain('documents.json');
    expect(await runSuite('test/in-process.test.ts')).toMatch(/Tests\s+3 passed \(3\)/);
  }, 120_000);

  it('in-process: fails when the first test breaks the contract, and still closes the server', async () => {
    rmSync(CLOSED_MARKER, { force: true });
    const output = await runFailingSuite('test/in-process-violating.test.ts');
    expect(output).toMatch(/Tests\s+1 failed \| 3 passed \(4\)/);
    expect(output).toContain('FAIL  test/');
    expect(output).toContain('> lists documents without a token');
    expect(output).toContain('ContractViolationError');
    expect(output).toContain('GET /api/v2/documents -> 401');
    expect(output).toContain('header.x-access-token: is required');
    expect(readFileSync(CLOSED_MARKER, 'utf8')).toBe('closed');
  }, 120_000);

  it('one session per suite: passes as written, a reset before each test keeping the cached token working', async () => {
    const block = readFileSync(join(SCRATCH, 'test/documents.test.ts'), 'utf8');
    expect(block).toContain('beforeEach(() => session.admin.reset())');
    expect(block).toContain('afterEach(() => session.admin.expectNoViolations())');
    expect(await runSuite('test/documents.test.ts')).toMatch(/Tests\s+3 passed \(3\)/);
    expect(mock.sessions.size).toBe(0);
    // The run's report outlives the deleted session: the declared violation passes its gate.
    const report = await mock.report({ run: 'local' });
    expect(report.summary).toMatchObject({
      violatingRequests: 0,
      expectedViolations: 1,
      unmetExpectations: 0,
    });
    mock.clearReport({ run: 'local' });
  }, 120_000);

  it('one session per suite: fails when the first test breaks the contract, and still deletes its session', async () => {
    const output = await runFailingSuite('test/documents-violating.test.ts');
    expect(output).toMatch(/Tests\s+1 failed \| 3 passed \(4\)/);
    expect(output).toContain('FAIL  test/');
    expect(output).toContain('> lists documents without a token');
    expect(output).toContain('ContractViolationError');
    expect(output).toContain('header.x-access-token: is required');
    expect(mock.sessions.size).toBe(0);
  }, 120_000);
});
