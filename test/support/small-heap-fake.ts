import type { ChildProcess } from 'node:child_process';
import { afterEach } from 'vitest';
import { killChild, spawnCli, waitForListening } from './run-cli.js';
import { SMALL_SET } from './test-server.js';

/**
 * A fake run as a child process with a small heap (`heapMb`), so that a request or admin call
 * that makes it hold too much kills it within seconds instead of passing. Call in a test file's
 * body: each test's child is killed after it. `stderr` keeps the child's last 4,000 characters
 * of standard error, for the assertion messages; `exitCode` is null while it runs.
 */
export function smallHeapFake(heapMb: number): {
  start: () => Promise<string>;
  readonly stderr: string;
  readonly exitCode: number | null | undefined;
} {
  let child: ChildProcess | undefined;
  let stderr = '';
  afterEach(async () => {
    const c = child;
    child = undefined;
    await killChild(c);
  });
  return {
    async start() {
      stderr = '';
      child = spawnCli(['--port', '0', '--fixtures', SMALL_SET], {
        NODE_OPTIONS: `--max-old-space-size=${heapMb}`,
      });
      child.stderr?.on('data', (d: Buffer) => {
        stderr = (stderr + d.toString()).slice(-4000);
      });
      const url = await waitForListening(child);
      child.stdout?.resume();
      return url;
    },
    get stderr() {
      return stderr;
    },
    get exitCode() {
      return child?.exitCode;
    },
  };
}
