import { defineConfig } from 'vitest/config';

/**
 * The suites that need a container engine (`npm run test:containers`), kept out of `npm test`.
 * The global setup builds the image once for all of them; with no engine reachable the run fails,
 * unless SKIP_CONTAINER_TESTS=1 says to skip it.
 */
export default defineConfig({
  test: {
    include: ['examples/**/*.container.test.ts', 'test/containers/**/*.test.ts'],
    globalSetup: ['test/containers/global-setup.ts'],
    environment: 'node',
    // One engine, shared: suites run one after another.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
