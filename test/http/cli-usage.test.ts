import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, meantOptions } from '../../src/options/usage.js';
import { runCli } from '../support/run-cli.js';

/**
 * The command line shows itself: `--help` names every command with one line each, a mistyped
 * option gets the long option it most likely meant (not the whole help), and a fixture folder
 * with no fixture file in it is refused as the image refuses an empty /fixtures.
 */

const scratch = mkdtempSync(join(tmpdir(), 'fake-cli-usage-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the command line shows itself', () => {
  it('--help lists every command (report, check-live, capture, mcp) with one line each', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    expect(COMMANDS.map((c) => c.name)).toEqual(['report', 'check-live', 'capture', 'mcp']);
    const lines = stdout.split('\n');
    for (const { name, summary } of COMMANDS) {
      const line = lines.filter((l) => l.trimStart().startsWith(`${name} `));
      expect(line, name).toHaveLength(1);
      expect(line[0]).toContain(summary);
    }
    expect(stdout).toContain('Usage: passportal-docs-fake [options]  |  <command> [options]');
  });

  it('-p 4020: exit 2, "did you mean --port", and no dump of the whole help', async () => {
    const { code, stderr, stdout } = await runCli(['-p', '4020']);
    expect(code).toBe(2);
    expect(stderr).toContain("error: unknown option '-p' (did you mean --port?)");
    expect(stderr).toContain('--help lists the options and commands');
    expect(stderr.split('\n').length).toBeLessThan(5);
    expect(stdout).toBe('');
  });

  it('a misspelt long option names the one meant; a letter with several gets them all', async () => {
    const { code, stderr } = await runCli(['--prot', '4020']);
    expect(code).toBe(2);
    expect(stderr).toContain("error: unknown option '--prot' (did you mean --port?)");
    const flags = ['--log-level', '--log-format', '--port'];
    expect(meantOptions('-l', flags)).toEqual(['--log-level', '--log-format']);
    expect(meantOptions('-P', flags)).toEqual(['--port']);
    expect(meantOptions('-z', flags)).toEqual([]);
  });

  it('--fixtures <an empty folder>: exit 2, naming the folder, as the image refuses an empty /fixtures', async () => {
    const empty = join(scratch, 'suite');
    mkdirSync(empty);
    const { code, stderr } = await runCli(['--fixtures', empty, '--port', '0']);
    expect(code).toBe(2);
    expect(stderr).toContain(`${empty}: the folder holds no fixture file`);
    expect(stderr).toContain('documents.json');
    expect(stderr).toContain('check the path');
  });
});
