import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../scripts/config-schema.js';
import { optionsTable } from '../scripts/options-table.js';
import { DEFAULT_OPTIONS, GROUP_TITLES, OPTION_SPECS, pickSettings, SETTING_KEYS } from '../src/config.js';
import { envName, flagName } from '../src/options/declare.js';

/**
 * The option declarations (src/config.ts) are the one place an option is written; everything a
 * user sees of it is made from them. These checks catch an entry that is incomplete, a name that
 * changed under users' scripts, and a generated file left stale.
 */

/** The environment variables users set today; each flag is `--` and the same words in kebab-case. */
const NAMES_IN_USE = [
  'PORT',
  'HOST',
  'FIXTURES',
  'STATE_FILE',
  'SCENARIO',
  'WATCH',
  'GENERATE',
  'SEED',
  'TOKEN_TTL_SECONDS',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'BODY_LIMIT',
  'MAX_QUERY_LENGTH',
  'MAX_HEADER_SIZE',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'MAX_CONNECTIONS',
  'SHUTDOWN_DRAIN_MS',
  'MAX_BATCH_ITEMS',
  'MAX_CREATED_DOCUMENTS',
  'HASH_ENCODING',
  'DEFAULT_PAGE_NUM',
  'MAX_RESULTS_PER_PAGE',
  'UNKNOWN_DETAIL_KEYS',
  'SUCCESS_LITERALS',
  'ERROR_SUCCESS',
  'READ_SHAPED_DETAILS',
  'LATENCY_MS',
  'ADMIN_TOKEN',
  'CORS_ORIGINS',
  'ADMIN_ORIGINS',
  'ADMIN_HOSTS',
  'MCP_HTTP',
  'TENANTS_FILE',
  'FLEET_PEERS',
  'FLEET_ORDINAL',
  'FLEET_SECRET',
  'JOURNAL_LIMIT',
  'JOURNAL_BYTES',
  'JOURNAL_BODY_BYTES',
  'SESSION_IDLE_SECONDS',
  'MAX_SESSIONS',
  'SESSION_FIXTURES_BYTES',
  'MEMORY_BUDGET',
  'VALIDATE_RESPONSES',
  'HTTPS_PORT',
  'TLS_HOSTS',
  'TLS_DIR',
  'TLS_CA_CERT',
  'TLS_CA_KEY',
  'PROXY_AUTH',
  'SESSION_BAGGAGE',
];

function defaultFits(spec: (typeof OPTION_SPECS)[number]): boolean {
  const value: unknown = spec.default;
  if (value === undefined) return spec.kind.type === 'integer' || spec.kind.type === 'string';
  switch (spec.kind.type) {
    case 'integer':
      return (
        Number.isSafeInteger(value) &&
        (value as number) >= spec.kind.min &&
        (value as number) <= spec.kind.max
      );
    case 'enum':
      return typeof value === 'string' && spec.kind.values.includes(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string' && value.length > 0;
  }
}

describe('the option declarations', () => {
  it('give every option a flag, an environment variable, a group, a description and a default of its kind', () => {
    expect(OPTION_SPECS.length).toBeGreaterThan(40);
    for (const spec of OPTION_SPECS) {
      expect(spec.flag, spec.key).toBe(flagName(spec.key));
      expect(spec.flag, spec.key).toMatch(/^--[a-z]+(-[a-z]+)*$/);
      // The one variable named apart from its key: `tenants` (`--tenants`) reads TENANTS_FILE.
      expect(spec.env, spec.key).toBe(spec.key === 'tenants' ? 'TENANTS_FILE' : envName(spec.key));
      expect(spec.env, spec.key).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
      expect(Object.keys(GROUP_TITLES), spec.key).toContain(spec.group);
      expect(spec.description.length, spec.key).toBeGreaterThan(8);
      expect(defaultFits(spec), `${spec.key} default ${String(spec.default)}`).toBe(true);
      expect(DEFAULT_OPTIONS[spec.key], spec.key).toBe(spec.default);
    }
    expect(Object.keys(DEFAULT_OPTIONS).sort()).toEqual(OPTION_SPECS.map((s) => s.key).sort());
    expect(new Set(OPTION_SPECS.map((s) => s.env)).size).toBe(OPTION_SPECS.length);
  });

  it('keep every environment variable and flag users script against', () => {
    expect(OPTION_SPECS.map((s) => s.env).sort()).toEqual([...NAMES_IN_USE].sort());
    const flags = OPTION_SPECS.map((s) => s.flag);
    for (const env of NAMES_IN_USE.filter((name) => name !== 'TENANTS_FILE'))
      expect(flags).toContain(`--${env.toLowerCase().replace(/_/g, '-')}`);
    expect(flags).toContain('--tenants');
  });

  it('put every group to use, each under a heading', () => {
    for (const group of Object.keys(GROUP_TITLES)) {
      expect(OPTION_SPECS.filter((s) => s.group === group).length, group).toBeGreaterThan(0);
    }
  });

  it('mark the run-time settings, which are what an instance keeps and the admin API changes', () => {
    expect(SETTING_KEYS).toEqual(OPTION_SPECS.filter((s) => s.setting).map((s) => s.key));
    expect(SETTING_KEYS).toContain('maxResultsPerPage');
    expect(SETTING_KEYS).not.toContain('port');
    expect(Object.keys(pickSettings(DEFAULT_OPTIONS))).toEqual(SETTING_KEYS);
  });

  it('mark the admin token secret, and the file and folder options as paths', () => {
    expect(OPTION_SPECS.filter((s) => s.secret).map((s) => s.key)).toEqual(['adminToken', 'fleetSecret']);
    expect(
      OPTION_SPECS.filter((s) => s.path)
        .map((s) => s.key)
        .sort(),
    ).toEqual(['fixtures', 'stateFile', 'tenants', 'tlsCaCert', 'tlsCaKey', 'tlsDir']);
  });
});

describe('what is made from the declarations', () => {
  it('docs/options.md shows the current tables, every option in its group', () => {
    const docs = readFileSync(new URL('../docs/options.md', import.meta.url), 'utf8');
    expect(docs).toContain(optionsTable(true));
    for (const spec of OPTION_SPECS) {
      const section = docs.slice(docs.indexOf(`## ${GROUP_TITLES[spec.group]}`));
      expect(section.split('\n## ')[0], spec.key).toContain(`| \`${spec.env}\` | \`${spec.flag}\` |`);
    }
  });

  it('the config file schema lists exactly the declared options (and $schema), with their ranges', () => {
    const schema = configSchema() as { properties: Record<string, Record<string, unknown>> };
    expect(Object.keys(schema.properties).sort()).toEqual(
      ['$schema', ...OPTION_SPECS.map((s) => s.key)].sort(),
    );
    for (const spec of OPTION_SPECS) {
      const property = schema.properties[spec.key];
      expect(property?.description, spec.key).toContain(spec.description);
      expect(property?.default, spec.key).toEqual(spec.default);
      if (spec.kind.type === 'integer')
        expect(property).toMatchObject({ minimum: spec.kind.min, maximum: spec.kind.max });
      if (spec.kind.type === 'enum') expect(property?.enum).toEqual([...spec.kind.values]);
    }
  });
});
