import { Command, InvalidArgumentError } from 'commander';
import type { Dispatcher } from 'undici';
import { OPTION_SET, type Options } from '../config.js';
import {
  ApiTarget,
  type Credentials,
  DEFAULT_ANSWER_TIMEOUT_MS,
  DEFAULT_MAX_ANSWER_BYTES,
} from '../live/api-target.js';
import { optionsFromConfigFile } from '../options/config-file.js';
import { optionsFromEnv } from '../options/env.js';

/**
 * What check-live and capture share on the command line: the key from the environment only,
 * the base URL, the rate and request bound, the user's fake settings, and progress on a terminal.
 */

export interface LiveArgs {
  base: string;
  out: string;
  rate: number;
  maxRequests: number;
}

const positive = (name: string, min: number) => (raw: string) => {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min)
    throw new InvalidArgumentError(`${name} must be a number ≥ ${min}`);
  return value;
};

/** The options both commands take; `command` adds its own. */
export function liveCommand(
  name: string,
  description: string,
  maxRequests: number,
  deadlineSeconds: number,
): Command {
  return new Command(`passportal-docs-fake ${name}`)
    .description(description)
    .requiredOption('--base <url>', 'base URL of the live service, e.g. https://us-clover.passportalmsp.com')
    .requiredOption('--out <dir>', 'folder to write into')
    .option('--rate <n>', 'most requests a second to the live service', positive('--rate', 0.01), 2)
    .option(
      '--max-requests <n>',
      'most requests to the live service in all',
      positive('--max-requests', 1),
      maxRequests,
    )
    .option(
      '--answer-timeout <s>',
      'longest wait in seconds for one whole answer (the run stops, naming the request)',
      positive('--answer-timeout', 0.1),
      DEFAULT_ANSWER_TIMEOUT_MS / 1000,
    )
    .option(
      '--max-answer-bytes <n>',
      'largest answer read, in bytes (a larger one is given up as it streams and the run stops)',
      positive('--max-answer-bytes', 1024),
      DEFAULT_MAX_ANSWER_BYTES,
    )
    .option(
      '--deadline <s>',
      'longest the whole run may take, in seconds (then it stops as at --max-requests)',
      positive('--deadline', 1),
      deadlineSeconds,
    )
    .addHelpText(
      'after',
      '\nThe API key comes from PASSPORTAL_KEY_ID and PASSPORTAL_SECRET only. HTTPS_PROXY, NO_PROXY and\n' +
        'NODE_EXTRA_CA_CERTS are honoured. Docs: docs/live-check.md.',
    );
}

/** Parses argv with commander, or says why not: exit status 2 (usage) or 0 (--help). */
export function parseLive(
  command: Command,
  argv: string[],
): { opts: Record<string, unknown> } | { exit: number } {
  command.exitOverride();
  command.configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    command.parse(argv, { from: 'user' });
  } catch (error) {
    const code = (error as { exitCode?: number }).exitCode;
    return { exit: code === 0 ? 0 : 2 };
  }
  const opts = command.opts<Record<string, unknown>>();
  const base = String(opts.base);
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    process.stderr.write(
      `error: --base ${JSON.stringify(base)} is not a URL; give one like https://us-clover.passportalmsp.com\n`,
    );
    return { exit: 2 };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    process.stderr.write(`error: --base must be an http or https URL, not ${url.protocol}\n`);
    return { exit: 2 };
  }
  if (url.pathname !== '/') {
    process.stderr.write(`error: --base is the service's root, without a path: ${url.origin}\n`);
    return { exit: 2 };
  }
  if (url.username !== '' || url.password !== '' || url.search !== '') {
    process.stderr.write(
      'error: --base takes no user, password or query: the key comes from PASSPORTAL_KEY_ID and PASSPORTAL_SECRET\n',
    );
    return { exit: 2 };
  }
  return { opts };
}

/** The key, from the environment only. */
export function credentialsFromEnv(env: NodeJS.ProcessEnv): Credentials | undefined {
  const keyId = env.PASSPORTAL_KEY_ID?.trim();
  const secret = env.PASSPORTAL_SECRET?.trim();
  if (!keyId || !secret) {
    process.stderr.write(
      'error: set PASSPORTAL_KEY_ID and PASSPORTAL_SECRET to the API key (key ID and secret); the key is never taken from the command line\n',
    );
    return undefined;
  }
  return { keyId, secret };
}

/**
 * The user's fake settings, as the fake's own command reads them: the config file (`--config`,
 * CONFIG_FILE, or ./passportal-fake.config.json), then the environment over it.
 */
export function userFakeOptions(named: string | undefined, env: NodeJS.ProcessEnv): Partial<Options> {
  const fromFile = optionsFromConfigFile(OPTION_SET, named ?? (env.CONFIG_FILE || undefined));
  const options: Partial<Options> = { ...fromFile, ...optionsFromEnv(OPTION_SET, env) };
  // The fake beside the live run is in memory, on loopback, quiet, over HTTP.
  for (const key of ['httpsPort', 'stateFile', 'port', 'host', 'adminToken'] as const) delete options[key];
  return { ...options, logLevel: 'silent' };
}

/** Progress on a terminal (stderr): one line rewritten in place; nothing when not a terminal. */
export function progress(stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let requests = 0;
  let doing = '';
  const draw = () => {
    if (!stream.isTTY) return;
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    stream.write(`\r\x1b[K${requests} requests, ${(requests / seconds).toFixed(1)}/s  ${doing}`);
  };
  return {
    request(count: number) {
      requests = count;
      draw();
    },
    doing(what: string) {
      doing = what;
      draw();
    },
    done() {
      if (stream.isTTY) stream.write('\r\x1b[K');
    },
  };
}

/**
 * The live service as the command line names it: `--base`, within `--rate`, `--max-requests`,
 * `--answer-timeout`, `--max-answer-bytes` and `--deadline` (counted from now), progress shown.
 */
export function liveTarget(
  opts: Record<string, unknown>,
  credentials: Credentials,
  dispatcher: Dispatcher,
  shown: ReturnType<typeof progress>,
): ApiTarget {
  return new ApiTarget({
    base: String(opts.base),
    credentials,
    dispatcher,
    rate: Number(opts.rate),
    maxRequests: Number(opts.maxRequests),
    answerTimeoutMs: Math.round(Number(opts.answerTimeout) * 1000),
    maxAnswerBytes: Math.floor(Number(opts.maxAnswerBytes)),
    deadlineAt: Date.now() + Number(opts.deadline) * 1000,
    onRequest: (n) => shown.request(n),
  });
}
