import { nearestName } from './nearest-name.js';

/**
 * The one typed options object. CLI flags, environment variables, the programmatic API and the
 * admin API (`PUT /__admin/settings`) all feed the same fields; every field is described once in
 * `OPTION_SPECS`, which also drives `--help` and the options table of docs/options.md.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface Options {
  /** TCP port to listen on (0 picks a free one). */
  port: number;
  /** Interface to listen on. */
  host: string;
  /** Fixture set: a JSON file or a folder with one file per key; absent means the default set. */
  fixtures: string | undefined;
  /**
   * A file that keeps the root instance's state across restarts (documents, tokens, clock,
   * settings, reset point): loaded at start when it exists, rewritten atomically after every
   * change before it is acknowledged. Absent: state lives in memory only.
   */
  stateFile: string | undefined;
  /** Documents generated on top of the fixtures with json-schema-faker. */
  generate: number;
  /** Seed for generated documents (same seed, same documents). */
  seed: number;
  /** Lifetime of an access token in seconds; expiry_time = now + this. */
  tokenTtlSeconds: number;
  /** Log level for the structured request log. */
  logLevel: (typeof LOG_LEVELS)[number];
  /**
   * Log format: one JSON object per line, or human-readable. The command line picks pretty when
   * its stdout is a terminal and nothing says otherwise.
   */
  logFormat: 'json' | 'pretty';
  /** Largest accepted request body in bytes. */
  bodyLimit: number;
  /** Longest accepted query string in characters. */
  maxQueryLength: number;
  /** Largest accepted request header block in bytes (Node's --max-http-header-size). */
  maxHeaderSize: number;
  /** Milliseconds a client may take to send its request headers (408 after). */
  headersTimeoutMs: number;
  /** Milliseconds a client may take to send its whole request, body included (408 after). */
  requestTimeoutMs: number;
  /**
   * Most connections open at once. At the cap a new connection takes the slot of one with no
   * request in flight (the oldest of the address holding the most); when every slot is answering
   * a request, it is closed.
   */
  maxConnections: number;
  /** On SIGTERM/SIGINT, milliseconds requests in flight get to finish before connections are closed. */
  shutdownDrainMs: number;
  /** Most items in one batch PUT/PATCH. */
  maxBatchItems: number;
  /** Most documents an instance may create beyond the fixture set it loaded (batch calls with a blank id, POST). */
  maxCreatedDocuments: number;
  /** How x-hash is compared: hex (either case), base64, or any (skip the check). */
  hashEncoding: 'hex' | 'base64' | 'any';
  /** pageNum when the query leaves it out (1-based). */
  defaultPageNum: number;
  /** resultsPerPage above this is silently capped. */
  maxResultsPerPage: number;
  /** Detail keys that are neither template fields nor stored on the document: reject or accept. */
  unknownDetailKeys: 'reject' | 'accept';
  /** `success` as the contract shows it (string "true" for PATCH calls) or always boolean. */
  successLiterals: 'contract' | 'boolean';
  /** `success` of error bodies: boolean `false`, or the string `"false"` the vendor's table also shows. */
  errorSuccess: 'boolean' | 'string';
  /** Detail entries sent as reads show them (null, a plain string, an array, an object without name/description): stored as sent, or rejected. */
  readShapedDetails: 'accept' | 'reject';
  /** Added delay for every API request, in milliseconds. */
  latencyMs: number;
  /** Bearer token that protects /__admin (all but health); absent leaves it open. */
  adminToken: string | undefined;
  /** Origins allowed by CORS: `*` or a comma-separated list. */
  corsOrigins: string;
  /** Origins whose pages may call /__admin (comma-separated); absent: only the fake's own pages. */
  adminOrigins: string | undefined;
  /** Host names /__admin answers to besides loopback, IP literals and the machine's name (comma-separated). */
  adminHosts: string | undefined;
  /** Requests kept in the journal (oldest dropped first). */
  journalLimit: number;
  /** Bytes the journal of one instance may hold (bodies, headers, queries); oldest dropped first. */
  journalBytes: number;
  /** Largest request or response body the journal keeps whole; larger ones are summarised. */
  journalBodyBytes: number;
  /** Sessions idle this long (seconds) are removed. */
  sessionIdleSeconds: number;
  /** Most sessions at once; one more gets 429. */
  maxSessions: number;
  /** Most bytes of fixture sets (as built) loaded through the admin API (sessions' own, loads) held together; one more gets 429. */
  sessionFixturesBytes: number;
  /**
   * Bytes of client-made data the whole process may hold (stored documents, every journal,
   * fixture sets loaded through the admin API, request bodies in flight), each kind within a
   * share of it (src/memory-budget.ts); 0: a fifth of the heap limit.
   */
  memoryBudget: number;
  /** Validate every outgoing response against the spec, log and journal violations. */
  validateResponses: boolean;
  /**
   * TCP port for HTTPS (the same app over TLS, 0 picks a free one); absent: no HTTPS. With it on,
   * the HTTP port also answers as a forward proxy for `tlsHosts` (and only those).
   */
  httpsPort: number | undefined;
  /** Host names (comma-separated, `*.` for any subdomain) the certificates cover and the proxy intercepts. */
  tlsHosts: string;
  /** Folder where the generated CA (key readable by its owner only) and server certificates are kept. */
  tlsDir: string | undefined;
  /** A CA certificate (PEM file) to sign with instead of a generated one; needs `tlsCaKey`. */
  tlsCaCert: string | undefined;
  /** The private key (PEM file) of `tlsCaCert`. */
  tlsCaKey: string | undefined;
}

/** The options a running instance (root or session) may change at run time. */
export const SETTING_KEYS = [
  'tokenTtlSeconds',
  'hashEncoding',
  'defaultPageNum',
  'maxResultsPerPage',
  'unknownDetailKeys',
  'successLiterals',
  'errorSuccess',
  'readShapedDetails',
  'latencyMs',
  'maxBatchItems',
  'maxCreatedDocuments',
  'validateResponses',
] as const satisfies ReadonlyArray<keyof Options>;

export type Settings = Pick<Options, (typeof SETTING_KEYS)[number]>;

type Kind =
  | { type: 'integer'; min: number; max: number }
  | { type: 'string' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'boolean' };

export interface OptionSpec {
  key: keyof Options;
  flag: string;
  env: string;
  kind: Kind;
  description: string;
  default: Options[keyof Options];
}

const int = (min: number, max: number): Kind => ({ type: 'integer', min, max });

/** What the certificates cover when `tlsHosts` is not set: loopback and the vendor's host names. */
export const DEFAULT_TLS_HOSTS = 'localhost,127.0.0.1,::1,*.passportalmsp.com,*.mypasswordapp.com';

export const OPTION_SPECS: OptionSpec[] = [
  {
    key: 'port',
    flag: '--port',
    env: 'PORT',
    kind: int(0, 65535),
    default: 4010,
    description: 'TCP port (0: any free port)',
  },
  {
    key: 'host',
    flag: '--host',
    env: 'HOST',
    kind: { type: 'string' },
    default: '127.0.0.1',
    description: 'interface to listen on',
  },
  {
    key: 'fixtures',
    flag: '--fixtures',
    env: 'FIXTURES',
    kind: { type: 'string' },
    default: undefined,
    description: 'fixture set: a JSON file or a folder of per-kind files (default: the bundled set)',
  },
  {
    key: 'stateFile',
    flag: '--state-file',
    env: 'STATE_FILE',
    kind: { type: 'string' },
    default: undefined,
    description:
      "file keeping the root instance's state across restarts, written before each change is acknowledged (default: memory only)",
  },
  {
    key: 'generate',
    flag: '--generate',
    env: 'GENERATE',
    kind: int(0, 1_000_000),
    default: 0,
    description: 'documents to generate on top of the fixtures',
  },
  {
    key: 'seed',
    flag: '--seed',
    env: 'SEED',
    kind: int(0, 2 ** 31 - 1),
    default: 1,
    description: 'seed for generated documents',
  },
  {
    key: 'tokenTtlSeconds',
    flag: '--token-ttl-seconds',
    env: 'TOKEN_TTL_SECONDS',
    kind: int(1, 31_536_000),
    default: 3300,
    description: 'access token lifetime in seconds',
  },
  {
    key: 'logLevel',
    flag: '--log-level',
    env: 'LOG_LEVEL',
    kind: { type: 'enum', values: LOG_LEVELS },
    default: 'info',
    description: 'log level',
  },
  {
    key: 'logFormat',
    flag: '--log-format',
    env: 'LOG_FORMAT',
    kind: { type: 'enum', values: ['json', 'pretty'] },
    default: 'json',
    description:
      'log format: json lines, or pretty (the command prints pretty lines to a terminal unless told json)',
  },
  {
    key: 'bodyLimit',
    flag: '--body-limit',
    env: 'BODY_LIMIT',
    kind: int(1, 1_073_741_824),
    default: 1_048_576,
    description: 'largest request body in bytes (413 above)',
  },
  {
    key: 'maxQueryLength',
    flag: '--max-query-length',
    env: 'MAX_QUERY_LENGTH',
    kind: int(16, 1_048_576),
    default: 8192,
    description: 'longest query string in characters (414 above)',
  },
  {
    key: 'maxHeaderSize',
    flag: '--max-header-size',
    env: 'MAX_HEADER_SIZE',
    kind: int(1024, 1_048_576),
    default: 16_384,
    description: 'largest header block in bytes (431 above)',
  },
  {
    key: 'headersTimeoutMs',
    flag: '--headers-timeout-ms',
    env: 'HEADERS_TIMEOUT_MS',
    kind: int(100, 600_000),
    default: 10_000,
    description: 'time a client has to send its request headers (408 after)',
  },
  {
    key: 'requestTimeoutMs',
    flag: '--request-timeout-ms',
    env: 'REQUEST_TIMEOUT_MS',
    kind: int(100, 3_600_000),
    default: 30_000,
    description: 'time a client has to send its whole request, body included (408 after)',
  },
  {
    key: 'maxConnections',
    flag: '--max-connections',
    env: 'MAX_CONNECTIONS',
    kind: int(1, 100_000),
    default: 512,
    description: 'most connections open at once (then a new one takes the slot of an idle one, or is closed)',
  },
  {
    key: 'shutdownDrainMs',
    flag: '--shutdown-drain-ms',
    env: 'SHUTDOWN_DRAIN_MS',
    kind: int(0, 60_000),
    default: 5000,
    description: 'on SIGTERM, time requests in flight get to finish before connections close',
  },
  {
    key: 'maxBatchItems',
    flag: '--max-batch-items',
    env: 'MAX_BATCH_ITEMS',
    kind: int(1, 1_000_000),
    default: 1000,
    description: 'most items in one batch update (400 above)',
  },
  {
    key: 'maxCreatedDocuments',
    flag: '--max-created-documents',
    env: 'MAX_CREATED_DOCUMENTS',
    kind: int(0, 10_000_000),
    default: 100_000,
    description: 'most documents an instance may create beyond its fixtures (400 above)',
  },
  {
    key: 'hashEncoding',
    flag: '--hash-encoding',
    env: 'HASH_ENCODING',
    kind: { type: 'enum', values: ['hex', 'base64', 'any'] },
    default: 'hex',
    description: 'x-hash encoding: hex, base64, or any (skip the check)',
  },
  {
    key: 'defaultPageNum',
    flag: '--default-page-num',
    env: 'DEFAULT_PAGE_NUM',
    kind: int(1, 9999),
    default: 1,
    description: 'pageNum when absent (1-based)',
  },
  {
    key: 'maxResultsPerPage',
    flag: '--max-results-per-page',
    env: 'MAX_RESULTS_PER_PAGE',
    kind: int(1, 100_000),
    default: 100,
    description: 'resultsPerPage cap (silently applied, as the live service does)',
  },
  {
    key: 'unknownDetailKeys',
    flag: '--unknown-detail-keys',
    env: 'UNKNOWN_DETAIL_KEYS',
    kind: { type: 'enum', values: ['reject', 'accept'] },
    default: 'reject',
    description: 'unknown detail keys: reject or accept',
  },
  {
    key: 'successLiterals',
    flag: '--success-literals',
    env: 'SUCCESS_LITERALS',
    kind: { type: 'enum', values: ['contract', 'boolean'] },
    default: 'contract',
    description: 'success as the contract shows it, or always boolean',
  },
  {
    key: 'errorSuccess',
    flag: '--error-success',
    env: 'ERROR_SUCCESS',
    kind: { type: 'enum', values: ['boolean', 'string'] },
    default: 'boolean',
    description: 'success of error bodies: boolean false, or the string "false"',
  },
  {
    key: 'readShapedDetails',
    flag: '--read-shaped-details',
    env: 'READ_SHAPED_DETAILS',
    kind: { type: 'enum', values: ['accept', 'reject'] },
    default: 'accept',
    description: 'detail entries sent as reads show them (null, string, array): store as sent, or reject',
  },
  {
    key: 'latencyMs',
    flag: '--latency-ms',
    env: 'LATENCY_MS',
    kind: int(0, 60_000),
    default: 0,
    description: 'delay added to every API request (ms)',
  },
  {
    key: 'adminToken',
    flag: '--admin-token',
    env: 'ADMIN_TOKEN',
    kind: { type: 'string' },
    default: undefined,
    description: 'bearer token protecting /__admin (health stays open)',
  },
  {
    key: 'corsOrigins',
    flag: '--cors-origins',
    env: 'CORS_ORIGINS',
    kind: { type: 'string' },
    default: '*',
    description: "allowed CORS origins: '*' or a comma-separated list",
  },
  {
    key: 'adminOrigins',
    flag: '--admin-origins',
    env: 'ADMIN_ORIGINS',
    kind: { type: 'string' },
    default: undefined,
    description:
      "origins whose pages may call /__admin (comma-separated; default: only the fake's own pages)",
  },
  {
    key: 'adminHosts',
    flag: '--admin-hosts',
    env: 'ADMIN_HOSTS',
    kind: { type: 'string' },
    default: undefined,
    description: 'host names /__admin answers to besides loopback, IP literals and the machine name',
  },
  {
    key: 'journalLimit',
    flag: '--journal-limit',
    env: 'JOURNAL_LIMIT',
    kind: int(0, 1_000_000),
    default: 1000,
    description: 'requests kept in the journal',
  },
  {
    key: 'journalBytes',
    flag: '--journal-bytes',
    env: 'JOURNAL_BYTES',
    kind: int(65_536, 4_294_967_296),
    default: 33_554_432,
    description: 'bytes the journal of one instance may hold (oldest requests dropped first)',
  },
  {
    key: 'journalBodyBytes',
    flag: '--journal-body-bytes',
    env: 'JOURNAL_BODY_BYTES',
    kind: int(256, 67_108_864),
    default: 65_536,
    description: 'largest body the journal keeps whole (larger: size, SHA-256 and first bytes)',
  },
  {
    key: 'sessionIdleSeconds',
    flag: '--session-idle-seconds',
    env: 'SESSION_IDLE_SECONDS',
    kind: int(1, 31_536_000),
    default: 1800,
    description: 'idle sessions removed after this many seconds',
  },
  {
    key: 'maxSessions',
    flag: '--max-sessions',
    env: 'MAX_SESSIONS',
    kind: int(0, 100_000),
    default: 100,
    description: 'most sessions at once (429 above)',
  },
  {
    key: 'sessionFixturesBytes',
    flag: '--session-fixtures-bytes',
    env: 'SESSION_FIXTURES_BYTES',
    kind: int(0, 17_179_869_184),
    default: 268_435_456,
    description:
      'bytes of fixture sets loaded through the admin API (sessions, loads) held together, as built (429 above)',
  },
  {
    key: 'memoryBudget',
    flag: '--memory-budget',
    env: 'MEMORY_BUDGET',
    kind: int(0, 1_099_511_627_776),
    default: 0,
    description:
      'bytes of client-made data the process may hold: documents, journals, fixture sets, bodies in flight (0: a fifth of the heap limit; 429 above)',
  },
  {
    key: 'validateResponses',
    flag: '--validate-responses',
    env: 'VALIDATE_RESPONSES',
    kind: { type: 'boolean' },
    default: false,
    description: 'check every response against the spec at run time',
  },
  {
    key: 'httpsPort',
    flag: '--https-port',
    env: 'HTTPS_PORT',
    kind: int(0, 65535),
    default: undefined,
    description:
      'HTTPS port serving the same app with certificates from a local CA (0: any free port); the HTTP port then also proxies the TLS hosts',
  },
  {
    key: 'tlsHosts',
    flag: '--tls-hosts',
    env: 'TLS_HOSTS',
    kind: { type: 'string' },
    default: DEFAULT_TLS_HOSTS,
    description:
      "host names the certificates cover and the proxy intercepts (comma-separated; '*.' any subdomain)",
  },
  {
    key: 'tlsDir',
    flag: '--tls-dir',
    env: 'TLS_DIR',
    kind: { type: 'string' },
    default: undefined,
    description: 'folder keeping the generated CA and certificates (default: ~/.passportal-docs-fake/tls)',
  },
  {
    key: 'tlsCaCert',
    flag: '--tls-ca-cert',
    env: 'TLS_CA_CERT',
    kind: { type: 'string' },
    default: undefined,
    description: 'CA certificate (PEM file) to sign with instead of a generated CA; needs --tls-ca-key',
  },
  {
    key: 'tlsCaKey',
    flag: '--tls-ca-key',
    env: 'TLS_CA_KEY',
    kind: { type: 'string' },
    default: undefined,
    description: 'private key (PEM file) of --tls-ca-cert',
  },
];

export const DEFAULT_OPTIONS: Options = Object.fromEntries(
  OPTION_SPECS.map((s) => [s.key, s.default]),
) as unknown as Options;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Longest part of a given string quoted back in an error message. */
const SHOWN_CHARS = 60;

/**
 * A raw value as an error message shows it: scalars as JSON (long strings cut short), arrays and
 * objects by their kind only, so a value nested a million levels deep is named without walking it
 * (JSON.stringify or String() of it would overflow the stack).
 */
function describeRaw(raw: unknown): string {
  if (Array.isArray(raw)) return 'an array';
  if (raw === null) return 'null';
  if (typeof raw === 'object') return 'an object';
  if (typeof raw === 'string') {
    return raw.length > SHOWN_CHARS
      ? `${JSON.stringify(raw.slice(0, SHOWN_CHARS))}... (${raw.length} characters)`
      : JSON.stringify(raw);
  }
  return String(raw);
}

/** Parses one raw value (from a flag, env var or JSON) for the option; throws ConfigError naming the source. */
export function parseOptionValue(spec: OptionSpec, raw: unknown, source: string): Options[keyof Options] {
  const bad = (expected: string) =>
    new ConfigError(
      `${source}: invalid value ${spec.key === 'adminToken' ? '(not shown: a secret)' : describeRaw(raw)}; expected ${expected}`,
    );
  switch (spec.kind.type) {
    case 'integer': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^-?\d+$/.test(raw.trim())
            ? Number(raw)
            : Number.NaN;
      if (!Number.isSafeInteger(n) || n < spec.kind.min || n > spec.kind.max) {
        throw bad(`an integer from ${spec.kind.min} to ${spec.kind.max}`);
      }
      return n;
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return raw;
      if (typeof raw !== 'string' && typeof raw !== 'number') throw bad('true or false');
      const s = String(raw).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on', ''].includes(s)) return true;
      if (['0', 'false', 'no', 'off'].includes(s)) return false;
      throw bad('true or false');
    }
    case 'enum': {
      if (typeof raw !== 'string' || !spec.kind.values.includes(raw))
        throw bad(`one of ${spec.kind.values.join(', ')}`);
      return raw;
    }
    case 'string': {
      if (typeof raw !== 'string' || raw.length === 0) throw bad('a non-empty string');
      return raw;
    }
  }
}

const SPEC_BY_KEY = new Map(OPTION_SPECS.map((s) => [s.key, s]));

/**
 * Merges partial options (programmatic API, admin settings) over a base, validating every value.
 * Unknown keys are rejected so a typo never passes silently.
 */
export function resolveOptions(partial: Partial<Options> = {}, base: Options = DEFAULT_OPTIONS): Options {
  const out: Options = { ...base };
  for (const [key, value] of Object.entries(partial)) {
    if (value === undefined) continue;
    const spec = SPEC_BY_KEY.get(key as keyof Options);
    if (!spec || !Object.hasOwn(DEFAULT_OPTIONS, key)) {
      const near = nearestOption(key);
      throw new ConfigError(`unknown option "${key}"${near ? ` (did you mean "${near.key}"?)` : ''}`);
    }
    (out as unknown as Record<string, unknown>)[key] = parseOptionValue(spec, value, `option ${key}`);
  }
  return out;
}

/**
 * The option a misspelt name most likely means: a name as `createMockServer()` takes it
 * (`maxResultPerPage`), or written as its environment variable (`MAX_RESULTS_PER_PAGE`).
 */
export function nearestOption(name: string): OptionSpec | undefined {
  const byName = new Map<string, OptionSpec>();
  for (const spec of OPTION_SPECS) {
    byName.set(spec.key, spec);
    byName.set(spec.env, spec);
  }
  const near = nearestName(name, byName.keys());
  return near === undefined ? undefined : byName.get(near);
}

/** Variables the command line reads besides the options' own. */
const OTHER_ENV_NAMES = new Set(['CONFIG_FILE']);

/**
 * Environment variables that look like a misspelt option's (`FIXTURE`, `MAX_RESULT_PER_PAGE`,
 * `LOGLEVEL`): set, not read by the fake, and within an edit or two of one it reads. Each with
 * the name meant, for a warning at start-up; a variable silently ignored is a setting lost.
 */
export function misspeltEnvNames(env: NodeJS.ProcessEnv): Array<{ name: string; meant: string }> {
  const known = new Set([...OPTION_SPECS.map((s) => s.env), ...OTHER_ENV_NAMES]);
  const out: Array<{ name: string; meant: string }> = [];
  for (const name of Object.keys(env)) {
    if (known.has(name) || name.length < 4 || !/^[A-Z][A-Z0-9_]*$/.test(name)) continue;
    const meant = nearestName(name, known, Math.min(2, Math.max(1, Math.floor(name.length / 4))));
    if (meant !== undefined) out.push({ name, meant });
  }
  return out;
}

/** Reads options from environment variables (only those set). */
export function optionsFromEnv(env: NodeJS.ProcessEnv): Partial<Options> {
  const out: Record<string, unknown> = {};
  for (const spec of OPTION_SPECS) {
    const raw = env[spec.env];
    if (raw === undefined || raw === '') continue;
    out[spec.key] = parseOptionValue(spec, raw, `environment variable ${spec.env}`);
  }
  return out as Partial<Options>;
}

export function pickSettings(options: Options): Settings {
  return Object.fromEntries(SETTING_KEYS.map((k) => [k, options[k]])) as unknown as Settings;
}

/** The config file the CLI reads when none is named: in the folder it is started from. */
export const DEFAULT_CONFIG_FILE = 'passportal-fake.config.json';

/**
 * Options from a config file's JSON text (`passportal-fake.config.json`): an object keyed by the
 * options' names as `createMockServer()` takes them, checked as flags and variables are, unknown
 * keys refused with the nearest name. `$schema` (for editors: `spec/config.schema.json`) is
 * allowed. `source` names the file in messages.
 */
export function optionsFromConfigText(text: string, source: string): Partial<Options> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${source}: not valid JSON (${(error as Error).message})`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`${source}: must be a JSON object of options`);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === '$schema') continue;
    const spec = SPEC_BY_KEY.get(key as keyof Options);
    if (!spec || !Object.hasOwn(DEFAULT_OPTIONS, key)) {
      const near = nearestOption(key);
      throw new ConfigError(
        `${source}: unknown option "${key}"${near ? ` (did you mean "${near.key}"?)` : ''}; the options are listed by --help and in spec/config.schema.json`,
      );
    }
    out[key] = parseOptionValue(spec, value, `${source}: ${key}`);
  }
  return out as Partial<Options>;
}

/** The JSON Schema of a config file, made from the options table (shipped as `spec/config.schema.json`). */
export function configSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = { $schema: { type: 'string' } };
  for (const spec of OPTION_SPECS) {
    const kind = spec.kind;
    const schema: Record<string, unknown> =
      kind.type === 'integer'
        ? { type: 'integer', minimum: kind.min, maximum: kind.max }
        : kind.type === 'enum'
          ? { type: 'string', enum: [...kind.values] }
          : kind.type === 'boolean'
            ? { type: 'boolean' }
            : { type: 'string', minLength: 1 };
    schema.description = `${spec.description} (flag ${spec.flag}, env ${spec.env})`;
    if (spec.default !== undefined) schema.default = spec.default;
    properties[spec.key] = schema;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://passportal-docs-fake.local/config.schema.json',
    title: 'passportal-docs-fake configuration file',
    description:
      'The options of the fake (passportal-fake.config.json); flags and environment variables win over it. Made from src/config.ts by scripts/config-schema.ts.',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}
