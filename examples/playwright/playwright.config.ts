import { defineConfig } from '@playwright/test';

/**
 * The example suite of docs/frontend.md. The fake runs at PASSPORTAL_FAKE_URL (the backend calls
 * it too); Playwright starts the app's backend with the fake's URL and a key of its fixture set
 * (APP_PORT, FAKE_KEY_ID, FAKE_SECRET). `broken-contract.spec.ts` fails on purpose: it shows what
 * a test whose backend breaks the contract reports.
 */
const port = Number(process.env.APP_PORT ?? 3000);

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // Room for a busy CI machine: the backend makes two or three calls per click.
  expect: { timeout: 20_000 },
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'results.json' }]] : 'list',
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  projects: [{ name: 'chromium' }],
  webServer: {
    command: 'node app/server.mjs',
    url: `http://127.0.0.1:${port}/`,
    env: {
      PORT: String(port),
      FAKE_URL: process.env.PASSPORTAL_FAKE_URL ?? '',
      FAKE_KEY_ID: process.env.FAKE_KEY_ID ?? '',
      FAKE_SECRET: process.env.FAKE_SECRET ?? '',
    },
    reuseExistingServer: false,
  },
});
