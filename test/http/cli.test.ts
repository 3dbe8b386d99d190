import { describe, expect, it } from 'vitest';
import { OPTION_SPECS } from '../../src/config.js';
import { runCli, spawnCli, waitForListening } from '../support/run-cli.js';
import { SMALL_SET } from '../support/test-server.js';

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
});
