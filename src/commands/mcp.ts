import { Command } from 'commander';
import { loadSpec } from '../contract/spec-document.js';
import type { MockServer } from '../index.js';
import { createMcpServerFor } from '../mcp/server.js';

/**
 * `passportal-docs-fake mcp`: the admin API as an MCP server on standard input and output, for an
 * assistant's MCP client to start. With `--url` (or PASSPORTAL_FAKE_URL) it controls that running
 * fake, with `--admin-token` (or ADMIN_TOKEN) when it has one; without, it starts a fake in this
 * process on loopback (`--port`, `--fixtures`; ADMIN_TOKEN protects it) and says where on
 * standard error, since standard output is the protocol's. It runs until the client closes its
 * input. Exit status: 0 done, 2 a usage error (standard error says which). See docs/mcp.md.
 */

interface McpFlags {
  url?: string;
  adminToken?: string;
  port: string;
  fixtures?: string;
}

function buildCommand(): Command {
  return new Command('passportal-docs-fake mcp')
    .description('The admin API as an MCP server on standard input and output (docs/mcp.md)')
    .option(
      '--url <url>',
      'a running fake to control (default: $PASSPORTAL_FAKE_URL; neither: start one here)',
    )
    .option('--admin-token <token>', 'its admin bearer token (default: $ADMIN_TOKEN)')
    .option('--port <port>', 'the port of the fake started here, on 127.0.0.1 (0: any free port)', '0')
    .option('--fixtures <path>', 'the fixture set of the fake started here (default: the bundled set)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stderr.write(s) });
}

const usage = (message: string): number => {
  process.stderr.write(`error: ${message}\n`);
  return 2;
};

/** Runs the command with `argv` (after `mcp`); resolves with the exit status once the client has gone. */
export async function runMcpCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const command = buildCommand();
  try {
    command.parse(argv, { from: 'user' });
  } catch (error) {
    return (error as { exitCode?: number }).exitCode === 0 ? 0 : 2;
  }
  if (command.args.length > 0) {
    return usage(
      `unexpected argument ${JSON.stringify(command.args[0])}: the command takes options only (see --help)`,
    );
  }
  const flags = command.opts<McpFlags>();
  const adminToken = flags.adminToken ?? (env.ADMIN_TOKEN || undefined);
  const given = flags.url ?? (env.PASSPORTAL_FAKE_URL || undefined);
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    return usage(`--port ${flags.port}: a port from 0 to 65535`);
  let url: string;
  let mock: MockServer | undefined;
  if (given !== undefined) {
    try {
      const parsed = new URL(given);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
      url = parsed.href.replace(/\/+$/, '');
    } catch {
      return usage(
        `--url ${JSON.stringify(given)} is not an http(s) URL: give the fake's base URL, e.g. http://127.0.0.1:4010`,
      );
    }
  } else {
    const { createMockServer, ConfigError, FixtureError } = await import('../index.js');
    try {
      mock = await createMockServer({ logLevel: 'silent', adminToken, fixtures: flags.fixtures });
      url = await mock.listen(port, '127.0.0.1');
    } catch (error) {
      if (error instanceof ConfigError || error instanceof FixtureError) return usage(error.message);
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
        return usage(`--port ${port} is in use: pick another, or 0`);
      throw error;
    }
    process.stderr.write(
      `passportal-docs-fake mcp: a fake is serving at ${url} (for the client under test)\n`,
    );
  }
  const spec = loadSpec();
  const server = createMcpServerFor(spec, url, adminToken, url);
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
  await mock?.close();
  return 0;
}
