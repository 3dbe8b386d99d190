import type { RequestListener } from 'node:http';
import { resolve } from 'node:path';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { markServed } from './compile-cache.js';
import {
  ConfigError,
  DEFAULT_OPTIONS,
  OPTION_SET,
  type Options,
  pickSettings,
  SETTING_KEYS,
  type Settings,
} from './config.js';
import { clientOperationIds } from './contract/operations.js';
import { createOperationValidators } from './contract/request-validator.js';
import { loadSpec } from './contract/spec-document.js';
import { loadFixtureInput } from './domain/fixtures/load-fixtures.js';
import { markIssuedTokens } from './domain/tokens.js';
import type { ApiKey, FixtureSet } from './domain/types.js';
import { drainingRefusal, drainReplica } from './fleet/drain.js';
import { fleetOf } from './fleet/fleet.js';
import { applyScenarioFiles } from './harness/controls/scenario-files.js';
import { watchFixtures } from './harness/instance/fixture-watch.js';
import { createInstance, type Instance, serverMemory } from './harness/instance/instance.js';
import { datasetOf, type InstanceControls } from './harness/instance/instance-controls.js';
import { ServerPowers, type SessionOptions } from './harness/instance/server-powers.js';
import { keepStateInFile } from './harness/persistence/kept-state.js';
import { markOwnKeys } from './harness/sessions/own-keys.js';
import { SessionRegistry, sessionPath } from './harness/sessions/sessions.js';
import { TenantRegistry } from './harness/tenants/tenants.js';
import { RunReports, runReportCombiner } from './harness/verdicts/run-reports.js';
import { createApp } from './http/app.js';
import { createAdminHandlers } from './http/handlers/admin-handlers.js';
import { createVendorHandlers } from './http/handlers/vendor-handlers.js';
import { createListeners } from './http/listeners.js';
import { type RequestState, stateOf } from './http/request-state.js';
import { createLogger } from './logger.js';
import { MemoryBudget } from './memory-budget.js';
import { resolveOptions } from './options/resolve.js';
import { ServerCertificates } from './tls/server-certificates.js';
import { parseTlsHosts } from './tls/tls-hosts.js';

export {
  type AdminClient,
  type AdminClientOptions,
  AdminError,
  createAdminClient,
  type RequestsQuery,
} from './client/admin-client.js';
export { ConfigError, OPTION_SPECS, type Options, type Settings } from './config.js';
export { defaultApiKey } from './domain/fixtures/default-keys.js';
export { FixtureError, type FixtureProblem } from './domain/fixtures/fixture-error.js';
export { computeHash } from './domain/tokens.js';
export type { ApiKey, Dataset, FixtureSet } from './domain/types.js';
export { ApiError, ERROR_KINDS, type Violation } from './errors.js';
export type {
  ExpectedViolationInput,
  ExpectedViolationView,
  UnmetExpectation,
} from './harness/controls/expected-violations.js';
export type { FaultInput, FaultView } from './harness/controls/faults.js';
export type { Har, HarEntry, HarFindings } from './harness/instance/har.js';
export type { InstanceControls } from './harness/instance/instance-controls.js';
export type { SessionOptions } from './harness/instance/server-powers.js';
export { BEHAVIOURS, type Behaviour, type BehaviourId } from './harness/verdicts/behaviours.js';
export type {
  JournalEntryView,
  JournalFilter,
  NoticeRecord,
  ViolationRecord,
} from './harness/verdicts/journal.js';
export { fakeMatchers, type MatcherResult } from './harness/verdicts/matchers.js';
export { ContractViolationError } from './harness/verdicts/no-violations.js';
export type { Report, ReportFormat } from './harness/verdicts/report.js';
export { NOTICE_CODES, NOTICE_KINDS, type Notice, type NoticeCode } from './notices.js';

export interface MockServerOptions extends Partial<Omit<Options, 'fixtures'>> {
  /** A fixture file or folder path, or a fixture set object; absent: the bundled default set. */
  fixtures?: string | FixtureSet;
  /** A logger to use instead of one built from logLevel/logFormat. */
  logger?: Logger;
  /** Another OpenAPI document to serve (for teams that extend the contract). */
  specPath?: string;
}

/** An isolated session of a MockServer, with the same controls as the server's root instance. */
export interface MockSession extends InstanceControls {
  readonly id: string;
  /**
   * Where the client under test finds the session: `<url>/sessions/{id}` when the server is
   * listening, otherwise the path prefix `/sessions/{id}` (for supertest on `mock.app`).
   */
  readonly baseUrl: string;
  readonly instance: Instance;
  /**
   * Its own API keys with their secrets, one per organization, when created with `keys: 'own'`
   * (a fixture load keeps them per organization; `state().apiKeys` lists them as they are now).
   */
  readonly keys: ApiKey[] | undefined;
  /** Removes the session; its URLs answer 404 and its own keys 401 from now on. */
  delete(): void;
}

export interface MockServer extends InstanceControls {
  /**
   * The app, not listening: a plain Node request listener (an Express app underneath), so the
   * public types need no Express types. Hand it to supertest or `http.createServer`.
   */
  readonly app: RequestListener;
  readonly options: Options;
  /** The root instance (state, tokens, clock, settings, journal, faults). */
  readonly root: Instance;
  /** What clients make the server hold, per kind (as `GET /__admin/health` reports it). */
  readonly memory: MemoryBudget;
  /** The server's sessions (also reachable through /__admin/sessions). */
  readonly sessions: SessionRegistry;
  readonly logger: Logger;
  /** Where the fixtures came from: a path, `inline`, or `default`. */
  readonly fixtureSource: string;
  /** The URL once listening. */
  url: string | undefined;
  /** The HTTPS URL once listening, when `httpsPort` is set. */
  httpsUrl: string | undefined;
  /**
   * HTTPS, when `httpsPort` is set: the CA certificate clients trust (also served at
   * `/__admin/tls/ca.pem`), where it is on disk, and whether this start generated it.
   */
  readonly tls: { caCertPem: string; caCertPath: string; generated: boolean } | undefined;
  /** Listens on the given port and host (defaults: the options'; port 0 picks a free one). */
  listen(port?: number, host?: string): Promise<string>;
  /**
   * Creates an isolated session (POST /__admin/sessions): from `fixtures` (object or path), or
   * from the root's reset point. Throws ApiError `tooManySessions` at the cap, `replicaDraining`
   * on a drained fleet replica, FixtureError for a bad set. With `{ keys: 'own' }` the session gets API keys of its own (one per organization,
   * random), and requests at the root URL that use them, or tokens issued to them, reach it.
   */
  session(fixtures?: string | FixtureSet, creation?: SessionOptions): Promise<MockSession>;
  /**
   * Drains this fleet replica (POST /__admin/fleet/drain): it creates no more sessions (503
   * `replicaDraining`), and serves the ones it owns. Throws ApiError `notInFleet` without
   * `fleetPeers`.
   */
  drain(): void;
  /**
   * Stops the session reaper, stops accepting connections, lets in-flight requests finish, then
   * closes idle ones.
   */
  close(): Promise<void>;
}

/** The settings this start was given (flag, variable, config file, option), which win over a state file's. */
function givenSettings(input: Partial<Options>, settings: Settings): Partial<Settings> {
  return Object.fromEntries(
    SETTING_KEYS.filter((key) => input[key] !== undefined).map((k) => [k, settings[k]]),
  );
}

/**
 * Creates an isolated fake: nothing is shared with any other server in the process. Composes the
 * parts: the root instance and sessions over one memory budget, the server's admin powers
 * (`harness/instance/server-powers.ts`), the app, the state file, the ports (`http/listeners.ts`).
 */
export async function createMockServer(input: MockServerOptions = {}): Promise<MockServer> {
  const { fixtures, logger: givenLogger, specPath, ...rest } = input;
  const options = resolveOptions(
    OPTION_SET,
    { ...rest, fixtures: typeof fixtures === 'string' ? fixtures : undefined } as Partial<Options>,
    DEFAULT_OPTIONS,
  );
  const logger = givenLogger ?? createLogger(options);
  const spec = loadSpec(specPath);
  const generation = { generate: options.generate, seed: options.seed };
  const { dataset, source } = await loadFixtureInput(fixtures ?? options.fixtures, generation, 'inline');
  const settings = pickSettings(options);
  // One budget for everything clients make this server hold, root and sessions alike.
  const budget = new MemoryBudget(options);
  const memory = serverMemory(budget);
  const root = createInstance(undefined, dataset, options, settings, memory);
  const operationIds = clientOperationIds(spec.document);
  const findingsLimit = options.journalLimit;
  // Sessions labelled with a run leave their reports to it when they end (within the budget).
  const runs = new RunReports({ operationIds, findingsLimit, budget });
  // Tenants: each with its own runs and its quota within the budget (read before anything listens).
  const tenants =
    options.tenants === undefined
      ? undefined
      : new TenantRegistry({
          file: options.tenants,
          adminToken: options.adminToken,
          budget,
          memory,
          operationIds,
          findingsLimit,
        });
  // A fleet replica: its session ids name it (ConfigError, before anything listens, for bad options).
  const fleet = fleetOf(options);
  if (fleet !== undefined) {
    // Own keys and tokens name the replica too, so any replica can route them at the root URL.
    markOwnKeys(fleet.ordinal);
    markIssuedTokens(fleet.tokenMark);
    // A run's report from every replica's share, combined and rendered here (docs/fleet.md).
    fleet.runReports = runReportCombiner(operationIds, findingsLimit);
  }
  const sessions = new SessionRegistry({
    newId: fleet === undefined ? undefined : () => fleet.newSessionId(),
    runs,
    runsOf: (owner) => tenants?.get(owner)?.runs,
    maxSessions: options.maxSessions,
    idleSeconds: options.sessionIdleSeconds,
    // Sessions start from the configured settings, whatever the root's were changed to since; a
    // tenant's count in its quota.
    createInstance: (id, sessionData, owner) =>
      createInstance(
        id,
        sessionData,
        options,
        settings,
        (owner === undefined ? undefined : tenants?.get(owner)?.memory) ?? memory,
      ),
  });
  const validators = createOperationValidators(spec.document);
  const powers = new ServerPowers({
    root,
    sessions,
    validators,
    operationIds,
    runs,
    memory: budget,
    tenants,
    adminToken: options.adminToken,
    // A drained fleet replica creates no more sessions (503 replicaDraining with Retry-After).
    creationRefusal: () => (fleet?.draining === true ? drainingRefusal(fleet) : undefined),
  });
  if (options.scenario !== undefined) applyScenarioFiles(options.scenario, root, powers.checks);
  const fixturesPath = typeof fixtures === 'string' ? fixtures : options.fixtures;
  if (options.watch && fixturesPath === undefined)
    throw new ConfigError('option --watch needs --fixtures (the file or folder to watch)');
  // HTTPS: the CA and server certificates, opened before anything listens, so bad TLS options
  // stop the start (ConfigError naming the option).
  const hosts = parseTlsHosts(options.tlsHosts);
  const certificates = options.httpsPort === undefined ? undefined : await ServerCertificates.open(options);
  if (certificates?.ca.warning !== undefined)
    logger.warn({ tlsCa: certificates.ca.certPath }, certificates.ca.warning);
  // The MCP endpoint (and the SDK) load only when asked for; its tool calls go to the port listened on.
  const mcp = options.mcpHttp
    ? (await import('./mcp/http-endpoint.js')).createMcpEndpoint(spec, () => mock.url)
    : undefined;
  const served = createApp({
    handlers: {
      vendor: createVendorHandlers(spec.document),
      admin: createAdminHandlers(powers, fleet),
    },
    options,
    spec,
    powers,
    logger,
    validators,
    fixtureSource: source,
    tlsCaPem: certificates?.ca.certPem,
    memory: budget,
    mcp,
    fleet,
  });
  // With a state file, every acknowledged change is on disk first; without one, requests take
  // no extra step.
  const kept =
    options.stateFile === undefined
      ? undefined
      : keepStateInFile(options.stateFile, {
          root,
          app: served,
          given: givenSettings(rest, settings),
          logger,
          sessions,
          checks: powers.checks,
          // The request's state, once the app has put it on the response (undefined before).
          servedBy: (res) => (stateOf(res as Response) as RequestState | undefined)?.instance,
        });
  const app = kept?.app ?? served;
  const listeners = createListeners({
    options,
    app,
    sessions,
    certificates,
    hosts,
    errorSuccess: () => root.fake.settings.errorSuccess,
    fleet,
  });

  const mock: MockServer = {
    ...powers.controls(root),
    app,
    options,
    root,
    memory: budget,
    sessions,
    logger,
    fixtureSource: source,
    url: undefined,
    httpsUrl: undefined,
    tls:
      certificates === undefined
        ? undefined
        : {
            caCertPem: certificates.ca.certPem,
            caCertPath: certificates.ca.certPath,
            generated: certificates.ca.generated,
          },
    async listen(port = options.port, host = options.host) {
      const addresses = await listeners.listen(port, host);
      mock.url = addresses.url;
      mock.httpsUrl = addresses.httpsUrl;
      return addresses.url;
    },
    drain() {
      drainReplica(fleet);
    },
    async session(sessionFixtures, creation) {
      const created = await powers.openSession(
        sessionFixtures === undefined ? undefined : () => datasetOf(sessionFixtures),
        creation,
      );
      const path = sessionPath(created.id);
      return {
        ...powers.controls(created.instance),
        id: created.id,
        keys: created.instance.ownKeys?.list(),
        baseUrl: mock.url === undefined ? path : `${mock.url}${path}`,
        instance: created.instance,
        delete: () => {
          sessions.delete(created.id);
        },
      };
    },
    async close() {
      watcher?.close();
      sessions.stop();
      mock.url = undefined;
      mock.httpsUrl = undefined;
      await listeners.close();
      await kept?.file.closeAsync();
    },
  };
  const watcher =
    options.watch && fixturesPath !== undefined
      ? watchFixtures(resolve(fixturesPath), root, logger, generation)
      : undefined;
  // A process that serves keeps the code cache of its start (dist/compile-cache.js).
  markServed();
  return mock;
}
