import { createHash } from 'node:crypto';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMockServer } from '../../src/index.js';
import { runCli } from '../support/run-cli.js';
import { openState } from '../support/state-file-kit.js';
import { SMALL_SET } from '../support/test-server.js';

/**
 * A state file that cannot be read back is refused naming its real cause (docs/state-file.md),
 * and left as it was: a line too long to be state names the line; a file that is not a state
 * file, or a version 1 file cut short, says so rather than "empty".
 */

const dir = mkdtempSync(join(tmpdir(), 'fake-state-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('a state file refused at start', () => {
  it('with a 600 MB line: exit 2 naming that line, nothing about folders, the file untouched', async () => {
    const file = join(dir, 'long-line.log');
    const mock = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', stateFile: file });
    await mock.close();
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    // 600 MB without a newline after the last whole line, written sparsely: a hole, then a byte.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('x'), 0, 1, statSync(file).size + 600 * 1024 * 1024);
    closeSync(fd);
    const before = statSync(file);
    const result = await runCli(['--port', '0', '--fixtures', SMALL_SET, '--state-file', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`state file ${file}: line ${lines + 1} is longer than`);
    expect(result.stderr).toContain('the file is damaged or not a state file');
    expect(result.stderr).not.toMatch(/ERR_STRING_TOO_LONG|writable/);
    const after = statSync(file);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
  }, 60_000);

  it('that is not a state file at all: "not JSON, not a state file", not "empty"', () => {
    const file = join(dir, 'garbage.bin');
    const garbage = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x00, 0xff, 0xfe, 0x41]);
    writeFileSync(file, garbage);
    expect(() => openState(file)).toThrow(
      `state file ${file}: line 1 is not JSON: not a passportal-docs-fake state file`,
    );
    expect(readFileSync(file)).toEqual(garbage);
  });

  it('of version 1 cut short: says so and to restore it, not "empty"', () => {
    const file = join(dir, 'v1-cut.json');
    const resetPoint = JSON.parse(readFileSync(SMALL_SET, 'utf8'));
    const whole = JSON.stringify({
      format: 'passportal-docs-fake state',
      version: 1,
      tokens: [],
      resetPoint,
    });
    writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    const before = digest(file);
    expect(() => openState(file)).toThrow(`state file ${file}: a version 1 state file cut short`);
    expect(digest(file)).toBe(before);
  });

  it('that is empty: still "empty"', () => {
    const file = join(dir, 'empty.log');
    writeFileSync(file, '');
    expect(() => openState(file)).toThrow(`state file ${file}: empty`);
  });
});
