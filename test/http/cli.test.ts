import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OPTION_SPECS } from '../../src/config.js';
import { type CliResult, runCli, spawnCli, waitForListening } from '../support/run-cli.js';
import { SMALL_SET } from '../support/test-server.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');

/** Runs a command to completion, collecting its output. */
function runToEnd(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the command line', () => {
  it('--help lists every option with its environment variable and default', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    const help = result.stdout.replace(/\s+/g, ' ');
    for (const spec of OPTION_SPECS) {
      expect(help).toContain(spec.flag);
      expect(help).toContain(`env ${spec.env}`);
    }
    expect(help).toContain('default 4010');
  });

  it.each([
    [['--port', 'abc'], {}, '--port: invalid value "abc"; expected an integer from 0 to 65535'],
    [['--hash-encoding', 'rot13'], {}, 'expected one of hex, base64, any'],
    [[], { TOKEN_TTL_SECONDS: '-5' }, 'environment variable TOKEN_TTL_SECONDS'],
    [['--fixtures', '/nonexistent/fixtures.json'], {}, '/nonexistent/fixtures.json'],
  ])('rejects %j %j with exit 2 and a clear message', async (args, env, message) => {
    const result = await runCli(args as string[], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('starts, answers health, and stops on SIGTERM with exit 0', async () => {
    const child = spawnCli(['--port', '0', '--fixtures', SMALL_SET]);
    const url = await waitForListening(child);
    const res = await fetch(`${url}/__admin/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('--exit-with-stdin: ends with exit 0 when its standard input closes (its launcher ended), and not before', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--port', '0', '--fixtures', SMALL_SET, '--exit-with-stdin'],
      { env: { ...process.env, LOG_LEVEL: 'info' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const url = await waitForListening(child);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Data on the pipe is no reason to end: the fake still answers.
    child.stdin?.write('anything\n');
    expect((await fetch(`${url}/__admin/health`)).status).toBe(200);
    child.stdin?.end();
    expect(await exited).toBe(0);
  });

  it('--log-format pretty prints human-readable lines instead of JSON', async () => {
    const child = spawnCli(['--port', '0', '--fixtures', SMALL_SET, '--log-format', 'pretty']);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const url = await waitForListening(child);
    expect((await fetch(`${url}/__admin/health`)).status).toBe(200);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(out).toMatch(/INFO.*listening on http:/);
    expect(out.trimStart().startsWith('{')).toBe(false);
    // Where a person goes next: the docs and the inspector.
    expect(out).toContain(`${url}/docs`);
    expect(out).toContain(`${url}/__admin/ui`);
  });

  it('npm start --port 4020 (npm keeps the flag): exit 2 with the command that was meant', async () => {
    // A real npm run of a project whose start script is this command line, as `npm start` runs it.
    const project = mkdtempSync(join(tmpdir(), 'fake-npm-start-'));
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'p', private: true, scripts: { start: `node --import ${TSX} ${CLI}` } }),
    );
    const result = await runToEnd('npm', ['start', '--port', '4020'], project);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('did you mean "npm start -- --port 4020" or PORT=4020?');
    // Without npm, a stray argument is named and the options pointed at.
    const bare = await runCli(['4020']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('unexpected argument "4020": the command takes options only');
  }, 60_000);

  it('warns when npm kept a flag with its value (npm start --log-level=warn): the fake never saw it', async () => {
    const project = mkdtempSync(join(tmpdir(), 'fake-npm-start-'));
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'p', private: true, scripts: { start: `node --import ${TSX} ${CLI}` } }),
    );
    const child = spawn('npm', ['start', '--log-level=warn', '--', '--port', '0', '--fixtures', SMALL_SET], {
      cwd: project,
      detached: true,
      env: { ...process.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      await waitForListening(child);
    } finally {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    }
    expect(out).toContain(
      'npm kept --log-level=warn for itself and the fake did not see it: run \\"npm start -- --log-level warn\\" or set LOG_LEVEL=warn',
    );
  }, 60_000);

  it('--state-file in a folder that does not exist: exit 2 at start, naming the option and the folder', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'fake-state-')), 'not-made');
    const result = await runCli(['--port', '0', '--state-file', join(folder, 'state.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--state-file');
    expect(result.stderr).toContain(`the folder ${folder} does not exist`);
    expect(result.stderr).not.toMatch(/tmp-state|ENOENT/);
    expect(existsSync(folder)).toBe(false);
  });

  it('warns at start-up about environment variables that look like a misspelt option', async () => {
    const child = spawnCli(['--port', '0', '--fixtures', SMALL_SET], {
      FIXTURE: SMALL_SET,
      MAX_RESULT_PER_PAGE: '5',
      LOGLEVEL: 'debug',
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    await waitForListening(child);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const warnings = out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; variable?: string; meant?: string; msg: string })
      .filter((entry) => entry.level === 40 && entry.variable !== undefined);
    expect(warnings.map(({ variable, meant }) => ({ variable, meant }))).toEqual(
      expect.arrayContaining([
        { variable: 'FIXTURE', meant: 'FIXTURES' },
        { variable: 'MAX_RESULT_PER_PAGE', meant: 'MAX_RESULTS_PER_PAGE' },
        { variable: 'LOGLEVEL', meant: 'LOG_LEVEL' },
      ]),
    );
    expect(warnings.find((w) => w.variable === 'FIXTURE')?.msg).toBe(
      'environment variable FIXTURE is not read by the fake; did you mean FIXTURES?',
    );
    // Variables every machine has are never taken for options (HOME is not HOST, PATH not PORT).
    expect(warnings.map((w) => w.variable)).not.toEqual(expect.arrayContaining(['HOME']));
    expect(warnings.map((w) => w.variable)).not.toEqual(expect.arrayContaining(['PATH']));
  });

  it('prints readable lines to a terminal by default, and JSON when asked or when not a terminal', async () => {
    const startOnTerminal = async (extra: string) => {
      // `script` gives the command a pseudo-terminal as its stdout, as a developer's shell does.
      const line = `${process.execPath} --import ${TSX} ${CLI} --port 0 --fixtures ${SMALL_SET}${extra}`;
      const child = spawn('script', ['-qfec', line, '/dev/null'], {
        detached: true,
        env: { ...process.env, LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      try {
        await waitForListening(child);
      } finally {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      }
      return out;
    };
    const pretty = await startOnTerminal('');
    expect(pretty).toMatch(/INFO.*listening on http:/);
    expect(pretty.trimStart().startsWith('{')).toBe(false);
    const json = await startOnTerminal(' --log-format json');
    expect(json.trimStart().startsWith('{')).toBe(true);
    expect(json).toContain('"msg":"Passportal Documents API fake listening on http');
  }, 60_000);
});
