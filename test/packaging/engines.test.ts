/**
 * The README says Node 20.19+ or 24: `npm ci` must install on both without an EBADENGINE warning.
 * npm warns for every package in the lock file whose `engines.node` leaves out the running Node,
 * so every one of them (dependencies and devDependencies alike) must accept both.
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};

describe('engines', () => {
  it.each(['20.19.0', '24.0.0'])('every locked package accepts Node %s, as package.json promises', (node) => {
    expect(semver.satisfies(node, pkg.engines.node)).toBe(true);
    const refusing = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (path === '' || range === undefined) return [];
      return semver.satisfies(node, range, { includePrerelease: true })
        ? []
        : [`${path}@${entry.version}: ${range}`];
    });
    expect(refusing).toEqual([]);
  });
});
