import { createRequire } from 'node:module';
import { type Logger, pino } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Options } from './config.js';

const require = createRequire(import.meta.url);

/**
 * One logger per server: JSON lines by default, human-readable with logFormat=pretty. The
 * pretty printer is loaded only when asked for: most runs (CI, containers) never need it, and
 * start-up time is a product feature.
 */
export function createLogger(options: Pick<Options, 'logLevel' | 'logFormat'>): Logger {
  const base = { level: options.logLevel, base: { name: 'passportal-docs-fake' } };
  if (options.logFormat === 'pretty') {
    const pretty = require('pino-pretty') as typeof PinoPretty;
    return pino(
      base,
      pretty({ colorize: process.stdout.isTTY === true, ignore: 'pid,hostname,name', sync: true }),
    );
  }
  // Silent (tests, benchmarks): no buffered writer of its own on stdout, with its exit hooks, for a
  // logger that writes nothing; should its level be raised later, it writes to stdout as a stream.
  if (options.logLevel === 'silent') return pino(base, process.stdout);
  return pino(base);
}
