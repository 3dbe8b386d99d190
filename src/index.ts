import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { markServed } from './compile-cache.js';
import { ConfigError, DEFAULT_OPTIONS, type Options, pickSettings, SETTING_KEYS } from './config.js';
import { clientOperationIds } from './contract/operations.js';
import { createOperationValidators } from './contract/request-validator.js';
import { type LoadedSpec, loadSpec } from './contract/spec-document.js';
import { buildDataset, loadFixtureSource } from './domain/fixtures/load-fixtures.js';
import type { ApiKey, Dataset, FixtureSet } from './domain/types.js';
import { watchFixtures } from './harness/fixture-watch.js';
import { saveAfterChanges } from './harness/hold-until-saved.js';
import { createInstance, type Instance, serverMemory } from './harness/instance.js';
import {
  type ControlChecks,
  controlsOf,
  type InstanceControls,
  sessionDataset,
} from './harness/instance-controls.js';
import { RunReports } from './harness/run-reports.js';
import { applyScenarioFiles } from './harness/scenario-files.js';
import { stepChecksOf } from './harness/scenario-steps.js';
import { SessionRegistry, sessionPath } from './harness/sessions.js';
import { StateFile } from './harness/state-file.js';
import { createApp, serverClasses } from './http/app.js';
import { answerClientError, answerConnect, answerExpectation } from './http/client-error.js';
import { ConnectionGuard } from './http/connection-guard.js';
import { createForwardProxy } from './http/forward-proxy.js';
import { createLogger } from './logger.js';
import { MemoryBudget } from './memory-budget.js';
import { resolveOptions } from './options/resolve.js';
import { ServerCertificates } from './tls/server-certificates.js';
import { parseTlsHosts } from './tls/tls-hosts.js';

// node:https and node:tls load only when HTTPS is on: a start without it does not pay for them.
const require = createRequire(import.meta.url);

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
export { BEHAVIOURS, type Behaviour } from './harness/behaviours.js';
export type {
  ExpectedViolationInput,
  ExpectedViolationView,
  UnmetExpectation,
} from './harness/expected-violations.js';
export type { FaultInput, FaultView } from './harness/faults.js';
export type { InstanceControls } from './harness/instance-controls.js';
export type { JournalEntryView, JournalFilter, NoticeRecord, ViolationRecord } from './harness/journal.js';
export { fakeMatchers, type MatcherResult } from './harness/matchers.js';
export { ContractViolationError } from './harness/no-violations.js';
export type { Report, ReportFormat } from './harness/report.js';
export { NOTICE_CODES, NOTICE_KINDS, type Notice, type NoticeCode } from './notices.js';

export interface MockServerOptions extends Partial<Omit<Options, 'fixtures'>> {
  /** A fixture file or folder path, or a fixture set object; absent: the bundled default set. */
  fixtures?: string | FixtureSet;
  /** A logger to use instead of one built from logLevel/logFormat. */
  logger?: Logger;
  /** Another OpenAPI document to serve (for teams that extend the contract). */
  specPath?: string;
}

/** How `MockServer.session` creates a session (as the body of POST /__admin/sessions). */
export interface SessionOptions {
  /** False: never removed for being idle. */
  expires?: boolean;
  /** `own`: API keys of its own, which reach the session at the root URL too; `fixtures` (default): the set's keys. */
  keys?: 'fixtures' | 'own';
  /**
   * A run label: the root's `report({ run })` reports every session of the run together, those
   * already deleted included (1-128 characters of letters, digits and `._:@/-`).
   */
  run?: string;
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
   * from the root's reset point. Throws ApiError `tooManySessions` at the cap, FixtureError for
   * a bad set. With `{ keys: 'own' }` the session gets API keys of its own (one per organization,
   * random), and requests at the root URL that use them, or tokens issued to them, reach it.
   */
  session(fixtures?: string | FixtureSet, creation?: SessionOptions): Promise<MockSession>;
  /**
   * Stops the session reaper, stops accepting connections, lets in-flight requests finish, then
   * closes idle ones.
   */
  close(): Promise<void>;
}

async function loadDataset(options: Options, fixtures: string | FixtureSet | undefined) {
  const generation = { generate: options.generate, seed: options.seed };
  if (fixtures !== undefined && typeof fixtures === 'object') {
    return { dataset: buildDataset(fixtures, 'inline', generation) as Dataset, source: 'inline' };
  }
  return loadFixtureSource(fixtures ?? options.fixtures, generation);
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Creates an isolated fake: nothing is shared with any other server in the process. */
export async function createMockServer(input: MockServerOptions = {}): Promise<MockServer> {
  const { fixtures, logger: givenLogger, specPath, ...rest } = input;
  const options = resolveOptions(
    { ...rest, fixtures: typeof fixtures === 'string' ? fixtures : undefined } as Partial<Options>,
    DEFAULT_OPTIONS,
  );
  const logger = givenLogger ?? createLogger(options);
  const spec: LoadedSpec = loadSpec(specPath);
  const { dataset, source } = await loadDataset(options, fixtures);
  const settings = pickSettings(options);
  // One budget for everything clients make this server hold, root and sessions alike.
  const memory = serverMemory(new MemoryBudget(options));
  const root = createInstance(undefined, dataset, options, settings, memory);
  const operationIds = clientOperationIds(spec.document);
  // Sessions labelled with a run leave their reports to it when they end (within the budget).
  const runs = new RunReports({ operationIds, findingsLimit: options.journalLimit, budget: memory.budget });
  const sessions = new SessionRegistry({
    runs,
    maxSessions: options.maxSessions,
    idleSeconds: options.sessionIdleSeconds,
    // Sessions start from the configured settings, whatever the root's were changed to since.
    createInstance: (id, sessionData) => createInstance(id, sessionData, options, settings, memory),
  });
  const validators = createOperationValidators(spec.document);
  const checks: ControlChecks = {
    ...stepChecksOf(validators),
    scenarioInput: validators.jsonBody('applyScenario') as ControlChecks['scenarioInput'],
    expectedViolationInput: validators.jsonBody('createExpectedViolation') as NonNullable<
      ControlChecks['expectedViolationInput']
    >,
    operationIds,
  };
  if (options.scenario !== undefined) applyScenarioFiles(options.scenario, root, checks);
  const fixturesPath = typeof fixtures === 'string' ? fixtures : options.fixtures;
  if (options.watch && fixturesPath === undefined)
    throw new ConfigError('option --watch needs --fixtures (the file or folder to watch)');
  // HTTPS: the CA and server certificates, opened before anything listens, so bad TLS options
  // stop the start (ConfigError naming the option).
  const hosts = parseTlsHosts(options.tlsHosts);
  const certificates = options.httpsPort === undefined ? undefined : await ServerCertificates.open(options);
  if (certificates?.ca.warning !== undefined)
    logger.warn({ tlsCa: certificates.ca.certPath }, certificates.ca.warning);
  const expressApp = createApp({
    options,
    spec,
    root,
    sessions,
    logger,
    validators,
    fixtureSource: source,
    tlsCaPem: certificates?.ca.certPem,
    memory: memory.budget,
  });
  // With a state file: the root's state read back from it (or written first), then saved after
  // every change before it is acknowledged. Without one, requests take no extra step.
  let app: RequestListener = expressApp;
  let stateFile: StateFile | undefined;
  if (options.stateFile !== undefined) {
    const file = new StateFile(options.stateFile, {
      onCompactionError: (error) =>
        logger.warn({ err: error, stateFile: file.path }, 'state file not compacted'),
    });
    stateFile = file;
    const restored = file.open(root);
    // Settings given at this start (flag, variable, config file, option) win over those restored.
    const given = SETTING_KEYS.filter((key) => rest[key] !== undefined);
    if (restored && given.length > 0) {
      root.fake.settings = {
        ...root.fake.settings,
        ...Object.fromEntries(given.map((k) => [k, settings[k]])),
      };
      file.commit();
    }
    logger.info({ stateFile: file.path, restored, settingsGiven: given }, 'state kept in a file');
    app = saveAfterChanges(
      expressApp,
      () => file.commit(),
      (error) => logger.error({ err: error, stateFile: file.path }, 'state file not written'),
      () => root.fake.settings.errorSuccess,
    );
  }
  let server: Server | undefined;
  let httpsServer: Server | undefined;
  const { Request, Response } = serverClasses();
  const serverOptions: ServerOptions = {
    // Requests and responses born with Express's helpers (http/app.ts).
    IncomingMessage: Request,
    ServerResponse: Response,
    maxHeaderSize: options.maxHeaderSize,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeout: Math.min(options.headersTimeoutMs, options.requestTimeoutMs),
    requestTimeout: options.requestTimeoutMs,
    // How often Node checks those two timeouts.
    connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs),
  };
  const answerEarly = (s: Server): Server => {
    s.on('clientError', answerClientError);
    s.on('checkExpectation', answerExpectation);
    return s;
  };
  // The requests inside the proxy's CONNECT tunnels (their TLS ended in this process) are served
  // by this server, which never listens.
  const tunnels = answerEarly(createServer(serverOptions));
  const proxy = createForwardProxy(app, tunnels, {
    hosts,
    sessions,
    certificates,
    challenge: options.proxyAuth === 'challenge',
    errorSuccess: () => root.fake.settings.errorSuccess,
  });
  const listenOn = (s: Server, port: number, host: string): Promise<number> =>
    new Promise((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, host, () => {
        s.off('error', reject);
        resolve((s.address() as AddressInfo).port);
      });
    });
  const closeServer = (s: Server | undefined): Promise<void> => {
    if (!s) return Promise.resolve();
    return new Promise((resolve) => {
      // A keep-alive connection turns idle once its request in flight is answered: sweep until
      // none is left, so a client's open connection never holds the shutdown up.
      const sweep = setInterval(() => {
        s.closeIdleConnections();
        tunnels.closeIdleConnections();
      }, 20).unref();
      const force = setTimeout(() => {
        s.closeAllConnections();
        tunnels.closeAllConnections();
      }, options.shutdownDrainMs).unref();
      s.close(() => {
        clearInterval(sweep);
        clearTimeout(force);
        resolve();
      });
      s.closeIdleConnections();
      tunnels.closeIdleConnections();
    });
  };

  const mock: MockServer = {
    ...controlsOf(root, { ...checks, runs }, memory.budget),
    app,
    options,
    root,
    memory: memory.budget,
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
      const s = answerEarly(createServer(serverOptions, proxy.requests));
      // Not Node's maxConnections: it refuses the newcomer even when silent sockets hold every
      // slot. One pool for both ports: a flood on one cannot lock clients out of the other.
      const guard = new ConnectionGuard(options);
      guard.watch(s);
      s.on('connect', certificates === undefined ? answerConnect : proxy.connect);
      const bound = await listenOn(s, port, host);
      server = s;
      // Never listening itself, it still tracks its connections (timeouts, closing) from here on.
      tunnels.emit('listening');
      mock.url = `http://${hostForUrl(host)}:${bound}`;
      if (certificates !== undefined && options.httpsPort !== undefined) {
        const https = require('node:https') as typeof import('node:https');
        const t = answerEarly(
          https.createServer(
            {
              ...serverOptions,
              ...certificates.serverOptions(),
              // A connection that has not finished its TLS handshake is closed as one that has
              // not sent its headers would be (Node's default is 120 s).
              handshakeTimeout: options.headersTimeoutMs,
            },
            app,
          ),
        );
        guard.watchTls(t);
        try {
          const boundTls = await listenOn(t, options.httpsPort, host);
          httpsServer = t;
          mock.httpsUrl = `https://${hostForUrl(host)}:${boundTls}`;
        } catch (error) {
          await closeServer(s);
          server = undefined;
          mock.url = undefined;
          throw error;
        }
      }
      return mock.url;
    },
    async session(fixtures, creation = {}) {
      sessions.assertRoom();
      const created = sessions.create(await sessionDataset(fixtures, () => root.fake.resetPoint()), {
        ownFixtures: fixtures !== undefined,
        expires: creation.expires,
        ownKeys: creation.keys === 'own',
        run: creation.run,
      });
      const path = sessionPath(created.id);
      return {
        ...controlsOf(created.instance, checks),
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
      const s = server;
      const t = httpsServer;
      server = undefined;
      httpsServer = undefined;
      mock.url = undefined;
      mock.httpsUrl = undefined;
      await Promise.all([closeServer(s), closeServer(t)]);
      tunnels.close(() => undefined);
      await stateFile?.closeAsync();
    },
  };
  const watcher =
    options.watch && fixturesPath !== undefined
      ? watchFixtures(resolve(fixturesPath), root, logger, { generate: options.generate, seed: options.seed })
      : undefined;
  // A process that serves keeps the code cache of its start (dist/compile-cache.js).
  markServed();
  return mock;
}
