import { readFileSync } from 'node:fs';
import { getContainerRuntimeClient, Network, type StartedNetwork } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AdminError, type FixtureSet } from '../../src/index.js';
import {
  PassportalFakeContainer,
  type StartedPassportalFakeContainer,
} from '../../src/testcontainers/index.js';
import { requestToken } from '../support/request-token.js';
import { ACME_KEY, SMALL_SET } from '../support/test-server.js';

/**
 * The Testcontainers module against a real engine: fixtures from a file, a folder and an object,
 * options as environment variables, the admin client (with the admin token), and a graceful stop.
 */

const image = inject('fakeImage');
const SUITE_FOLDER = new URL('../../examples/fixtures/suite', import.meta.url).pathname;

describe.skipIf(!image)('PassportalFakeContainer', () => {
  let fake: StartedPassportalFakeContainer;
  let stopped = false;

  beforeAll(async () => {
    fake = await new PassportalFakeContainer(image)
      .withFixtures(SMALL_SET)
      .withOptions({ adminToken: 'container-secret', tokenTtlSeconds: 60, logLevel: 'warn' })
      .start();
  });
  afterAll(async () => {
    if (fake && !stopped) await fake.stop();
  });

  it('knows its base URL and serves the fixture file it was given', async () => {
    expect(fake.getBaseUrl()).toMatch(/^http:\/\/[^/]+:\d+$/);
    const health = await fake.admin.health();
    const set = JSON.parse(readFileSync(SMALL_SET, 'utf8')) as FixtureSet;
    expect(health).toMatchObject({ status: 'ok', session: null, documents: set.documents?.length });
    // The root's health also reports the memory budget's use per kind.
    expect(health.memory?.kinds.documents.used).toBe(0);
  });

  it('passes options as environment variables: token lifetime and the admin token', async () => {
    const res = await requestToken(fake.getBaseUrl(), ACME_KEY);
    expect(((await res.json()) as { expiry_time: number }).expiry_time).toBeGreaterThan(0);
    expect((await fake.admin.settings()).tokenTtlSeconds).toBe(60);
    // Without the token the admin API refuses: the module's client carries it.
    const open = await fetch(`${fake.getBaseUrl()}/__admin/state`);
    expect(open.status).toBe(401);
  });

  it('drives sessions through its admin client, refusals as AdminError with the vendor body', async () => {
    const session = await fake.admin.createSession();
    expect(session.baseUrl.startsWith(fake.getBaseUrl())).toBe(true);
    expect((await session.admin.health()).session).toBe(session.id);
    const refusal = await fake.admin.addFault({ status: 42 } as never).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AdminError);
    expect(refusal).toMatchObject({ status: 400, body: { success: false } });
    await fake.admin.deleteSession(session.id);
  });

  it('loads a fixture folder and a fixture object', async () => {
    const fromFolder = await new PassportalFakeContainer(image).withFixtures(SUITE_FOLDER).start();
    const fromObject = await new PassportalFakeContainer(image)
      .withFixtures({
        organizations: [{ id: 1, name: 'Only Org' }],
        clients: [{ id: 10, organizationId: 1, name: 'Only Client' }],
        documents: [],
      })
      .start();
    try {
      expect((await fromFolder.admin.health()).documents).toBe(7);
      expect((await fromObject.admin.state()).organizations).toHaveLength(1);
    } finally {
      await Promise.all([fromFolder.stop(), fromObject.stop()]);
    }
  });

  it('keeps state in a file under /state across a restart of the container', async () => {
    const withState = await new PassportalFakeContainer(image)
      .withFixtures(SMALL_SET)
      .withOptions({ stateFile: '/state/fake.json' })
      .start();
    try {
      await withState.admin.settings({ tokenTtlSeconds: 1234 });
      await withState.restart({ timeout: 10_000 });
      expect((await withState.admin.settings()).tokenTtlSeconds).toBe(1234);
    } finally {
      await withState.stop();
    }
  });

  it('stops gracefully: SIGTERM, exit status 0, well within the timeout', async () => {
    const started = performance.now();
    await fake.stop({ remove: false });
    stopped = true;
    const seconds = (performance.now() - started) / 1000;
    console.log(`PassportalFakeContainer.stop(): ${seconds.toFixed(2)} s`);
    const container = (await getContainerRuntimeClient()).container.dockerode.getContainer(fake.getId());
    try {
      expect((await container.inspect()).State.ExitCode).toBe(0);
      expect(seconds).toBeLessThan(5);
    } finally {
      await container.remove({ force: true });
    }
  });
});

describe.skipIf(!image)('PassportalFakeContainer.withTls()', () => {
  let fake: StartedPassportalFakeContainer;
  let network: StartedNetwork;

  beforeAll(async () => {
    // Network aliases live on a network of the test's own, as in a suite with client containers.
    network = await new Network().start();
    fake = await new PassportalFakeContainer(image)
      .withFixtures(SMALL_SET)
      .withNetwork(network)
      .withTls()
      .start();
  }, 120_000);
  afterAll(async () => {
    if (fake) await fake.stop();
    if (network) await network.stop();
  });

  it('serves HTTPS verified against its CA, and a proxy that keeps the vendor URL, per session', async () => {
    const { Agent, ProxyAgent, fetch: undiciFetch } = await import('undici');
    const ca = await fake.getCaCertificate();
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(ca).not.toContain('PRIVATE KEY');
    const direct = await undiciFetch(`${fake.getHttpsUrl()}/__admin/health`, {
      // The engine's host may be an address of its own (a bridge gateway): the name checked is localhost.
      dispatcher: new Agent({ connect: { ca, servername: 'localhost' } }),
    });
    expect(await direct.json()).toMatchObject({ status: 'ok', session: null });
    const session = await fake.admin.createSession();
    const proxied = await undiciFetch('https://us-clover.passportalmsp.com/__admin/health', {
      dispatcher: new ProxyAgent({ uri: fake.getProxyUrl(session.id), requestTls: { ca } }),
    });
    expect(await proxied.json()).toMatchObject({ status: 'ok', session: session.id });
    // Without the CA the same client refuses the fake.
    const untrusted = await undiciFetch('https://us-clover.passportalmsp.com/__admin/health', {
      dispatcher: new ProxyAgent({ uri: fake.getProxyUrl() }),
    }).catch((error: unknown) => error);
    expect(untrusted).toBeInstanceOf(Error);
  });
});
