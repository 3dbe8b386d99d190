import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

/**
 * The README's Testcontainers example (docs/containers.md, linked from the README), run as written (the package name pointed at the source):
 * it builds the image from the package (cached layers), starts it with fixtures and options,
 * prints the base URL and a session's URL, checks the session has no violations, and stops.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const image = inject('fakeImage');

describe.skipIf(!image)("the README's Testcontainers example", () => {
  it('runs as written', async () => {
    const readme = readFileSync(`${ROOT}/docs/containers.md`, 'utf8');
    const block =
      readme.split('<!-- testcontainers:start -->')[1]?.split('<!-- testcontainers:end -->')[0] ?? '';
    const code = block
      .trim()
      .replace(/^```ts\n/, '')
      .replace(/```\s*$/, '')
      .replace("'passportal-docs-fake/testcontainers'", `'${ROOT}src/testcontainers/index.ts'`);
    expect(code).toContain('PassportalFakeContainer');
    expect(code).toContain('await session.admin.expectNoViolations()');
    // In test-artifacts/ (git-ignored): out of reach of the linter and the type check.
    mkdirSync(`${ROOT}test-artifacts`, { recursive: true });
    const file = `${ROOT}test-artifacts/readme-testcontainers-${process.pid}.mts`;
    writeFileSync(file, code);
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
        cwd: ROOT,
        env: { ...process.env },
        timeout: 280_000,
      });
      expect(stdout).toMatch(/^http:\/\/\S+:\d+ http:\/\/\S+:\d+\/sessions\/\S+\n$/);
    } finally {
      rmSync(file, { force: true });
    }
  }, 300_000);
});
