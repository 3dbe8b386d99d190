import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { killChild } from './run-cli.js';

/**
 * A test file's fake processes and their scratch folder (state files, certificates): every child
 * pushed on `children` is killed after each test (`until: 'test'`) or once the file's tests are
 * done (`until: 'file'`, for processes a `beforeAll` starts), and the folder is removed at the
 * file's end. Call in a test file's body.
 */
export function fakeProcesses(
  folderPrefix: string,
  until: 'test' | 'file',
): { dir: string; children: ChildProcess[] } {
  const dir = mkdtempSync(join(tmpdir(), folderPrefix));
  const children: ChildProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const child of children.splice(0)) await killChild(child);
  };
  if (until === 'test') afterEach(stopAll);
  afterAll(async () => {
    await stopAll();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, children };
}
