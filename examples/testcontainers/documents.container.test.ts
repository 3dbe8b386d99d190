/**
 * The integration suite against the Docker image, started with the package's Testcontainers
 * module (`passportal-docs-fake/testcontainers`; here imported from the source).
 *
 * - Image: the one the container suite's global setup built once (`passportal-docs-fake:<version>`),
 *   or `FAKE_IMAGE` (e.g. one from your registry).
 * - Fixtures: the suite's set in examples/fixtures/suite is copied to /fixtures in the container
 *   (copied rather than bind-mounted, so it works with remote engines too).
 * - Waits for GET /__admin/health to answer 200, then runs the shared suite in one session.
 *
 * Needs a container engine (Docker, Podman with its Docker socket, Colima, Testcontainers Cloud):
 * `npm run test:containers` fails without one unless SKIP_CONTAINER_TESTS=1. Its in-process twin,
 * documents.in-process.test.ts, runs the same assertions everywhere.
 */
import { describe, inject } from 'vitest';
import { PassportalFakeContainer } from '../../src/testcontainers/index.js';
import { documentsClientSuite, type RunningFake, SUITE_FIXTURES } from './documents-suite.js';

const image = inject('fakeImage');

async function startContainer(): Promise<RunningFake> {
  const fake = await new PassportalFakeContainer(image)
    .withFixtures(SUITE_FIXTURES)
    .withOptions({ logLevel: 'warn' })
    .start();
  return {
    url: fake.getBaseUrl(),
    stop: async () => {
      await fake.stop();
    },
  };
}

describe.skipIf(!image)('documents client against the Docker image', () => {
  documentsClientSuite(startContainer, 60_000);
});
