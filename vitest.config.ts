import { defineConfig } from 'vitest/config';
import HouseFirst from './test/support/house-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Suites that need a container engine run with `npm run test:containers`.
    exclude: ['**/node_modules/**', 'examples/**/*.container.test.ts', 'test/containers/**'],
    environment: 'node',
    setupFiles: ['test/support/setup-conformance.ts'],
    // The pages' build (dist/ui), made when missing or stale.
    // The pages' Chromium, unpacked from its package when the machine has none (test/browser).
    globalSetup: ['test/support/build-ui.ts', 'test/support/unpack-chromium.ts'],
    // The checks that a change touched every place it must run first (test/support/house-first.ts).
    sequence: { sequencer: HouseFirst },
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
