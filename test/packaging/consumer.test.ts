import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as a consuming project meets it: packed, installed from the tarball into a scratch
 * project (its dependencies from the registry), type-checked strictly without `skipLibCheck`,
 * and run. Catches public types that need packages the consumer does not have, fixture types a
 * JSON import does not satisfy, and error classes the README names but the package hides.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/http/small-set.json', import.meta.url));
let dir: string;

const CONSUMER = `import { createMockServer, FixtureError, type FixtureSet, type MockServer } from 'passportal-docs-fake';
import set from './set.json' with { type: 'json' };

const mock: MockServer = await createMockServer({ logLevel: 'silent' });
await mock.load(set);
const url = await mock.listen(0, '127.0.0.1');
const health = await fetch(\`\${url}/__admin/health\`);
const body = (await health.json()) as { status: string; documents: number };
let rejected = '';
try {
  await mock.load({ documents: [{}] } satisfies FixtureSet);
} catch (error) {
  if (error instanceof FixtureError) rejected = error.problems[0]?.path ?? '';
}
await mock.close();
console.log(JSON.stringify({ status: body.status, documents: body.documents, rejected }));
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
  dir = mkdtempSync(join(tmpdir(), 'fake-consumer-'));
  await run('npm', ['pack', '--pack-destination', dir, '--ignore-scripts'], { cwd: ROOT });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  expect(tarball).toBeDefined();
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
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
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      join(dir, tarball ?? ''),
      'typescript@5.9',
      '@types/node@20',
      'testcontainers@11',
      'jest@30',
    ],
    { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
  );
}, 300_000);

// Removing the scratch project's node_modules takes more than the default 30 s on a busy machine.
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('a consuming project', () => {
  it('type-checks strictly without skipLibCheck, a JSON fixture import included', async () => {
    const result = await run(join(dir, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: dir }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed', failed: true }),
    );
    expect(result.stdout).toBe('');
    expect('failed' in result).toBe(false);
  }, 120_000);

  it('runs: loads the JSON fixtures, answers, and rejects a bad set with FixtureError', async () => {
    const { stdout } = await run(process.execPath, ['out/consumer.js'], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({
      status: 'ok',
      documents: 5,
      rejected: expect.stringMatching(/^\/documents\/0\//),
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
    const { stderr } = await run(join(dir, 'node_modules/.bin/jest'), ['--ci'], { cwd: dir });
    expect(stderr).toMatch(/Tests:\s+1 passed, 1 total/);
  }, 120_000);
});
