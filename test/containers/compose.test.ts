import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

/**
 * The Compose example (examples/docker-compose.yml) as the README runs it, with whichever Compose
 * the machine has: `docker compose` (v2) or `docker-compose` (v1). The image is the one the global
 * setup built and tagged passportal-docs-fake:local, so `up` does not build it again.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const image = inject('fakeImage');
const PROJECT = 'passportal-docs-fake-example';

function compose(): string[] {
  try {
    execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' });
    return ['docker', 'compose'];
  } catch {
    return ['docker-compose'];
  }
}

describe.skipIf(!image)('the Compose example', () => {
  it('runs the placeholder tests, and a client pinned to the vendor host through an alias, then stops', async () => {
    const [command, ...base] = compose();
    const args = [...base, '-p', PROJECT, '-f', 'examples/docker-compose.yml'];
    try {
      const { stdout, stderr } = await run(
        command as string,
        [...args, 'up', '--abort-on-container-exit', '--exit-code-from', 'tests'],
        { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 },
      );
      const output = stdout + stderr;
      expect(output).toMatch(/session \S+ at http:\/\/passportal:4010\/sessions\//);
      // The session's reports, written to the volume; the Markdown's verdict line printed.
      expect(output).toContain('reports written to /reports');
      expect(output).toMatch(
        /report: ✅ no contract violations; 1 request with notices; behaviours exercised: \*\*\d+\/\d+/,
      );
      // A client pinned to the vendor's host, through the network alias, verifying TLS.
      expect(output).toMatch(
        /vendor host https:\/\/us-clover\.passportalmsp\.com answered over verified TLS: [1-9]\d* documents/,
      );
      expect(output).toMatch(/exited with code 0/);
    } finally {
      await run(command as string, [...args, 'down', '-v', '-t', '10'], { cwd: ROOT, timeout: 120_000 });
    }
  }, 300_000);
});
