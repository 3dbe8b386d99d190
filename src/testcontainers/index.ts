import { statSync } from 'node:fs';
import { join } from 'node:path';
import {
  AbstractStartedContainer,
  GenericContainer,
  type StartedTestContainer,
  type StopOptions,
  type StoppedTestContainer,
  Wait,
} from 'testcontainers';
import { type AdminClient, createAdminClient } from '../client/admin-client.js';
import { OPTION_SPECS, type Options } from '../config.js';
import type { FixtureSet } from '../domain/types.js';
import { PACKAGE_ROOT, PACKAGE_VERSION } from '../package-root.js';

/**
 * The fake as a Testcontainers module (`passportal-docs-fake/testcontainers`), shaped like the
 * modules users know (WireMock's, Microcks'): a `GenericContainer` to configure, and a started
 * container that knows its base URL and carries a typed admin client.
 *
 * ```ts
 * const fake = await new PassportalFakeContainer().withFixtures('examples/fixtures/suite').start();
 * const session = await fake.admin.createSession();   // the client under test gets session.baseUrl
 * await fake.stop();
 * ```
 *
 * The image: `passportal-docs-fake:<package version>` unless another is named. Nothing is
 * published to a registry, so build it once with `PassportalFakeContainer.buildImage()` (from
 * the installed package, or from a checkout of the repository) or `docker build`.
 */

/** The port the image listens on. */
export const PASSPORTAL_FAKE_PORT = 4010;
/** The image's HTTPS port (`HTTPS_PORT`; the HTTP port is then also the proxy for the vendor's hosts). */
export const PASSPORTAL_FAKE_HTTPS_PORT = 4443;
/** The vendor host names `withTls()` gives the container on its network unless told others. */
export const VENDOR_HOST_ALIASES = ['us-clover.passportalmsp.com', 'mycompany.mypasswordapp.com'];

export interface TlsContainerOptions {
  /**
   * Network aliases the container answers to on its network (needs `withNetwork()`), so a client
   * container calls `https://us-clover.passportalmsp.com` unchanged. Default: VENDOR_HOST_ALIASES.
   * With aliases the fake serves HTTPS on 443 as well as its HTTP port (the `node` user may bind it
   * through the container's `net.ipv4.ip_unprivileged_port_start` sysctl, set here).
   */
  aliases?: string[];
  /** Host names the certificates cover and the proxy intercepts (`TLS_HOSTS`); default: the fake's. */
  hosts?: string[];
  /** A CA of your own (PEM files on this machine), copied into the container, instead of one generated there. */
  caCert?: string;
  caKey?: string;
}
/** The image the container starts unless the constructor names another. */
export const PASSPORTAL_FAKE_IMAGE = `passportal-docs-fake:${PACKAGE_VERSION}`;

/** Options as `createMockServer()` takes them; each is passed as its environment variable. */
export type PassportalFakeOptions = Partial<Omit<Options, 'fixtures' | 'port' | 'host'>>;

export interface BuildImageOptions {
  /** The image name to tag (default `passportal-docs-fake:<version>`). */
  tag?: string;
  /**
   * The build context: a checkout of the repository (its `Dockerfile` builds from source), or an
   * installed package folder (its `docker/package.Dockerfile` copies the built code and installs
   * the production dependencies). Default: this package's own folder.
   */
  context?: string;
  /** Build arguments, e.g. `{ NODE_IMAGE: 'node:22-bookworm-slim' }`. */
  buildArgs?: Record<string, string>;
}

const ENV_OF = new Map<string, string>(OPTION_SPECS.map((spec) => [spec.key, spec.env]));

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export class PassportalFakeContainer extends GenericContainer {
  private adminToken: string | undefined;
  private httpsPort = PASSPORTAL_FAKE_HTTPS_PORT;

  /** @param image default `passportal-docs-fake:<package version>` */
  constructor(image: string = PASSPORTAL_FAKE_IMAGE) {
    super(image);
    this.withExposedPorts(PASSPORTAL_FAKE_PORT, PASSPORTAL_FAKE_HTTPS_PORT)
      .withEnvironment({ LOG_LEVEL: 'warn' })
      .withWaitStrategy(Wait.forHttp('/__admin/health', PASSPORTAL_FAKE_PORT).forStatusCode(200))
      .withStartupTimeout(60_000);
  }

  /**
   * Builds the image (once; later builds reuse the engine's layer cache) and returns its name.
   * From a checkout (a `Dockerfile` at the root of `context`) it builds from source; from an
   * installed package it uses the package's `docker/package.Dockerfile`.
   */
  static async buildImage(options: BuildImageOptions = {}): Promise<string> {
    const tag = options.tag ?? PASSPORTAL_FAKE_IMAGE;
    const context = options.context ?? PACKAGE_ROOT;
    const dockerfile = isFile(join(context, 'Dockerfile')) ? 'Dockerfile' : 'docker/package.Dockerfile';
    let builder = GenericContainer.fromDockerfile(context, dockerfile);
    if (options.buildArgs) builder = builder.withBuildArgs(options.buildArgs);
    await builder.build(tag, { deleteOnExit: false });
    return tag;
  }

  /**
   * The fixture set the fake loads instead of the bundled one: a JSON file, a folder of per-kind
   * files (both copied into the container, so remote engines work too), or a fixture set object.
   */
  withFixtures(fixtures: string | FixtureSet): this {
    if (typeof fixtures === 'object') {
      return this.withCopyContentToContainer([
        { content: JSON.stringify(fixtures), target: '/fixtures', mode: 0o644 },
      ]);
    }
    if (isDirectory(fixtures)) {
      return this.withCopyDirectoriesToContainer([{ source: fixtures, target: '/fixtures', mode: 0o755 }]);
    }
    if (!isFile(fixtures)) throw new Error(`withFixtures: ${fixtures} is neither a file nor a folder`);
    return this.withCopyFilesToContainer([{ source: fixtures, target: '/fixtures', mode: 0o644 }]);
  }

  /**
   * Options by the names `createMockServer()` takes (`{ tokenTtlSeconds: 60, adminToken: 's' }`),
   * passed as the environment variables of the options table. The admin client of the started
   * container uses `adminToken` when given.
   */
  withOptions(options: PassportalFakeOptions): this {
    const environment: Record<string, string> = {};
    for (const [key, value] of Object.entries(options)) {
      if (value === undefined) continue;
      const env = ENV_OF.get(key);
      if (env === undefined || key === 'port' || key === 'host' || key === 'fixtures') {
        throw new Error(`withOptions: ${key} is not an option the container takes`);
      }
      environment[env] = String(value);
      if (key === 'adminToken') this.adminToken = String(value);
    }
    return this.withEnvironment(environment);
  }

  /**
   * HTTPS as the vendor's hosts: network aliases for them, HTTPS on 443 inside the network (the
   * mapped port of 4443 from the host), and optionally a CA of your own. The started container
   * gives the CA certificate, the HTTPS URL and proxy URLs (per session) for clients on the host.
   */
  withTls(options: TlsContainerOptions = {}): this {
    if ((options.caCert === undefined) !== (options.caKey === undefined)) {
      throw new Error('withTls: caCert and caKey go together');
    }
    const aliases = options.aliases ?? VENDOR_HOST_ALIASES;
    const environment: Record<string, string> = {};
    if (options.hosts !== undefined) environment.TLS_HOSTS = options.hosts.join(',');
    if (options.caCert !== undefined && options.caKey !== undefined) {
      this.withCopyFilesToContainer([
        { source: options.caCert, target: '/tls-ca/ca.pem', mode: 0o644 },
        { source: options.caKey, target: '/tls-ca/ca-key.pem', mode: 0o644 },
      ]);
      environment.TLS_CA_CERT = '/tls-ca/ca.pem';
      environment.TLS_CA_KEY = '/tls-ca/ca-key.pem';
    }
    if (aliases.length > 0) {
      // HTTPS on 443, which the URLs of the vendor's hosts imply; the `node` user may bind it once
      // the container's unprivileged port range starts at 0.
      environment.HTTPS_PORT = '443';
      this.httpsPort = 443;
      this.withExposedPorts(443).withNetworkAliases(...aliases);
      this.hostConfig.Sysctls = { ...this.hostConfig.Sysctls, 'net.ipv4.ip_unprivileged_port_start': '0' };
    }
    return this.withEnvironment(environment);
  }

  override async start(): Promise<StartedPassportalFakeContainer> {
    return new StartedPassportalFakeContainer(await super.start(), this.adminToken, this.httpsPort);
  }
}

export class StartedPassportalFakeContainer extends AbstractStartedContainer {
  readonly #adminToken: string | undefined;
  readonly #httpsPort: number;
  #admin: { url: string; client: AdminClient } | undefined;

  constructor(started: StartedTestContainer, adminToken?: string, httpsPort = PASSPORTAL_FAKE_HTTPS_PORT) {
    super(started);
    this.#adminToken = adminToken;
    this.#httpsPort = httpsPort;
  }

  /**
   * The fake over HTTPS as the host reaches it, e.g. `https://localhost:32769`. Certificates cover
   * `localhost` and loopback addresses: where the engine's host is another address (a bridge
   * gateway, a remote engine), connect with the server name `localhost`, or use `getProxyUrl()`.
   */
  getHttpsUrl(): string {
    return `https://${this.getHost()}:${this.getMappedPort(this.#httpsPort)}`;
  }

  /**
   * The proxy for clients on the host that keep the vendor's URLs: `HTTPS_PROXY=<this>`. With a
   * session id, every request through it goes to that session (the id is the proxy user; the
   * password is ignored, and there because some clients send credentials only with one).
   */
  getProxyUrl(sessionId?: string): string {
    const user = sessionId === undefined ? '' : `${encodeURIComponent(sessionId)}:session@`;
    return `http://${user}${this.getHost()}:${this.getMappedPort(PASSPORTAL_FAKE_PORT)}`;
  }

  /** The CA certificate (PEM) the fake's certificates are signed with, for the client's trust settings. */
  async getCaCertificate(): Promise<string> {
    const res = await fetch(`${this.getBaseUrl()}/__admin/tls/ca.pem`);
    if (!res.ok) throw new Error(`GET /__admin/tls/ca.pem: ${res.status} ${await res.text()}`);
    return res.text();
  }

  /**
   * The fake's root URL as the host reaches it, e.g. `http://localhost:32768` (no trailing slash);
   * read again after a restart, which may map another port.
   */
  getBaseUrl(): string {
    return `http://${this.getHost()}:${this.getMappedPort(PASSPORTAL_FAKE_PORT)}`;
  }

  /** The typed admin client of the root instance (sessions, reset, load, journal, faults, clock, ...). */
  get admin(): AdminClient {
    const url = this.getBaseUrl();
    if (this.#admin?.url !== url) {
      this.#admin = { url, client: createAdminClient(url, { adminToken: this.#adminToken }) };
    }
    return this.#admin.client;
  }

  /**
   * Stops the container. The fake finishes requests in flight and exits on SIGTERM in well under a
   * second, so the default allows it 10 s (Testcontainers' own default of 0 sends SIGKILL at once).
   */
  override stop(options: Partial<StopOptions> = {}): Promise<StoppedTestContainer> {
    return super.stop({ timeout: 10_000, ...options });
  }
}
