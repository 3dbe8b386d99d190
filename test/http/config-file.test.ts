import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../scripts/config-schema.js';
import { createMockServer, type MockServerOptions } from '../../src/index.js';
import { runCli, spawnCli, waitForListening } from '../support/run-cli.js';

/**
 * The config file (`--config`, `CONFIG_FILE`, or `./passportal-fake.config.json`) feeds the same
 * options as flags and variables, below both; its schema ships in `spec/config.schema.json`.
 */

const SCHEMA_PATH = fileURLToPath(new URL('../../spec/config.schema.json', import.meta.url));
const SMALL_SET = fileURLToPath(new URL('../fixtures/http/small-set.json', import.meta.url));

function configFile(options: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'fake-config-'));
  const path = join(dir, 'passportal-fake.config.json');
  writeFileSync(path, JSON.stringify({ $schema: './config.schema.json', ...options }));
  return path;
}

async function settingsOf(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>> {
  const child = spawnCli(['--port', '0', ...args], env);
  try {
    const url = await waitForListening(child);
    return (await (await fetch(`${url}/__admin/settings`)).json()) as Record<string, unknown>;
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
}

describe('the config file', () => {
  it('ships a schema made from the options table, which accepts a config and refuses a typo', () => {
    expect(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'))).toEqual(configSchema());
    const validate = new Ajv2020({ strict: true }).compile(configSchema());
    expect(validate({ maxResultsPerPage: 50, hashEncoding: 'any', adminHosts: 'fake' })).toBe(true);
    expect(validate({ maxResultPerPage: 50 })).toBe(false);
  });

  it('sets options, below environment variables and flags', async () => {
    const path = configFile({ maxResultsPerPage: 7, tokenTtlSeconds: 60, latencyMs: 5 });
    const fromFile = await settingsOf(['--config', path]);
    expect(fromFile).toMatchObject({ maxResultsPerPage: 7, tokenTtlSeconds: 60, latencyMs: 5 });
    const overridden = await settingsOf(['--config', path, '--latency-ms', '9'], {
      TOKEN_TTL_SECONDS: '120',
    });
    expect(overridden).toMatchObject({ maxResultsPerPage: 7, tokenTtlSeconds: 120, latencyMs: 9 });
    const viaEnv = await settingsOf([], { CONFIG_FILE: path });
    expect(viaEnv).toMatchObject({ maxResultsPerPage: 7 });
  });

  it('reads a fixtures path relative to the file', async () => {
    const path = configFile({});
    writeFileSync(join(path, '..', 'set.json'), readFileSync(SMALL_SET));
    writeFileSync(path, JSON.stringify({ fixtures: 'set.json' }));
    const child = spawnCli(['--port', '0', '--config', path]);
    try {
      const url = await waitForListening(child);
      const health = (await (await fetch(`${url}/__admin/health`)).json()) as { documents: number };
      expect(health.documents).toBe(5);
    } finally {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it.each([
    [{ maxResultPerPage: 5 }, /unknown option "maxResultPerPage" \(did you mean "maxResultsPerPage"\?\)/],
    [{ fixture: 'set.json' }, /unknown option "fixture" \(did you mean "fixtures"\?\)/],
    [{ stateFiel: 'state.json' }, /unknown option "stateFiel" \(did you mean "stateFile"\?\)/],
    [{ MAX_RESULT_PER_PAGE: 5 }, /did you mean "maxResultsPerPage"/],
    [{ colour: 'blue' }, /unknown option "colour"; the options are listed by --help/],
    [{ MAX_RESULTS_PER_PAGE: 5 }, /did you mean "maxResultsPerPage"/],
    [{ maxResultsPerPage: 0 }, /maxResultsPerPage: invalid value 0/],
  ])('refuses %j with exit 2, naming the option', async (options, message) => {
    const result = await runCli(['--config', configFile(options)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  // A value nested deeper than the stack: once "Maximum call stack size exceeded" with exit 1.
  const DEPTH = 200_000;
  const deepArray = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
  const deepObject = `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`;
  it.each([
    ['tokenTtlSeconds', deepArray, /tokenTtlSeconds: invalid value an array; expected an integer/],
    ['validateResponses', deepArray, /validateResponses: invalid value an array; expected true or false/],
    ['fixtures', deepObject, /fixtures: invalid value an object; expected a non-empty string/],
    ['hashEncoding', deepObject, /hashEncoding: invalid value an object; expected one of hex, base64, any/],
    [
      'maxSessions',
      JSON.stringify('x'.repeat(100_000)),
      /maxSessions: invalid value "x{60}"\.\.\. \(100000 characters\)/,
    ],
    ['adminToken', '12345', /adminToken: invalid value \(not shown: a secret\); expected a non-empty string/],
    [
      'validateResponses',
      '{"yes":true}',
      /validateResponses: invalid value an object; expected true or false/,
    ],
  ])(
    'refuses a malformed %s (%#) with exit 2, naming the file and the key',
    async (key, valueText, message) => {
      const path = configFile({});
      writeFileSync(path, `{"${key}":${valueText}}`);
      const result = await runCli(['--config', path]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`config file ${path}: ${key}: invalid value`);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/call stack/);
    },
  );

  it('refuses a misspelt option given to createMockServer the same way, naming the nearest', async () => {
    await expect(createMockServer({ maxResultPerPage: 5 } as unknown as MockServerOptions)).rejects.toThrow(
      'unknown option "maxResultPerPage" (did you mean "maxResultsPerPage"?)',
    );
  });
});
