import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, pickSettings } from '../../src/config.js';
import { createOperationValidators } from '../../src/contract/request-validator.js';
import { loadSpec } from '../../src/contract/spec-document.js';
import { createInstance } from '../../src/harness/instance.js';
import { ServerPowers } from '../../src/harness/server-powers.js';
import { SessionRegistry } from '../../src/harness/sessions.js';
import { StateFile } from '../../src/harness/state-file.js';
import { createMockServer, type MockServer } from '../../src/index.js';
import { accessToken } from '../support/request-token.js';
import {
  accepted,
  issueToken,
  nameOf,
  newInstance,
  openState,
  rename,
  SMALL_DATASET,
} from '../support/state-file-kit.js';
import { ACME_KEY, readSmallSet, SMALL_SET, textEntry } from '../support/test-server.js';

/**
 * Sessions kept in a state file, in process: idle expiry counts on across a restart, a clean stop
 * keeps the report's counts exact with no write after them, the owner is carried, and a
 * malformed session line is refused naming its line and key.
 */

const dir = mkdtempSync(join(tmpdir(), 'fake-sessions-kept-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const validators = createOperationValidators(loadSpec().document);
const RELEASE_2 = fileURLToPath(new URL('../fixtures/state-file/release-2.jsonl', import.meta.url));

function open(stateFile: string, sessionIdleSeconds = 1800): Promise<MockServer> {
  return createMockServer({ fixtures: SMALL_SET, stateFile, sessionIdleSeconds, logLevel: 'silent' });
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('sessions kept in the state file', () => {
  it('count idle time on across a restart: a session idle for longer is removed soon after the start, one that never expires stays', async () => {
    const file = join(dir, 'idle.json');
    const first = await open(file, 2);
    const idle = await first.session();
    const kept = await first.session(undefined, { expires: false });
    await first.close();
    await sleep(2_500);
    const second = await open(file, 2);
    try {
      // Were its idle time counted from this start, it would live 2 s more.
      await sleep(1_000);
      expect(second.sessions.peek(idle.id)).toBeUndefined();
      expect(second.sessions.peek(kept.id)).toBeDefined();
    } finally {
      await second.close();
    }
    // Its removal was written: it does not come back at the next start either.
    const third = await open(file);
    try {
      expect(third.sessions.list().map((s) => s.id)).toEqual([kept.id]);
    } finally {
      await third.close();
    }
  }, 60_000);

  it('keep the exact report counts at a clean stop with no write after them, and carry the owner', async () => {
    const file = join(dir, 'counts.json');
    const first = await open(file);
    const url = await first.listen(0, '127.0.0.1');
    const created = first.sessions.create(first.root.fake.resetPoint(), {
      owner: { name: 'team-a', maxSessions: undefined },
      run: 'r-1',
    });
    const base = `${url}/sessions/${created.id}`;
    const token = await accessToken(base, ACME_KEY);
    // Reads only (no change held until saved): a notice (pageNum omitted) and a violation.
    await fetch(`${base}/api/v2/documents`, { headers: { 'x-access-token': token } });
    await fetch(`${base}/api/v2/documents/abc`, { headers: { 'x-access-token': token } });
    const before = (await (await fetch(`${base}/__admin/report`)).json()) as {
      summary: Record<string, unknown>;
      requests: { total: number };
    };
    expect(before.summary.violatingRequests).toBe(1);
    expect(before.summary.requestsWithNotices).toBe(1);
    await first.close();

    const second = await open(file);
    try {
      const restored = second.sessions.peek(created.id);
      expect(restored?.owner).toBe('team-a');
      expect(restored?.run).toBe('r-1');
      const again = await second.listen(0, '127.0.0.1');
      const report = (await (
        await fetch(`${again}/sessions/${created.id}/__admin/report`)
      ).json()) as typeof before;
      // The exact counts come back; the findings listed do not (like the journal), and say so.
      expect(report.summary).toEqual({ ...before.summary, violationsNotListed: 1, noticesNotListed: 1 });
      expect(report.requests.total).toBe(before.requests.total);
    } finally {
      await second.close();
    }
  }, 60_000);

  it("keep a run's report of the sessions that ended before the restart, from the file as an acknowledged delete left it", async () => {
    const file = join(dir, 'run.json');
    const first = await open(file);
    const url = await first.listen(0, '127.0.0.1');
    const created = (await (
      await fetch(`${url}/__admin/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ run: 'ci-77' }),
      })
    ).json()) as { id: string };
    const base = `${url}/sessions/${created.id}`;
    const token = await accessToken(base, ACME_KEY);
    await fetch(`${base}/api/v2/documents/abc`, { headers: { 'x-access-token': token } });
    expect((await fetch(`${url}/__admin/sessions/${created.id}`, { method: 'DELETE' })).status).toBe(200);
    // The file as the acknowledged delete left it: what a kill -9 now would leave.
    const crashed = join(dir, 'run-crashed.json');
    copyFileSync(file, crashed);
    const before = (await (await fetch(`${url}/__admin/report?run=ci-77`)).json()) as {
      summary: Record<string, number>;
      sessions: unknown;
    };
    expect(before.summary.violatingRequests).toBe(1);
    await first.close();

    const second = await open(crashed);
    try {
      const again = await second.listen(0, '127.0.0.1');
      const report = (await (await fetch(`${again}/__admin/report?run=ci-77`)).json()) as typeof before;
      expect(report.summary).toEqual(before.summary);
      expect(report.sessions).toEqual(before.sessions);
    } finally {
      await second.close();
    }
  }, 60_000);

  it("writes what a session's change changed, whatever the other sessions hold", async () => {
    const file = join(dir, 'cost.json');
    const mock = await open(file);
    try {
      const url = await mock.listen(0, '127.0.0.1');
      const sessions = await Promise.all(Array.from({ length: 20 }, () => mock.session(readSmallSet())));
      const [one] = sessions;
      if (!one) throw new Error('no session');
      const base = `${url}/sessions/${one.id}`;
      const token = await accessToken(base, ACME_KEY);
      // Each session's own fixture set is in the file once.
      expect(statSync(file).size).toBeGreaterThan(20 * 4_000);
      const before = statSync(file).size;
      const answer = await fetch(`${base}/api/v2/documents/101101`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-access-token': token },
        body: JSON.stringify({ name: textEntry('Name', 'One change') }),
      });
      expect(answer.status).toBe(200);
      // Acknowledged: on disk already; one document, the session's counts and the commit line.
      const added = readFileSync(file, 'utf8').slice(before);
      expect(added).toContain('One change');
      expect(
        added
          .trim()
          .split('\n')
          .map((l) => (JSON.parse(l) as { t: string }).t),
      ).toEqual(['documents', 'counts', 'commit']);
    } finally {
      await mock.close();
    }
  }, 60_000);

  it('come back from a log compacted while they changed: state, controls and ended sessions as written', async () => {
    const path = join(dir, 'compacted.json');
    const keep = () => {
      const root = newInstance();
      const registry = new SessionRegistry({
        maxSessions: 10,
        idleSeconds: 1800,
        createInstance: (id, data) =>
          createInstance(id, data, DEFAULT_OPTIONS, pickSettings(DEFAULT_OPTIONS)),
      });
      const powers = new ServerPowers({ root, sessions: registry, validators, operationIds: [] });
      const file = new StateFile(path, { compactAfterBytes: 20_000 });
      file.open(root, { registry, checks: powers.checks });
      return { root, registry, file };
    };
    const first = keep();
    const own = first.registry.create(SMALL_DATASET, { ownFixtures: true, ownKeys: true });
    const shared = first.registry.create(first.root.fake.resetPoint());
    const gone = first.registry.create(first.root.fake.resetPoint());
    const fault = own.instance.faults.add({ path: '/api/*', status: 503, times: 3 });
    await first.file.commit(own.instance);
    first.registry.delete(gone.id);
    for (let i = 0; i < 200; i++) {
      rename(own.instance.fake, `own ${i}`);
      rename(shared.instance.fake, `shared ${i}`);
      await first.file.commit();
    }
    await first.file.compacting;
    expect(first.file.compactions).toBeGreaterThan(0);
    const token = issueToken(shared.instance.fake);
    await first.file.commit();
    first.file.close();

    const second = keep();
    try {
      expect(
        second.registry
          .list()
          .map((s) => s.id)
          .sort(),
      ).toEqual([own.id, shared.id].sort());
      const ownBack = second.registry.peek(own.id)?.instance;
      const sharedBack = second.registry.peek(shared.id)?.instance;
      if (!ownBack || !sharedBack) throw new Error('not restored');
      expect(nameOf(ownBack.fake)).toBe('own 199');
      expect(nameOf(sharedBack.fake)).toBe('shared 199');
      expect(accepted(sharedBack.fake, token)).toBe(true);
      expect(ownBack.ownKeys?.list()).toEqual(own.instance.ownKeys?.list());
      expect(ownBack.faults.list().map((f) => [f.id, f.times])).toEqual([[fault.id, 3]]);
      // The root was not changed by any of it.
      expect(nameOf(second.root.fake)).toBe('Dundee Office');
    } finally {
      second.file.close();
    }
  }, 60_000);

  it('refuses a malformed session line, naming the file, its line and key, and leaves the file as it was', () => {
    const good = readFileSync(RELEASE_2, 'utf8').replace('"version":2', '"version":3');
    const lines = good.split('\n').length;
    const cases: Array<[string, string]> = [
      [
        '{"t":"session","s":"s1","createdAt":1,"lastUsedAt":1,"expires":"yes","ownFixtures":false,"base":"root"}',
        `line ${lines}, expires: must be true or false`,
      ],
      ['{"t":"documents","s":"nobody","documents":[]}', `line ${lines}, s: session nobody was not started`],
      [
        '{"t":"session","s":"../x","createdAt":1,"lastUsedAt":1,"expires":true,"ownFixtures":false}',
        `line ${lines}, s: must be a session id`,
      ],
    ];
    for (const [line, message] of cases) {
      const path = join(dir, `bad-${Math.random().toString(36).slice(2)}.json`);
      const text = `${good}${line}\n{"t":"commit"}\n`;
      writeFileSync(path, text);
      expect(() => openState(path)).toThrow(message);
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });
});
