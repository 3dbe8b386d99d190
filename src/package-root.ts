import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder the package is installed in: the nearest folder above this module whose
 * `package.json` is this package's. Found the same way from `src/` (tsx), from `dist/` (tsc's
 * output) and from the start-up bundle in `dist/bundle/`, so files shipped with the package (the
 * spec, the default fixtures, the build's precompiled validators) are found from any of them.
 */
function findPackage(): { root: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'passportal-docs-fake') return { root: dir, version: String(pkg.version) };
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('passportal-docs-fake: cannot find the package folder');
    dir = up;
  }
}

const found = findPackage();

export const PACKAGE_ROOT = found.root;
export const PACKAGE_VERSION = found.version;

/** Absolute path of a file shipped with the package, e.g. `spec/openapi.yaml`. */
export function packagePath(relative: string): string {
  return join(PACKAGE_ROOT, relative);
}
