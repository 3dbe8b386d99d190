import { bool, defaultsOf, int, type OptionSet, type OptionSpec, type OptionsOf, oneOf, path, readFrom, repeatable, type SettingKeyOf, secret, setting, specsOf, text } from './options/declare.js';

export type { OptionSpec } from './options/declare.js';
export { ConfigError } from './options/parse-value.js';

/**
 * Every option of the fake, declared once: kind and range, default, one description. Flags
 * (`--state-file`), environment variables (`STATE_FILE`), the config file, `createMockServer()`
 * and `--help`, docs/options.md and spec/config.schema.json are all made from these lines
 * (src/options/ reads them; its README says where). `setting(...)` marks those an instance may
 * change at run time (`PUT /__admin/settings`).
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** What the certificates cover when `tlsHosts` is not set: loopback and the vendor's host names. */
export const DEFAULT_TLS_HOSTS = 'localhost,127.0.0.1,::1,*.passportalmsp.com,*.mypasswordapp.com';

const network = {
  port: int(0, 65535, 4010, 'TCP port (0: any free port)'),
  host: text('127.0.0.1', 'interface to listen on'),
  corsOrigins: text('*', "allowed CORS origins: '*' or a comma-separated list"),
  adminToken: secret(text(undefined, 'bearer token protecting /__admin (health stays open)')),
  adminOrigins: text(undefined, "origins whose pages may call /__admin (comma-separated; default: only the fake's own pages)"),
  adminHosts: text(undefined, 'host names /__admin answers to besides loopback, IP literals and the machine name'),
  mcpHttp: bool(false, 'serve the admin API as an MCP server (Streamable HTTP) at /__admin/mcp, behind the admin token and origin rules (docs/mcp.md)'),
  tenants: readFrom('TENANTS_FILE', path("tenants file (JSON): each tenant's admin token (as its SHA-256) creates and administers its own sessions only, within its quotas; needs --admin-token")),
};

const tls = {
  httpsPort: int(0, 65535, undefined, 'HTTPS port serving the same app with certificates from a local CA (0: any free port); the HTTP port then also proxies the TLS hosts'),
  tlsHosts: text(DEFAULT_TLS_HOSTS, "host names the certificates cover and the proxy intercepts (comma-separated; '*.' any subdomain)"),
  tlsDir: path('folder keeping the generated CA and certificates (default: ~/.passportal-docs-fake/tls)'),
  tlsCaCert: path('CA certificate (PEM file) to sign with instead of a generated CA; needs --tls-ca-key'),
  tlsCaKey: path('private key (PEM file) of --tls-ca-cert'),
  proxyAuth: oneOf(
    ['optional', 'challenge'],
    'optional',
    "proxy credentials: optional (none: the root), or challenge (none: 407 Proxy-Authenticate: Basic, which .NET clients need before they send them; user 'root': the root)",
  ),
};

const state = {
  fixtures: path('fixture set: a JSON file or a folder of per-kind files (default: the bundled set)'),
  generate: int(0, 1_000_000, 0, 'documents to generate on top of the fixtures'),
  seed: int(0, 2 ** 31 - 1, 1, 'seed for generated documents'),
  stateFile: path("file keeping the root instance's state across restarts, written before each change is acknowledged (default: memory only)"),
  watch: bool(false, 'reload --fixtures within 2 s of a change to its file or folder, as PUT /__admin/fixtures would (a broken edit keeps the set in place and is logged)'),
  scenario: repeatable(text(undefined, 'scenario file(s) applied to the root at start and after each reset: JSON {name, ...parameters} or {name, steps} (repeat the flag, or separate with commas)')),
};

const dialect = {
  tokenTtlSeconds: setting(int(1, 31_536_000, 3300, 'access token lifetime in seconds')),
  hashEncoding: setting(oneOf(['hex', 'base64', 'any'], 'hex', 'x-hash encoding: hex, base64, or any (skip the check)')),
  defaultPageNum: setting(int(1, 9999, 1, 'pageNum when absent (1-based)')),
  maxResultsPerPage: setting(int(1, 100_000, 100, 'resultsPerPage cap (silently applied, as the live service does)')),
  unknownDetailKeys: setting(oneOf(['reject', 'accept'], 'reject', 'unknown detail keys: reject or accept')),
  successLiterals: setting(oneOf(['contract', 'boolean'], 'contract', 'success as the contract shows it, or always boolean')),
  errorSuccess: setting(oneOf(['boolean', 'string'], 'boolean', 'success of error bodies: boolean false, or the string "false"')),
  readShapedDetails: setting(oneOf(['accept', 'reject'], 'accept', 'detail entries sent as reads show them (null, string, array): store as sent, or reject')),
  latencyMs: setting(int(0, 60_000, 0, 'delay added to every API request (ms)')),
};

const limits = {
  bodyLimit: int(1, 1_073_741_824, 1_048_576, 'largest request body in bytes (413 above)'),
  maxQueryLength: int(16, 1_048_576, 8192, 'longest query string in characters (414 above)'),
  maxHeaderSize: int(1024, 1_048_576, 16_384, 'largest header block in bytes (431 above)'),
  headersTimeoutMs: int(100, 600_000, 10_000, 'time a client has to send its request headers (408 after)'),
  requestTimeoutMs: int(100, 3_600_000, 30_000, 'time a client has to send its whole request, body included (408 after)'),
  maxConnections: int(1, 100_000, 512, 'most connections open at once (then a new one takes the slot of an idle one, or is closed)'),
  shutdownDrainMs: int(0, 60_000, 5000, 'on SIGTERM, time requests in flight get to finish before connections close'),
  maxBatchItems: setting(int(1, 1_000_000, 1000, 'most items in one batch update (400 above)')),
  maxCreatedDocuments: setting(int(0, 10_000_000, 100_000, 'most documents an instance may create beyond its fixtures (400 above)')),
  memoryBudget: int(0, 1_099_511_627_776, 0, 'bytes of client-made data held: documents, journals, findings, tokens, fixture sets, bodies in flight (0: a fifth of the heap; 429 above)'),
};

const sessions = {
  sessionIdleSeconds: int(1, 31_536_000, 1800, 'idle sessions removed after this many seconds'),
  sessionBaggage: oneOf(['on', 'off'], 'on', 'the W3C baggage member passportal-fake-session=<id> routes a root-URL request to that session (off: ignored)'),
  maxSessions: int(0, 100_000, 100, 'most sessions at once (429 above)'),
  sessionFixturesBytes: int(0, 17_179_869_184, 268_435_456, 'bytes of fixture sets loaded through the admin API (sessions, loads) held together, as built (429 above)'),
};

const journal = {
  journalLimit: int(0, 1_000_000, 1000, 'requests kept in the journal'),
  journalBytes: int(65_536, 4_294_967_296, 33_554_432, 'bytes the journal of one instance may hold (oldest requests dropped first)'),
  journalBodyBytes: int(256, 67_108_864, 65_536, 'largest body the journal keeps whole (larger: size, SHA-256 and first bytes)'),
  validateResponses: setting(bool(false, 'check every response against the spec at run time')),
  logLevel: oneOf(LOG_LEVELS, 'info', 'log level'),
  logFormat: oneOf(['json', 'pretty'], 'json', 'log format: json lines, or pretty (the command prints pretty lines to a terminal unless told json)'),
};

const fleet = {
  fleetPeers: text(undefined, 'replicas of a fleet, each owning the sessions it creates: ordinal=base URL, comma-separated (0=http://fake-0.fake:4010,1=http://fake-1.fake:4010); docs/fleet.md'),
  fleetOrdinal: int(0, 9999, undefined, "this replica's ordinal in --fleet-peers (default: the number ending the host name, as a StatefulSet names its pods)"),
  fleetSecret: secret(text(undefined, 'secret shared by the replicas of a fleet; peer calls carry proof of it (needed with --fleet-peers)')),
};

/** The groups, in the order `--help` and docs/options.md show them, each with its heading. */
const GROUPS = { network, tls, state, dialect, limits, sessions, journal, fleet };

export const GROUP_TITLES: Record<keyof typeof GROUPS, string> = {
  network: 'Network and access',
  tls: 'HTTPS and the forward proxy',
  state: 'Data and state',
  dialect: 'Vendor dialect (where the documentation leaves room)',
  limits: 'Limits: sizes, times, connections, memory',
  sessions: 'Sessions',
  journal: 'Journal, logs and response checks',
  fleet: 'Fleet (replicas that own their sessions)',
};

// A group left out here is a compile error at OPTION_SPECS (its keys are not keys of Options).
const DECLARED = { ...network, ...tls, ...state, ...dialect, ...limits, ...sessions, ...journal, ...fleet };

/**
 * The one typed options object: flags, variables, the config file, the API and the admin API feed
 * it. An interface, so messages and hovers name it rather than spell out the declarations.
 */
export interface Options extends OptionsOf<typeof DECLARED> {}

export type SettingKey = SettingKeyOf<typeof DECLARED>;

/** The options a running instance (root or session) may change at run time. */
export type Settings = Pick<Options, SettingKey>;

export const OPTION_SPECS: ReadonlyArray<OptionSpec<keyof Options, keyof typeof GROUPS>> = specsOf(GROUPS);

export const DEFAULT_OPTIONS: Options = defaultsOf(DECLARED);

/** What the readers in `options/` read by: flags, variables, the config file, the API's options. */
export const OPTION_SET: OptionSet<Options> = { specs: OPTION_SPECS, defaults: DEFAULT_OPTIONS, groupTitles: GROUP_TITLES };

export const SETTING_KEYS = OPTION_SPECS.filter((spec) => spec.setting).map((spec) => spec.key as SettingKey);

export function pickSettings(options: Options): Settings {
  return Object.fromEntries(SETTING_KEYS.map((key) => [key, options[key]])) as Settings;
}
