import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/index.js';
import { findChromium } from '../browser/browser.js';

/**
 * The Playwright example of docs/frontend.md (examples/playwright), run by Playwright Test against
 * a real Chromium and read from the outside through its JSON reporter: the page and its backends
 * (OpenTelemetry's W3C baggage propagator, and a header copied by hand) list and rename documents
 * through the fake, each test in a session of its own (`passportal-docs-fake/playwright`), tests
 * in two workers each seeing only their own session's data; a recorded HAR replayed by
 * `routeFromHAR`; a backend that breaks the contract failing its test with the violation named
 * and the session's HAR and report attached.
 */

interface JsonResult {
  status: string;
  parallelIndex: number;
  errors: Array<{ message?: string }>;
  attachments: Array<{ name: string; contentType: string; path?: string; body?: string }>;
}
interface JsonSpec {
  title: string;
  file: string;
  tests: Array<{ results: JsonResult[] }>;
}
interface JsonSuite {
  specs?: JsonSpec[];
  suites?: JsonSuite[];
}

const specsOf = (suite: JsonSuite): JsonSpec[] => [
  ...(suite.specs ?? []),
  ...(suite.suites ?? []).flatMap(specsOf),
];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

let mock: MockServer;
let specs: JsonSpec[];
let exitCode: number | null;
let output = '';

beforeAll(async () => {
  mock = await createMockServer({ logLevel: 'silent' });
  const url = await mock.listen(0, '127.0.0.1');
  const [key] = mock.state().apiKeys;
  const report = join(mkdtempSync(join(tmpdir(), 'pw-')), 'results.json');
  const child = spawn(
    join(process.cwd(), 'node_modules/.bin/playwright'),
    [
      'test',
      '--config',
      'examples/playwright/playwright.config.ts',
      '--reporter=json',
      '--output',
      join(report, '..', 'out'),
    ],
    {
      env: {
        ...process.env,
        PASSPORTAL_FAKE_URL: url,
        FAKE_KEY_ID: key?.keyId,
        FAKE_SECRET: key?.secret,
        APP_PORT: String(await freePort()),
        CHROMIUM_PATH: await findChromium(),
        PLAYWRIGHT_JSON_OUTPUT_NAME: report,
        CI: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  exitCode = await new Promise((resolve) => child.on('close', resolve));
  specs = specsOf(JSON.parse(readFileSync(report, 'utf8')) as JsonSuite);
}, 180_000);
afterAll(async () => {
  await mock.close();
});

const resultOf = (title: RegExp): JsonResult => {
  const spec = specs.find((s) => title.test(s.title));
  const result = spec?.tests[0]?.results[0];
  if (result === undefined) throw new Error(`no result for ${title}: ${output.slice(-2000)}`);
  return result;
};

describe('the Playwright example against a real Chromium', () => {
  it('is the suite docs/frontend.md shows, as it runs here', () => {
    const doc = readFileSync('docs/frontend.md', 'utf8');
    expect(doc).toContain(readFileSync('examples/playwright/tests/documents.spec.ts', 'utf8'));
  });

  it('runs every test, and fails only the one whose backend breaks the contract', () => {
    expect(specs.map((s) => s.title).sort()).toEqual([
      'a backend that breaks the contract fails its test',
      'renames a document through the manual backend, in its own session',
      'renames a document through the otel backend, in its own session',
      'replays the session recorded as HAR in the browser',
    ]);
    expect(exitCode).toBe(1);
    for (const spec of specs.filter((s) => !s.title.startsWith('a backend'))) {
      expect(spec.tests[0]?.results[0]?.status, `${spec.title}: ${output.slice(-3000)}`).toBe('passed');
    }
  });

  it('ran the tests in two workers, each test in its own session from the fixture set', () => {
    // Both renames start from the fixture set's first title, whichever ran first or beside the other.
    const workers = new Set(specs.map((s) => s.tests[0]?.results[0]?.parallelIndex));
    expect(workers.size).toBe(2);
    expect(resultOf(/otel backend/).status).toBe('passed');
    expect(resultOf(/manual backend/).status).toBe('passed');
    // Every session was deleted after its test.
    expect(mock.sessions.list()).toEqual([]);
  });

  it('fails the contract-breaking test naming the violation, with its HAR and report attached', () => {
    const broken = resultOf(/breaks the contract/);
    expect(broken.status).toBe('failed');
    const message = broken.errors.map((e) => e.message ?? '').join('\n');
    expect(message).toContain('The session of this test broke the contract');
    expect(message).toContain('colourOfTheDoor');
    const har = broken.attachments.find((a) => a.name === 'passportal-session.har');
    expect(har?.contentType).toBe('application/json');
    const archive = JSON.parse(
      har?.path ? readFileSync(har.path, 'utf8') : Buffer.from(har?.body ?? '', 'base64').toString(),
    );
    const violating = archive.log.entries.filter(
      (e: { _passportal: { violations: unknown[] } }) => e._passportal.violations.length > 0,
    );
    expect(violating).toHaveLength(1);
    expect(broken.attachments.map((a) => a.name)).toContain('passportal-report.md');
  });

  it('attaches every passing test its HAR too, and replays a recorded HAR with routeFromHAR', () => {
    const replay = resultOf(/replays/);
    expect(replay.status).toBe('passed');
    expect(replay.attachments.map((a) => a.name)).toEqual(['passportal-session.har', 'passportal-report.md']);
  });
});
