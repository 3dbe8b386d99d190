#!/usr/bin/env node
import { Command, Option } from 'commander';
import { ConfigError, OPTION_SET, OPTION_SPECS, type OptionSpec, type Options } from './config.js';
import { FixtureError } from './domain/fixtures/fixture-error.js';
import { createMockServer, type MockServer } from './index.js';
import { DEFAULT_CONFIG_FILE, optionsFromConfigFile } from './options/config-file.js';
import { misspeltEnvNames, optionsFromEnv } from './options/env.js';
import { addOptionFlags, optionsFromFlags } from './options/flags.js';
import { COMMANDS_HELP, HELP_HINT, unknownOptionMessage } from './options/usage.js';
import { PACKAGE_VERSION } from './package-root.js';

/** The command line: the only place (with the Docker entry point) that reads the environment and listens. */

function buildCommand(): Command {
  const command = new Command('passportal-docs-fake')
    .description('A faithful fake of the Passportal Documents API v2 for contract testing.')
    .usage('[options]  |  <command> [options]')
    .version(PACKAGE_VERSION)
    .showHelpAfterError(HELP_HINT)
    // Stray arguments get their own message (strayArguments), most often npm's doing.
    .allowExcessArguments(true)
    .addHelpText(
      'after',
      '\nEvery option can also be set by its environment variable, or in a config file\n' +
        `(--config, CONFIG_FILE, or ./${DEFAULT_CONFIG_FILE}); a flag wins over the variable, the variable over the file.\n` +
        'Docs: README.md. Admin API: /__admin (see /openapi.yaml, tag admin).\n' +
        COMMANDS_HELP,
    );
  command.addOption(
    new Option(
      '--config <file>',
      `config file of options (env CONFIG_FILE, default ./${DEFAULT_CONFIG_FILE} when present)`,
    ),
  );
  command.addOption(
    new Option(
      '--exit-with-stdin',
      'end when standard input closes: a launcher holding the other end of the pipe never leaves the fake behind',
    ),
  );
  return addOptionFlags(OPTION_SET, command);
}

/** An option's npm configuration variable: what npm sets for `--state-file` it kept for itself. */
const npmConfigName = (spec: OptionSpec) => `npm_config_${spec.flag.slice(2).replace(/-/g, '_')}`;

/**
 * The command takes options only. An argument left over is most often npm's doing: run as
 * `npm start --port 4020`, npm keeps `--port` (as its own configuration, `npm_config_port`) and
 * passes `4020` on alone. The error says what was meant when npm's variables tell.
 */
function strayArguments(args: string[], env: NodeJS.ProcessEnv): ConfigError {
  const list = args.map((a) => JSON.stringify(a)).join(', ');
  const event = env.npm_lifecycle_event;
  const eaten = event === undefined ? [] : OPTION_SPECS.filter((spec) => env[npmConfigName(spec)] === 'true');
  if (event === undefined || eaten.length === 0) {
    return new ConfigError(
      `unexpected argument${args.length > 1 ? 's' : ''} ${list}: the command takes options only, such as --port 4020 (see --help)`,
    );
  }
  const script = event === 'start' || event === 'test' ? `npm ${event}` : `npm run ${event}`;
  const values = [...args];
  const flags = eaten.map((spec) =>
    spec.kind.type === 'boolean' ? spec.flag : `${spec.flag} ${values.shift() ?? '<value>'}`,
  );
  const vars = eaten.map((spec) =>
    spec.kind.type === 'boolean'
      ? `${spec.env}=true`
      : `${spec.env}=${flags.length === 1 ? (args[0] ?? '') : '<value>'}`,
  );
  return new ConfigError(
    `unexpected argument${args.length > 1 ? 's' : ''} ${list}: npm kept ${eaten.map((s) => s.flag).join(', ')} for itself; ` +
      `did you mean "${script} -- ${flags.join(' ')}" or ${vars.join(' ')}?`,
  );
}

/**
 * Flags npm kept for itself with their values (`npm start --port=4020` sets `npm_config_port`
 * and passes nothing on): each a warning, since the fake never sees them.
 */
function flagsKeptByNpm(env: NodeJS.ProcessEnv): string[] {
  const event = env.npm_lifecycle_event;
  if (event === undefined) return [];
  const script = event === 'start' || event === 'test' ? `npm ${event}` : `npm run ${event}`;
  return OPTION_SPECS.flatMap((spec) => {
    const value = env[npmConfigName(spec)];
    if (value === undefined || value === 'true' || value === '') return [];
    return [
      `npm kept ${spec.flag}=${value} for itself and the fake did not see it: run "${script} -- ${spec.flag} ${value}" or set ${spec.env}=${value}`,
    ];
  });
}

/** What the command line asks of this process beside the fake's options. */
interface CommandLine {
  options: Partial<Options>;
  /** `--exit-with-stdin`: end when standard input closes. */
  exitWithStdin: boolean;
}

/** Parses argv, env and the config file into options: flags over environment variables over the file over defaults. */
function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): CommandLine {
  const command = buildCommand();
  command.exitOverride();
  command.configureOutput({
    writeErr: (s) => process.stderr.write(s),
    outputError: (message, write) => write(unknownOptionMessage(OPTION_SET, message)),
  });
  command.parse(argv, { from: 'user' });
  if (command.args.length > 0) throw strayArguments(command.args, env);
  const flags = command.opts<Record<string, unknown>>();
  const named = typeof flags.config === 'string' ? flags.config : env.CONFIG_FILE || undefined;
  const fromEnv = optionsFromEnv(OPTION_SET, env);
  const out: Record<string, unknown> = {
    ...optionsFromConfigFile(OPTION_SET, named),
    ...fromEnv,
    ...optionsFromFlags(OPTION_SET, flags),
  };
  // A person at a terminal reads lines, a program reads JSON: unless asked, the format follows stdout.
  if (out.logFormat === undefined && process.stdout.isTTY === true) out.logFormat = 'pretty';
  return { options: out as Partial<Options>, exitWithStdin: flags.exitWithStdin === true };
}

function logStartup(mock: MockServer, url: string): void {
  const keys = mock.root.fake
    .snapshot()
    .apiKeys.map((k) => ({ organizationId: k.organizationId, keyId: k.keyId, secret: k.secret }));
  mock.logger.info(
    {
      url,
      adminUrl: `${url}/__admin`,
      docsUrl: `${url}/docs`,
      inspectorUrl: `${url}/__admin/ui`,
      fixtures: mock.fixtureSource,
      documents: mock.root.fake.documentCount(),
      apiKeys: keys.slice(0, 10),
      admin: mock.options.adminToken ? 'protected by ADMIN_TOKEN' : 'open (set ADMIN_TOKEN to protect it)',
    },
    `Passportal Documents API fake listening on ${url}`,
  );
  const tls = mock.tls;
  if (tls !== undefined && mock.httpsUrl !== undefined) {
    mock.logger.info(
      {
        httpsUrl: mock.httpsUrl,
        caCert: tls.caCertPath,
        caCertUrl: `${url}/__admin/tls/ca.pem`,
        caGenerated: tls.generated,
        proxy: url,
        tlsHosts: mock.options.tlsHosts,
      },
      `HTTPS on ${mock.httpsUrl}, certificates from the CA in ${tls.caCertPath}` +
        `${tls.generated ? ' (generated now: trust it once, see docs/https.md)' : ''}; ` +
        `HTTPS_PROXY=${url} reaches the fake as ${mock.options.tlsHosts}`,
    );
  }
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (argv[0] === 'report')
    return (await import('./commands/report.js')).runReportCommand(argv.slice(1), env);
  if (argv[0] === 'check-live')
    return (await import('./commands/check-live.js')).checkLive(argv.slice(1), env);
  if (argv[0] === 'capture') return (await import('./commands/capture.js')).capture(argv.slice(1), env);
  if (argv[0] === 'mcp') return (await import('./commands/mcp.js')).runMcpCommand(argv.slice(1), env);
  let options: Partial<Options>;
  let exitWithStdin: boolean;
  try {
    ({ options, exitWithStdin } = parseCommandLine(argv, env));
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    // commander's: --help and --version exit 0, a usage error (an unknown option...) 2.
    const code = (error as { exitCode?: number }).exitCode;
    if (typeof code === 'number') return code === 0 ? 0 : 2;
    throw error;
  }
  let mock: MockServer;
  try {
    mock = await createMockServer(options);
  } catch (error) {
    if (error instanceof FixtureError || error instanceof ConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  for (const { name, meant } of misspeltEnvNames(OPTION_SET, env)) {
    mock.logger.warn(
      { variable: name, meant },
      `environment variable ${name} is not read by the fake; did you mean ${meant}?`,
    );
  }
  for (const warning of flagsKeptByNpm(env)) mock.logger.warn(warning);
  const url = await mock.listen();
  logStartup(mock, url);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    mock.logger.info({ signal }, 'shutting down');
    void mock.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  if (exitWithStdin) {
    // The launcher's end of the pipe closes however it ends (even killed): the fake goes too, at
    // once if connections linger past a short grace.
    const ended = () => {
      stop('stdin closed');
      setTimeout(() => process.exit(0), 3000).unref();
    };
    process.stdin.once('end', ended);
    process.stdin.once('error', ended);
    process.stdin.resume();
  }
  return -1;
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
