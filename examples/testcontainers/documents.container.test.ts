/**
 * The integration suite against the Docker image, started with Testcontainers.
 *
 * - Image: `FAKE_IMAGE` (e.g. `FAKE_IMAGE=passportal-docs-fake:latest`, or one from your registry),
 *   otherwise built from the repository's Dockerfile (the first build takes a minute or two).
 * - Fixtures: the suite's set in examples/fixtures/suite is copied to /fixtures in the container
 *   (copied rather than bind-mounted, so it works with remote engines too).
 * - Waits for GET /__admin/health to answer 200, then runs the shared suite in one session.
 *
 * Needs a container engine (Docker, Podman with its Docker socket, Colima, Testcontainers Cloud).
 * Where none is reachable, the suite is skipped with a message; its in-process twin,
 * documents.in-process.test.ts, runs the same assertions everywhere.
 */
import { fileURLToPath } from 'node:url';
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';
import { describe } from 'vitest';
import { documentsClientSuite, type RunningFake, SUITE_FIXTURES } from './documents-suite.js';

const PORT = 4010;
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const IMAGE_TAG = 'passportal-docs-fake:examples';

async function engineReachable(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

const engine = await engineReachable();
if (!engine) {
  console.warn(
    'documents.container.test.ts: skipped, no container engine reachable (Docker socket or DOCKER_HOST). ' +
      'The same suite runs in-process in documents.in-process.test.ts.',
  );
}

async function image(): Promise<GenericContainer> {
  const named = process.env.FAKE_IMAGE;
  if (named) return new GenericContainer(named);
  return GenericContainer.fromDockerfile(REPO_ROOT).build(IMAGE_TAG, { deleteOnExit: false });
}

async function startContainer(): Promise<RunningFake> {
  const container: StartedTestContainer = await (await image())
    .withExposedPorts(PORT)
    .withEnvironment({ LOG_LEVEL: 'warn' })
    .withCopyDirectoriesToContainer([{ source: SUITE_FIXTURES, target: '/fixtures' }])
    .withWaitStrategy(Wait.forHttp('/__admin/health', PORT).forStatusCode(200))
    .withStartupTimeout(30_000)
    .start();
  return {
    url: `http://${container.getHost()}:${container.getMappedPort(PORT)}`,
    stop: async () => {
      await container.stop({ timeout: 5_000 });
    },
  };
}

describe.skipIf(!engine)('documents client against the Docker image', () => {
  // Building the image from the Dockerfile the first time can take a few minutes.
  documentsClientSuite(startContainer, process.env.FAKE_IMAGE ? 60_000 : 600_000);
});
