import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { getContainerRuntimeClient } from 'testcontainers';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PassportalFakeContainer } from '../../src/testcontainers/index.js';

/**
 * The image built as a project without a checkout builds it: from the packed package's folder
 * (what `npm install` puts in node_modules), with docker/package.Dockerfile, through
 * `PassportalFakeContainer.buildImage({ context })`.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const image = inject('fakeImage');
const TAG = 'passportal-docs-fake:from-package';
const dir = mkdtempSync(join(tmpdir(), 'fake-package-image-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (image)
    await (await getContainerRuntimeClient()).container.dockerode
      .getImage(TAG)
      .remove()
      .catch(() => {});
});

describe.skipIf(!image)('the image built from the npm package', () => {
  it('builds from the installed package folder and serves the default fixtures', async () => {
    await run('npm', ['pack', '--pack-destination', dir, '--ignore-scripts'], { cwd: ROOT });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz')) ?? '';
    await run('tar', ['-xzf', join(dir, tarball), '-C', dir]);
    const started = performance.now();
    const tag = await PassportalFakeContainer.buildImage({ context: join(dir, 'package'), tag: TAG });
    console.log(`image from the package: built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const fake = await new PassportalFakeContainer(tag).start();
    try {
      const health = await fake.admin.health();
      expect(health.status).toBe('ok');
      expect(health.documents).toBeGreaterThan(100);
    } finally {
      await fake.stop();
    }
  }, 600_000);
});
