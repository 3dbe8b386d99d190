import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import type { Options } from './config.js';

/** One logger per server: JSON lines by default, human-readable with logFormat=pretty. */
export function createLogger(options: Pick<Options, 'logLevel' | 'logFormat'>): Logger {
  const base = { level: options.logLevel, base: { name: 'passportal-docs-fake' } };
  if (options.logFormat === 'pretty') {
    return pino(
      base,
      pretty({ colorize: process.stdout.isTTY === true, ignore: 'pid,hostname,name', sync: true }),
    );
  }
  return pino(base);
}
