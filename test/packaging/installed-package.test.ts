import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TAG, listOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';
import { defaultApiKey } from '../../src/index.js';
import { requestToken } from '../support/request-token.js';
import { waitForListening } from '../support/run-cli.js';

/**
 * The package as a newcomer and a consuming project meet it, in one scratch project (one install
 * of the packed tarball serves every check here): installed from the tarball with the newest
 * `testcontainers` its peer range allows and the consumer's own tools (TypeScript, @types/node,
 * Jest), then used as advertised. The consuming project type-checks strictly without
 * `skipLibCheck` (public types that need packages the consumer does not have, fixture types a JSON
 * import does not satisfy, error classes the README names but the package hides), runs from ESM,
 * CommonJS and Jest, and signs a token call with `passportal-docs-fake/signing`. The
 * `passportal-docs-fake` command through npx (it must be an executable a shell runs with Node,
 * answer within a bound and start a fake that hands out tokens), and the Testcontainers module
 * imported and constructed on the Node this suite runs on (20.19+ included), and `mcp` answering
 * the SDK's own client on standard input and output.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/http/small-set.json', import.meta.url));
const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const adminOperationIds = listOperations(loadSpec().document)
  .filter((op) => op.tags.includes(ADMIN_TAG))
  .map((op) => op.operationId)
  .sort();
let dir: string;
const started: ChildProcess[] = [];

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs a command in its own process group and kills the whole group after `timeoutMs`: a command
 * that respawns itself must fail the test, not hang it or leave processes behind.
 */
function runBounded(command: string, args: string[], timeoutMs: number, cwd = dir): Promise<Outcome> {
  return new Promise((resolve) => {
    // Plain output whatever the parent's colours: the checks read the runner's summary lines.
    const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

const CONSUMER = `import { createMockServer, FixtureError, type FixtureSet, type MockServer } from 'passportal-docs-fake';
import { requestToken, type TokenAnswer } from 'passportal-docs-fake/signing';
import set from './set.json' with { type: 'json' };

const mock: MockServer = await createMockServer({ logLevel: 'silent' });
await mock.load(set);
const url = await mock.listen(0, '127.0.0.1');
const health = await fetch(\`\${url}/__admin/health\`);
const body = (await health.json()) as { status: string; documents: number };
const key = set.apiKeys[0];
const token: TokenAnswer | undefined = key ? await requestToken(url, key.keyId, key.secret) : undefined;
const listed = await fetch(\`\${url}/api/v2/documents?resultsPerPage=1\`, {
  headers: { 'x-access-token': token?.access_token ?? '' },
});
let rejected = '';
try {
  await mock.load({ documents: [{}] } satisfies FixtureSet);
} catch (error) {
  if (error instanceof FixtureError) rejected = error.problems[0]?.path ?? '';
}
await mock.close();
console.log(JSON.stringify({ status: body.status, documents: body.documents, rejected, listed: listed.status }));
`;

/** The same package from CommonJS: `require` picks dist/cjs (code and declarations). */
const CONSUMER_CJS = `import { createAdminClient, createMockServer, FixtureError } from 'passportal-docs-fake';
import { PassportalFakeContainer } from 'passportal-docs-fake/testcontainers';

async function main(): Promise<void> {
  const mock = await createMockServer({ logLevel: 'silent' });
  const url = await mock.listen(0, '127.0.0.1');
  const health = await createAdminClient(url).health();
  let rejected = false;
  try {
    await mock.load({ documents: [{}] });
  } catch (error) {
    rejected = error instanceof FixtureError;
  }
  await mock.close();
  const container = typeof PassportalFakeContainer;
  console.log(JSON.stringify({ status: health.status, documents: health.documents, rejected, container }));
}
void main();
`;

/** A Jest suite (Jest loads CommonJS through its own module system: the \`require\` condition). */
const JEST_TEST = `const { createMockServer } = require('passportal-docs-fake');

test('the fake answers its health check under Jest', async () => {
  const mock = await createMockServer({ logLevel: 'silent' });
  const url = await mock.listen(0, '127.0.0.1');
  const body = await (await fetch(url + '/__admin/health')).json();
  await mock.close();
  expect(body).toMatchObject({ status: 'ok', documents: 303 });
});
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fake-installed-'));
  const pack = await runBounded(
    'npm',
    ['pack', '--pack-destination', dir, '--ignore-scripts'],
    120_000,
    ROOT,
  );
  expect(pack.code, pack.stderr).toBe(0);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  expect(tarball).toBeDefined();
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'newcomer', private: true, type: 'module' }),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        resolveJsonModule: true,
        outDir: 'out',
        types: ['node'],
      },
      include: ['consumer.ts', 'consumer-cjs.cts'],
    }),
  );
  cpSync(FIXTURES, join(dir, 'set.json'));
  writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
  writeFileSync(join(dir, 'consumer-cjs.cts'), CONSUMER_CJS);
  writeFileSync(join(dir, 'health.test.cjs'), JEST_TEST);
  const range = pkg.peerDependencies.testcontainers;
  const install = await runBounded(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      join(dir, tarball ?? ''),
      `testcontainers@${range}`,
      'typescript@5.9',
      '@types/node@20',
      'jest@30',
    ],
    280_000,
  );
  expect(install.code, install.stderr).toBe(0);
}, 300_000);

afterAll(() => {
  for (const child of started) killGroup(child);
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

// The consuming project's checks first: the README suite below adds a test folder to the project.
describe('a consuming project', () => {
  it('type-checks strictly without skipLibCheck, a JSON fixture import included', async () => {
    const result = await run(join(dir, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: dir }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed', failed: true }),
    );
    expect(result.stdout).toBe('');
    expect('failed' in result).toBe(false);
  }, 120_000);

  it('runs: loads the JSON fixtures, answers, signs a token call with /signing, and rejects a bad set with FixtureError', async () => {
    const { stdout } = await run(process.execPath, ['out/consumer.js'], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({
      status: 'ok',
      documents: 5,
      rejected: expect.stringMatching(/^\/documents\/0\//),
      listed: 200,
    });
  }, 60_000);

  it('runs from CommonJS: require() gets the CommonJS build, its classes and the Testcontainers module', async () => {
    const { stdout } = await run(process.execPath, ['out/consumer-cjs.cjs'], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({
      status: 'ok',
      documents: 303,
      rejected: true,
      container: 'function',
    });
  }, 60_000);

  it('runs under Jest as installed, with no configuration', async () => {
    const { stderr } = await run(join(dir, 'node_modules/.bin/jest'), ['--ci', 'health.test.cjs'], {
      cwd: dir,
    });
    expect(stderr).toMatch(/Tests:\s+1 passed, 1 total/);
  }, 120_000);
});

describe('the installed passportal-docs-fake command', () => {
  it('is a Node executable: its first line is the shebang, and its header holds nothing a shell runs', () => {
    const bin = Object.values(pkg.bin)[0] ?? '';
    const text = readFileSync(join(dir, 'node_modules/passportal-docs-fake', bin), 'utf8');
    expect(text.split('\n')[0]).toBe('#!/usr/bin/env node');
    const header = text.slice(0, text.indexOf('\nimport '));
    expect(header).not.toMatch(/[`$]/);
  });

  it('prints its version through npx, within a bound', async () => {
    const result = await runBounded('npx', ['passportal-docs-fake', '--version'], 30_000);
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(pkg.version);
  }, 40_000);

  it('prints its help through npx, within a bound', async () => {
    const result = await runBounded('npx', ['passportal-docs-fake', '--help'], 30_000);
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: passportal-docs-fake \[options\]/);
    expect(result.stdout).toContain('--state-file <value>');
  }, 40_000);

  it('starts a fake on a free port that issues a token for a default key', async () => {
    const child = spawn('npx', ['passportal-docs-fake', '--port', '0', '--log-level', 'info'], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    const url = await waitForListening(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await requestToken(url, defaultApiKey(1));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { access_token: string }).access_token).toMatch(/\S{16,}/);
    killGroup(child);
  }, 60_000);

  it('serves MCP on standard input and output through npx: a tool per admin operation, a session made', async () => {
    const client = new Client({ name: 'newcomer', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['passportal-docs-fake', 'mcp'],
      cwd: dir,
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(adminOperationIds);
      const created = (await client.callTool({ name: 'createSession', arguments: {} })) as {
        content: Array<{ text: string }>;
      };
      expect(JSON.parse(created.content[0]?.text ?? '{}').baseUrl).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/sessions\//,
      );
    } finally {
      await client.close();
    }
  }, 60_000);
});

/** The README's fenced block between `<!-- name:start -->` and `<!-- name:end -->`, as written. */
function readmeBlock(name: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = readme.split(`<!-- ${name}:start -->`)[1]?.split(`<!-- ${name}:end -->`)[0] ?? '';
  return block
    .trim()
    .replace(/^```[a-z]+\n/, '')
    .replace(/```\s*$/, '')
    .trim();
}

describe("the README's in-process suite in a project that installed the tarball", () => {
  it('runs as pasted: the fixture command, then the suite importing the package by name', async () => {
    // The project's test tools (this checkout's vitest and supertest, as its own install would have them).
    for (const tool of ['vitest', 'supertest']) {
      symlinkSync(join(ROOT, 'node_modules', tool), join(dir, 'node_modules', tool));
    }
    const fixtures = await runBounded(
      'bash',
      ['-euo', 'pipefail', '-c', readmeBlock('in-process-fixtures')],
      30_000,
    );
    expect(fixtures.stderr).toBe('');
    expect(fixtures.code).toBe(0);
    mkdirSync(join(dir, 'test'), { recursive: true });
    const suite = readmeBlock('in-process-suite');
    expect(suite).toContain("from 'passportal-docs-fake'");
    writeFileSync(join(dir, 'test/documents.test.ts'), suite);
    // Its own tests only: the project also holds the Jest test of the consuming project's checks.
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      "export default { test: { include: ['test/**/*.test.ts'] } };\n",
    );
    const result = await runBounded(
      join(ROOT, 'node_modules/.bin/vitest'),
      ['run', '--root', dir, '--config', join(dir, 'vitest.config.mjs')],
      120_000,
    );
    expect(result.timedOut).toBe(false);
    expect(`${result.stdout}\n${result.stderr}`).toMatch(/Tests\s+3 passed \(3\)/);
    expect(result.code).toBe(0);
  }, 150_000);
});

describe('the Testcontainers module with the newest testcontainers the peer range allows', () => {
  it('installs a testcontainers whose engines accept this Node', () => {
    const installed = JSON.parse(
      readFileSync(join(dir, 'node_modules/testcontainers/package.json'), 'utf8'),
    ) as { version: string; engines?: { node?: string } };
    expect(Number(installed.version.split('.')[0])).toBeGreaterThanOrEqual(10);
    // testcontainers 12 asks for Node 22.22 (its undici 8 for 22.19); the range stops before it.
    expect(Number(installed.version.split('.')[0])).toBeLessThan(12);
  });

  it('imports (ESM and CommonJS) and constructs the container on this Node', async () => {
    const probe = [
      "import { createRequire } from 'node:module';",
      "import { PassportalFakeContainer, PASSPORTAL_FAKE_PORT } from 'passportal-docs-fake/testcontainers';",
      'const container = new PassportalFakeContainer().withOptions({ errorSuccess: "string" });',
      "const cjs = createRequire(import.meta.url)('passportal-docs-fake/testcontainers');",
      'const fromCjs = new cjs.PassportalFakeContainer();',
      'console.log(JSON.stringify({ port: PASSPORTAL_FAKE_PORT, esm: container.constructor.name, cjs: fromCjs.constructor.name }));',
    ].join('\n');
    writeFileSync(join(dir, 'probe.mjs'), probe);
    const result = await runBounded(process.execPath, ['probe.mjs'], 30_000);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      port: 4010,
      esm: 'PassportalFakeContainer',
      cjs: 'PassportalFakeContainer',
    });
  }, 40_000);
});
