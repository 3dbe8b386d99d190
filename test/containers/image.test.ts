import { spawnSync } from 'node:child_process';
import { GenericContainer, getContainerRuntimeClient, Wait } from 'testcontainers';
import { describe, expect, inject, it } from 'vitest';

/**
 * The image as `docker run` meets it: its own HEALTHCHECK turns healthy, the smoke probe
 * (docker/probe.sh: a token, a list, the inspector's page and script, the docs' Swagger UI)
 * passes against it, and `docker stop` (SIGTERM, 10 s grace) ends it with exit status 0 long
 * before the grace runs out. Prints the times it measured (the README's container section
 * records a run).
 */

const image = inject('fakeImage');

describe.skipIf(!image)('the image', () => {
  it('reports healthy through its HEALTHCHECK and stops on SIGTERM with status 0', async () => {
    const client = await getContainerRuntimeClient();
    const size = (await client.container.dockerode.getImage(image).inspect()).Size;
    const t0 = performance.now();
    const container = await new GenericContainer(image)
      .withExposedPorts(4010)
      .withWaitStrategy(Wait.forHealthCheck())
      .withStartupTimeout(60_000)
      .start();
    const healthy = (performance.now() - t0) / 1000;
    const probe = spawnSync(
      'bash',
      ['docker/probe.sh', `http://${container.getHost()}:${container.getMappedPort(4010)}`],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(probe.stderr).toBe('');
    expect(probe.status).toBe(0);
    expect(probe.stdout).toContain('probe: inspector and docs ok');
    const t1 = performance.now();
    await container.stop({ timeout: 10_000, remove: false });
    const stop = (performance.now() - t1) / 1000;
    const handle = client.container.dockerode.getContainer(container.getId());
    try {
      const { State } = await handle.inspect();
      console.log(
        `image ${image}: ${(size / 1e6).toFixed(0)} MB; healthy after ${healthy.toFixed(2)} s; ` +
          `stop (SIGTERM, 10 s grace) ${stop.toFixed(2)} s, exit status ${State.ExitCode}`,
      );
      expect(State.ExitCode).toBe(0);
      expect(stop).toBeLessThan(5);
    } finally {
      await handle.remove({ force: true });
    }
  });
});
