import { readFileSync } from 'node:fs';
import { ConfigError } from '../../config.js';
import { ApiError } from '../../errors.js';
import type { Instance } from '../instance/instance.js';
import type { StepChecks } from './scenario-steps.js';

/**
 * `--scenario FILE` (repeatable; `SCENARIO` with commas): each file holds one scenario as `POST
 * /__admin/scenarios` takes it, applied to the root at start and again after every reset or
 * fixture load. A file that cannot be read, is not JSON, or holds a scenario the call would
 * refuse stops the start (`ConfigError`, exit status 2), naming the file and the key within it.
 */
export function applyScenarioFiles(list: string, instance: Instance, checks: StepChecks): void {
  const files = list
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  for (const file of files) {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      const why =
        error instanceof SyntaxError
          ? `not JSON: ${error.message}`
          : `cannot be read: ${(error as Error).message}`;
      throw new ConfigError(`scenario file ${file} (option --scenario): ${why}`);
    }
    if (
      typeof value !== 'object' ||
      value === null ||
      Array.isArray(value) ||
      typeof (value as { name?: unknown }).name !== 'string'
    )
      throw new ConfigError(
        `scenario file ${file} (option --scenario) at name: must be an object with a name`,
      );
    try {
      instance.scenarios.applyStanding(value as Record<string, unknown>, checks, '');
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const [first] = error.errors ?? [];
      const key = first ? first.location.replace(/^\//, '') || '(the whole file)' : '(the whole file)';
      throw new ConfigError(
        `scenario file ${file} (option --scenario) at ${key}: ${first?.message ?? error.message}`,
      );
    }
  }
}
