/**
 * The build's copy of the default fixture set (dist/default-fixtures.cache, written by
 * scripts/bundle.mjs): the same dataset a start validates from the files, read only by code of
 * the build that wrote it and only while the files and the fixture schema read the same.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  builtDefaultSetFor,
  defaultFixturesPath,
  defaultSetCacheText,
  loadFixtureSource,
} from '../src/domain/fixtures/load-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'default-set-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the build's copy of the default fixture set", () => {
  it('reads back as the very dataset the files validate to (prototypes included)', async () => {
    const text = await defaultSetCacheText('build-a');
    expect(text).toBeDefined();
    const cachePath = join(dir, 'a.cache');
    writeFileSync(cachePath, text as string);
    const built = await builtDefaultSetFor('build-a', cachePath);
    const { dataset } = await loadFixtureSource(join(defaultFixturesPath(), '.'), {});
    expect(built).toBeDefined();
    expect(isDeepStrictEqual(built, dataset)).toBe(true);
    const details = built?.documents[0]?.details;
    expect(details && Object.getPrototypeOf(details)).toBeNull();
  });

  it('is not read by the code of another build', async () => {
    const cachePath = join(dir, 'b.cache');
    writeFileSync(cachePath, (await defaultSetCacheText('build-b')) as string);
    expect(await builtDefaultSetFor('build-other', cachePath)).toBeUndefined();
  });

  it('is not read once a file of the set changed (or one was added)', async () => {
    const cachePath = join(dir, 'c.cache');
    writeFileSync(cachePath, (await defaultSetCacheText('build-c')) as string);
    const folder = join(dir, 'set');
    cpSync(defaultFixturesPath(), folder, { recursive: true });
    expect(await builtDefaultSetFor('build-c', cachePath, folder)).toBeDefined();
    writeFileSync(join(folder, 'organizations.json'), '[{"id": 1, "name": "Edited"}]');
    expect(await builtDefaultSetFor('build-c', cachePath, folder)).toBeUndefined();
    cpSync(defaultFixturesPath(), folder, { recursive: true });
    writeFileSync(join(folder, 'notes.txt'), 'x');
    expect(await builtDefaultSetFor('build-c', cachePath, folder)).toBeUndefined();
  });
});
