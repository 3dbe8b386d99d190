import { defineConfig } from 'vitest/config';

/**
 * The suites that need a container engine (`npm run test:containers`). Kept out of `npm test`,
 * which runs everywhere; where no engine is reachable these skip with a message.
 */
export default defineConfig({
  test: {
    include: ['examples/**/*.container.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
