import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createExclusive } from '../../src/harness/state-file-io.js';
import { nameOf, openState, rename } from '../support/state-file-kit.js';

/**
 * One fake per state file (a lock naming its holder, taken over when the holder is gone), links
 * never followed where the fake creates files and a linked state path written through, and every
 * malformed value of a state file refused at start, naming the file and the key.
 */

const dir = mkdtempSync(join(tmpdir(), 'fake-state-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pid no process has: one that ran and exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

function writeLock(path: string, holder: Record<string, unknown>): void {
  writeFileSync(
    `${path}.lock`,
    JSON.stringify({ id: 'other', since: '2026-01-01T00:00:00.000Z', ...holder }),
  );
}

describe('the lock', () => {
  it('refuses a second fake on the same file, naming the file and the holder', () => {
    const path = join(dir, 'held.log');
    const first = openState(path);
    expect(() => openState(path)).toThrow(
      new RegExp(`state file ${path} is in use by another fake \\(pid ${process.pid} on ${hostname()}`),
    );
    // The first fake writes on undisturbed.
    rename(first.fake, 'first');
    first.file.commit();
    first.file.close();
    const next = openState(path);
    expect(nameOf(next.fake)).toBe('first');
    next.file.close();
  });

  it('takes over a lock whose holder is gone: a dead pid, or this pid from an earlier start', () => {
    const path = join(dir, 'stale.log');
    openState(path).file.close();
    writeLock(path, { pid: deadPid(), host: hostname(), started: 1 });
    openState(path).file.close();
    // A container's restart: pid 1 again, but another start.
    writeLock(path, { pid: process.pid, host: hostname(), started: 1 });
    openState(path).file.close();
  });

  it("refuses another host's lock while it is kept alive, and takes it over after 30 s without", () => {
    const path = join(dir, 'remote.log');
    openState(path).file.close();
    writeLock(path, { pid: 4242, host: 'another-host', started: 1 });
    expect(() => openState(path)).toThrow(/pid 4242 on another-host/);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, old, old);
    openState(path).file.close();
  });

  it('is given up at close, so the next start needs no take-over', () => {
    const path = join(dir, 'released.log');
    openState(path).file.close();
    expect(readdirSync(dir)).not.toContain('released.log.lock');
  });
});

describe('links', () => {
  it('writes a symlinked state path through to its target, and the link stays a link', async () => {
    const volume = mkdtempSync(join(dir, 'volume-'));
    const target = join(volume, 'state.log');
    const link = join(dir, 'linked.log');
    symlinkSync(target, link); // a link to a file that does not exist yet
    const { file, fake } = openState(link, { compactAfterBytes: 4096 });
    expect(file.path).toBe(target);
    while (!file.compacting) {
      rename(fake, `edit ${file.writes}`);
      file.commit();
    }
    await file.compacting;
    rename(fake, 'after the compaction');
    file.commit();
    file.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(nameOf(openAndClose(link))).toBe('after the compaction');
    expect(nameOf(openAndClose(target))).toBe('after the compaction');
  });

  it('creates its files exclusively under names no one can guess, never through a planted link', () => {
    const folder = mkdtempSync(join(dir, 'planted-'));
    const victim = join(folder, 'victim');
    writeFileSync(victim, 'precious');
    const path = join(folder, 'state.log');
    // A link where the lock goes: the fake must not write through it.
    symlinkSync(victim, `${path}.lock`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(victim, old, old);
    const names = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const { name, fd } = createExclusive(path, 'tmp-state');
      names.add(name);
      expect(name).not.toContain(String(process.pid));
      rmSync(name);
      expect(fd).toBeGreaterThan(0);
    }
    expect(names.size).toBe(20);
    openState(path).file.close();
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });
});

describe('malformed values in a state file', () => {
  /** A good file with one more committed group of `records` (and `{"t":"commit"}`). */
  function withGroup(name: string, records: object[]): string {
    const path = join(dir, name);
    openState(path).file.close();
    appendFileSync(path, `${[...records, { t: 'commit' }].map((r) => JSON.stringify(r)).join('\n')}\n`);
    return path;
  }
  const grant = { organizationId: 1, keyId: 'k', expiry: 2_000_000_000, kind: 'access', revoked: false };

  it.each([
    [
      'a null grant',
      [{ t: 'tokens', tokens: [['token-1', null]] }],
      'tokens[0][1]: the grant must be an object',
    ],
    ['tokens not a list', [{ t: 'tokens', tokens: { a: 1 } }], 'tokens: must be a list'],
    [
      'a grant without expiry',
      [{ t: 'tokens', tokens: [['t', { ...grant, expiry: null }]] }],
      'tokens[0][1].expiry',
    ],
    [
      'a grant of no kind',
      [{ t: 'tokens', tokens: [['t', { ...grant, kind: 'forever' }]] }],
      'tokens[0][1].kind',
    ],
    ['an empty token', [{ t: 'tokens', tokens: [['', grant]] }], 'tokens[0]: must be [token, grant]'],
    ['a bad setting', [{ t: 'settings', settings: { tokenTtlSeconds: 'soon' } }], 'settings.tokenTtlSeconds'],
    ['settings not an object', [{ t: 'settings', settings: [] }], 'settings: must be an object'],
    ['a clock offset in words', [{ t: 'clock', offsetSeconds: 'later' }], 'offsetSeconds: must be a number'],
    ['a document without id', [{ t: 'documents', documents: [{ label: 'x' }] }], 'documents[0].id'],
    ['an unknown record', [{ t: 'drop tables' }], 't: unknown record'],
  ])('refuses %s, naming the file, the line and the key', (name, records, key) => {
    const path = withGroup(`${name.replaceAll(' ', '-')}.log`, records);
    const before = readFileSync(path);
    expect(() => openState(path)).toThrow(`state file ${path}: line `);
    expect(() => openState(path)).toThrow(key);
    expect(readFileSync(path)).toEqual(before); // left as it was, to be looked at
  });

  it.each([
    ['a null grant', { tokens: [['t', null]] }, 'tokens[0][1]: the grant must be an object'],
    ['tokens not a list', { tokens: { a: 1 } }, 'tokens: must be a list'],
    ['a bad setting', { settings: { hashEncoding: 'rot13' } }, 'settings.hashEncoding'],
    ['a clock offset in words', { clockOffsetSeconds: 'later' }, 'clockOffsetSeconds: must be a number'],
  ])('refuses %s in a version 1 file, naming the file and the key', (name, values, key) => {
    const path = join(dir, `v1-${name.replaceAll(' ', '-')}.json`);
    const resetPoint = JSON.parse(
      readFileSync(join(import.meta.dirname, '../fixtures/http/small-set.json'), 'utf8'),
    );
    const body = {
      format: 'passportal-docs-fake state',
      version: 1,
      clockOffsetSeconds: 0,
      settings: {},
      tokens: [],
      changed: [],
      resetPoint,
      ...values,
    };
    writeFileSync(path, `${JSON.stringify(body)}\n`);
    expect(() => openState(path)).toThrow(`state file ${path}: ${key}`);
  });

  it('reads a good version 1 file and rewrites it as a log', () => {
    const folder = join(dir, 'v1-good');
    mkdirSync(folder);
    const path = join(folder, 'state.json');
    const resetPoint = JSON.parse(
      readFileSync(join(import.meta.dirname, '../fixtures/http/small-set.json'), 'utf8'),
    );
    const changed = [{ ...resetPoint.documents[0], label: 'Changed in version 1' }];
    const tokens = [['kept-token', { ...grant, organizationId: 1 }]];
    writeFileSync(
      path,
      `${JSON.stringify({ format: 'passportal-docs-fake state', version: 1, clockOffsetSeconds: 0, settings: {}, tokens, changed, resetPoint })}\n`,
    );
    const { file, fake } = openState(path);
    file.close();
    expect(fake.snapshot().documents.map((d) => d.label)).toContain('Changed in version 1');
    expect(fake.authenticate('kept-token').organizationId).toBe(1);
    expect(JSON.parse(readFileSync(path, 'utf8').split('\n')[0] as string)).toMatchObject({
      t: 'head',
      version: 3,
    });
  });
});

function openAndClose(path: string) {
  const { file, fake } = openState(path);
  file.close();
  return fake;
}
