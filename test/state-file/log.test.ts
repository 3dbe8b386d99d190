import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_FS, type StateFs } from '../../src/harness/persistence/state-file-io.js';
import { ACME, accepted, issueToken, nameOf, openState, rename } from '../support/state-file-kit.js';

/**
 * The state file as a log: a write costs what it changes, a failed or short write is never
 * acknowledged and never damages what was, a write cut short by a crash is dropped, and the
 * background compaction keeps every change made while it runs.
 */

const dir = mkdtempSync(join(tmpdir(), 'fake-state-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('a write', () => {
  it('appends what changed, as much after 2,000 tokens and 300 edited documents as on a fresh file', () => {
    const path = join(dir, 'cost.log');
    const { file, fake } = openState(path);
    rename(fake, 'fresh');
    file.commit();
    const before = file.size;
    rename(fake, 'fresh again');
    file.commit();
    const freshCost = file.size - before;

    for (let i = 0; i < 1000; i++) {
      issueToken(fake); // an access and a refresh token
      file.commit();
    }
    for (let i = 0; i < 300; i++) {
      fake.batchUpdate(ACME, [{ templateUid: '79', id: '', title: `doc ${i}`, clientId: 41001 }], 'merge');
      file.commit();
    }
    const held = file.size;
    rename(fake, 'after a day');
    file.commit();
    // Only the changed document's line and the commit line, not the 2,000 tokens and 300 documents.
    expect(file.size - held).toBe(
      freshCost + Buffer.byteLength('after a day') - Buffer.byteLength('fresh again'),
    );
    expect(file.size - held).toBeLessThan(2_000);
    file.close();

    const back = openState(path);
    expect(nameOf(back.fake)).toBe('after a day');
    expect(back.fake.documentCount()).toBe(5 + 300);
    back.file.close();
  });

  it('that comes up short (a full disk) throws, leaves the file as it was, and goes out with the next write', () => {
    const path = join(dir, 'short.log');
    let full = false;
    // As a full disk does: part of the write lands, then no more.
    const fs: StateFs = {
      ...NODE_FS,
      writeSync: (fd, buffer, offset, length, position) =>
        full
          ? length > 16
            ? writeSync(fd, buffer, offset, 16, position)
            : 0
          : writeSync(fd, buffer, offset, length, position),
    };
    const { file, fake } = openState(path, { fs });
    const token = issueToken(fake);
    rename(fake, 'acknowledged');
    file.commit();
    const good = readFileSync(path);

    full = true;
    rename(fake, 'never acknowledged');
    expect(() => file.commit()).toThrow(/short write/);
    expect(readFileSync(path)).toEqual(good);
    file.close();
    // A restart now comes up with the last acknowledged state.
    const crashed = openState(path);
    expect(nameOf(crashed.fake)).toBe('acknowledged');
    expect(accepted(crashed.fake, token)).toBe(true);
    crashed.file.close();

    // With room again, the pending change goes out with the next write.
    const again = openState(path, { fs });
    rename(again.fake, 'kept');
    full = true;
    expect(() => again.file.commit()).toThrow();
    full = false;
    again.file.commit();
    again.file.close();
    expect(nameOf(openAndClose(path))).toBe('kept');
    expect(lines(path).every((text) => JSON.parse(text))).toBe(true);
  });

  it('cut short by a crash is dropped at start, and writing goes on from the last commit', () => {
    const path = join(dir, 'torn.log');
    const { file, fake } = openState(path);
    rename(fake, 'committed');
    file.commit();
    file.close();
    // A group whose commit line never made it to disk, the last line half written.
    appendFileSync(path, `${JSON.stringify({ t: 'reset' })}\n{"t":"documents","docu`);

    const back = openState(path);
    expect(nameOf(back.fake)).toBe('committed');
    rename(back.fake, 'after the crash');
    back.file.commit();
    back.file.close();
    expect(lines(path).every((text) => JSON.parse(text))).toBe(true);
    expect(nameOf(openAndClose(path))).toBe('after the crash');
  });
});

describe('a flush', () => {
  it('that fails answers an error for every write it covered, cuts them off, and the next write is a whole snapshot', async () => {
    const path = join(dir, 'flush.log');
    let failing = false;
    const fs: StateFs = {
      ...NODE_FS,
      fdatasync: (fd, done) =>
        failing
          ? setImmediate(() => done(Object.assign(new Error('EIO'), { code: 'EIO' })))
          : NODE_FS.fdatasync(fd, done),
    };
    const { file, fake } = openState(path, { fs });
    rename(fake, 'acknowledged');
    await file.commit();
    const good = readFileSync(path);

    failing = true;
    rename(fake, 'flush failed');
    await expect(file.commit()).rejects.toThrow(/EIO/);
    // What the failed flush covered is cut off: a restart could not come up with it.
    expect(readFileSync(path)).toEqual(good);

    failing = false;
    rename(fake, 'after the failure');
    await file.commit();
    file.close();
    const back = openAndClose(path);
    expect(nameOf(back)).toBe('after the failure');
    expect(lines(path).filter((text) => JSON.parse(text).t === 'head')).toHaveLength(1);
  });
});

describe('compaction', () => {
  it('replaces the log by a snapshot in the background and keeps every change made meanwhile', async () => {
    const path = join(dir, 'compact.log');
    const { file, fake } = openState(path, { compactAfterBytes: 64 * 1024 });
    const early = issueToken(fake);
    file.commit();
    while (!file.compacting) {
      issueToken(fake);
      file.commit();
    }
    const grown = statSync(path).size;
    // Changes while the snapshot is being written: a revocation, then a token and an edit after it.
    fake.revokeTokens();
    file.commit();
    const late = issueToken(fake);
    file.commit();
    rename(fake, 'during the compaction');
    file.commit();
    await file.compacting;
    expect(file.compactions).toBe(1);
    expect(statSync(path).size).toBeLessThan(grown);
    rename(fake, 'after it');
    file.commit();
    file.close();

    const back = openState(path);
    expect(accepted(back.fake, early)).toBe(false);
    expect(accepted(back.fake, late)).toBe(true);
    expect(nameOf(back.fake)).toBe('after it');
    back.file.close();
  });
});

describe('on a full disk', () => {
  // A real full disk where this runs as root (CI does): a small tmpfs. Elsewhere the same story
  // with writes made short through the file-system seam.
  const mount = join(dir, 'small-disk');
  mkdirSync(mount);
  let real = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount], { stdio: 'ignore' });
    real = true;
  } catch {
    real = false;
  }
  afterAll(() => {
    if (real) execFileSync('umount', [mount]);
  });

  it(`answers nothing acknowledged that is not on disk (${real ? 'a 1 MiB tmpfs' : 'short writes'})`, () => {
    const path = join(mount, 'state.log');
    let full = false;
    const fs: StateFs = {
      ...NODE_FS,
      writeSync: (fd, buffer, offset, length, position) =>
        full && !real ? 0 : writeSync(fd, buffer, offset, length, position),
    };
    const { file, fake } = openState(path, { fs });
    rename(fake, 'before the disk filled');
    file.commit();
    const good = readFileSync(path);
    const filler = join(mount, 'filler');
    if (real) {
      // Fill every block but a few hundred bytes' worth: less than the write below needs.
      try {
        writeFileSync(filler, Buffer.alloc(2 * 1024 * 1024));
      } catch {
        // ENOSPC: the disk is full, as wanted.
      }
    }
    full = true;
    rename(fake, 'x'.repeat(64 * 1024));
    expect(() => file.commit()).toThrow();
    expect(readFileSync(path)).toEqual(good);
    file.close();
    expect(nameOf(openAndClose(path))).toBe('before the disk filled');

    rmSync(filler, { force: true });
    full = false;
    const again = openState(path, { fs });
    rename(again.fake, 'with room again');
    again.file.commit();
    again.file.close();
    expect(nameOf(openAndClose(path))).toBe('with room again');
  });
});

function openAndClose(path: string) {
  const { file, fake } = openState(path);
  file.close();
  return fake;
}
