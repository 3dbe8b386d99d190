import { getContainerRuntimeClient } from 'testcontainers';
import type { TestProject } from 'vitest/node';
import { PASSPORTAL_FAKE_IMAGE, PassportalFakeContainer } from '../../src/testcontainers/index.js';

/**
 * The container suite's one-time setup: finds the engine and builds the image once for every
 * suite (the Testcontainers module's default name, `passportal-docs-fake:<version>`, also tagged
 * `passportal-docs-fake:local` for the Compose example), or takes `FAKE_IMAGE` as built elsewhere;
 * the suites start it as `passportal-docs-fake:container-suite`, a tag nothing else moves.
 *
 * No engine reachable is a failure, not a skip: a misconfigured CI must not pass quietly. Only an
 * explicit `SKIP_CONTAINER_TESTS=1` skips the suite, and it says so.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    /** The image every container suite starts; empty when the suite is skipped. */
    fakeImage: string;
  }
}

const COMPOSE_REPO = 'passportal-docs-fake';
const COMPOSE_TAG = 'local';
const SUITE_TAG = 'container-suite';

export default async function setup(project: TestProject): Promise<void> {
  if (process.env.SKIP_CONTAINER_TESTS === '1') {
    console.warn(
      '\n=== container suite SKIPPED: SKIP_CONTAINER_TESTS=1 was set; nothing here ran against a container engine ===\n',
    );
    project.provide('fakeImage', '');
    return;
  }
  let client: Awaited<ReturnType<typeof getContainerRuntimeClient>>;
  try {
    client = await getContainerRuntimeClient();
  } catch (error) {
    throw new Error(
      'container suite: no container engine reachable (set DOCKER_HOST, or start one: ' +
        '../shared/tools/container-engine start). Set SKIP_CONTAINER_TESTS=1 to skip this suite on purpose. ' +
        `(${error instanceof Error ? error.message : String(error)})`,
    );
  }
  let image = process.env.FAKE_IMAGE;
  if (!image) {
    const started = performance.now();
    image = await PassportalFakeContainer.buildImage({ tag: PASSPORTAL_FAKE_IMAGE });
    console.log(`container suite: built ${image} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  // The Compose example names its image passportal-docs-fake:local: the same image, not built again.
  await client.container.dockerode.getImage(image).tag({ repo: COMPOSE_REPO, tag: COMPOSE_TAG });
  // The suites start it by a tag of their own: the release suite builds and loads the image under
  // its release name (passportal-docs-fake:<version>), which must not change what the others start.
  await client.container.dockerode.getImage(image).tag({ repo: COMPOSE_REPO, tag: SUITE_TAG });
  project.provide('fakeImage', `${COMPOSE_REPO}:${SUITE_TAG}`);
}
