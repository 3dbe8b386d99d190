import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeHash } from '../../src/index.js';
import { fakeProcesses } from '../support/fake-processes.js';
import { type Body, callJson as call, documentName } from '../support/json-call.js';
import { viaProxy } from '../support/proxy-tunnel.js';
import { accessToken } from '../support/request-token.js';
import { killChild, spawnCli, waitForListening } from '../support/run-cli.js';
import { ACME_KEY, SMALL_SET, textEntry } from '../support/test-server.js';

/**
 * With a state file, every live session survives a restart of a real fake process, `kill -9`
 * included: its URL, documents, own keys, tokens, settings, clock, run label, faults, rate limits,
 * expected violations, applied scenarios and the exact counts of its report. A session of each
 * kind (URL prefix, own keys at the root URL, proxy user over HTTPS) is checked; a session deleted
 * before the restart stays gone.
 */

const { dir, children } = fakeProcesses('fake-sessions-kept-', 'test');
const tlsDir = join(dir, 'tls');
/** The CA the fake makes in `tlsDir`, which the proxy's tunnels are checked against. */
const caFile = join(tlsDir, 'ca.pem');

interface Started {
  url: string;
  port: number;
  child: ChildProcess;
}

async function start(stateFile: string): Promise<Started> {
  const child = spawnCli([
    '--port',
    '0',
    '--https-port',
    '0',
    '--tls-dir',
    tlsDir,
    '--fixtures',
    SMALL_SET,
    '--state-file',
    stateFile,
  ]);
  children.push(child);
  const url = await waitForListening(child);
  return { url, port: Number(new URL(url).port), child };
}

/** What a session's report and controls say, to compare across the restart. */
async function configured(base: string) {
  const read = async (what: string) => (await call('GET', `${base}/__admin/${what}`)).body;
  const report = await read('report');
  const summary = report.summary as Body;
  return {
    faults: await read('faults'),
    // Each limit as set, with its counts; not how many subjects its current windows hold (they start afresh).
    rateLimits: ((await read('rate-limits')).rateLimits as Body[]).map(
      ({ subjects: _windows, ...limit }) => limit,
    ),
    expected: await read('expected-violations'),
    applied: (await read('scenarios')).applied,
    settings: await read('settings'),
    counts: {
      total: (report.requests as { total: number }).total,
      violatingRequests: summary.violatingRequests,
      requestsWithNotices: summary.requestsWithNotices,
      expectedViolations: summary.expectedViolations,
      unmetExpectations: summary.unmetExpectations,
      noticeCodes: summary.noticeCodes,
    },
  };
}

describe('sessions kept in the state file', () => {
  it('come back after kill -9: each kind with its documents, keys, tokens, controls and report counts; a deleted one stays gone', async () => {
    const file = join(dir, 'kill.json');
    const first = await start(file);
    const root = first.url;
    const newSession = async (input: Body) => {
      const created = await call('POST', `${root}/__admin/sessions`, input);
      expect(created.status).toBe(201);
      return created.body as { id: string; baseUrl: string; keys?: Array<{ keyId: string; secret: string }> };
    };
    const prefixed = await newSession({ run: 'ci-41' });
    const own = await newSession({ keys: 'own', expires: false });
    const proxied = await newSession({});
    const deleted = await newSession({});
    const P = `${root}/sessions/${prefixed.id}`;

    // The prefixed session: a document changed, a token, settings, clock, every control, counts.
    const token = await accessToken(P, ACME_KEY);
    const auth = { 'x-access-token': token };
    const renamed = await call(
      'PATCH',
      `${P}/api/v2/documents/101101`,
      { name: textEntry('Name', 'Kept in a session') },
      auth,
    );
    expect(renamed.status).toBe(200);
    expect((await call('PUT', `${P}/__admin/settings`, { tokenTtlSeconds: 7200 })).status).toBe(200);
    expect(
      (await call('POST', `${P}/__admin/faults`, { path: '/api/v2/documents/101102', status: 503, times: 5 }))
        .status,
    ).toBe(201);
    expect(
      (await call('POST', `${P}/__admin/rate-limits`, { per: 'instance', limit: 1000, windowSeconds: 60 }))
        .status,
    ).toBe(201);
    expect(
      (
        await call('POST', `${P}/__admin/expected-violations`, {
          method: 'GET',
          path: '/api/v2/documents',
          times: 3,
        })
      ).status,
    ).toBe(201);
    expect((await call('POST', `${P}/__admin/scenarios`, { name: 'changed-under-you' })).status).toBe(201);
    // Counts: a declared violation, an undeclared one, a notice (pageNum omitted), a fault hit.
    expect((await call('GET', `${P}/api/v2/documents?pageNum=0`, undefined, auth)).status).toBe(404);
    expect((await call('GET', `${P}/api/v2/documents/abc`, undefined, auth)).status).toBe(400);
    await call('GET', `${P}/api/v2/documents/101102`, undefined, auth);
    await call('GET', `${P}/api/v2/documents?resultsPerPage=5`, undefined, auth);
    // The last change acknowledged: the session's clock, with which its counts are written.
    expect((await call('POST', `${P}/__admin/clock`, { advanceSeconds: 300 })).status).toBe(200);

    // Own keys, at the root URL.
    const ownKey = own.keys?.find((k) => k.keyId.length > 0);
    if (!ownKey) throw new Error('no own key');
    const ownToken = await accessToken(root, ownKey);
    const ownAuth = { 'x-access-token': ownToken };
    expect(
      (
        await call(
          'PATCH',
          `${root}/api/v2/documents/101101`,
          { name: textEntry('Name', 'Own keys') },
          ownAuth,
        )
      ).status,
    ).toBe(200);

    // The proxy user, over HTTPS on the vendor's host name.
    const proxyToken = (
      await viaProxy(
        { port: first.port, caFile },
        proxied.id,
        'POST',
        '/api/v2/auth/client_token',
        { scope: 'docs_api', content: 'c' },
        { 'x-key': ACME_KEY.keyId, 'x-hash': computeHash(ACME_KEY.secret, 'c') },
      )
    ).body.access_token as string;
    const proxyAuth = { 'x-access-token': proxyToken };
    const proxyPatch = await viaProxy(
      { port: first.port, caFile },
      proxied.id,
      'PATCH',
      '/api/v2/documents/101101',
      { name: textEntry('Name', 'Through the proxy') },
      proxyAuth,
    );
    expect(proxyPatch.status).toBe(200);

    // Concurrent writes to a session, each acknowledged: all of them are on disk.
    const labels = Array.from({ length: 20 }, (_, i) => `concurrent ${i}`);
    const created = await Promise.all(
      labels.map((title) =>
        call('PATCH', `${P}/api/v2/documents`, [{ templateUid: '79', id: '', title, clientId: 41001 }], auth),
      ),
    );
    expect(created.map((c) => c.status)).toEqual(labels.map(() => 200));
    const before = await configured(P);
    expect(before.counts.violatingRequests).toBeGreaterThan(0);
    expect(before.counts.expectedViolations).toBeGreaterThan(0);
    expect(before.counts.requestsWithNotices).toBeGreaterThan(0);

    expect((await call('DELETE', `${root}/__admin/sessions/${deleted.id}`)).status).toBe(200);
    // A session's counts move with every request, reads included, and are written within a second.
    await new Promise((done) => setTimeout(done, 2_500));
    await killChild(first.child);

    const second = await start(file);
    const P2 = `${second.url}/sessions/${prefixed.id}`;
    const after = await configured(P2);
    expect(after).toEqual(before);
    const read = await call('GET', `${P2}/api/v2/documents/101101`, undefined, auth);
    expect(read.status).toBe(200); // the token issued before the crash
    expect(documentName(read.body)).toBe('Kept in a session');
    expect((await call('GET', `${P2}/__admin/clock`)).body.offsetSeconds).toBe(300);
    const state = (await call('GET', `${P2}/__admin/state`)).body as { documents: Array<{ label: string }> };
    const kept = new Set(state.documents.map((d) => d.label));
    expect(labels.filter((l) => !kept.has(l))).toEqual([]);
    // The fault still applies (same id, its remaining times counted on).
    expect((await call('GET', `${P2}/api/v2/documents/101102`, undefined, auth)).status).toBe(503);
    // The root was not touched by any of it.
    const rootToken = await accessToken(second.url, ACME_KEY);
    const rootRead = await call('GET', `${second.url}/api/v2/documents/101101`, undefined, {
      'x-access-token': rootToken,
    });
    expect(documentName(rootRead.body)).toBe('Dundee Office');

    // Own keys: the token from before and a new one, at the root URL, reach the session.
    const ownRead = await call('GET', `${second.url}/api/v2/documents/101101`, undefined, ownAuth);
    expect(documentName(ownRead.body)).toBe('Own keys');
    const freshOwn = await accessToken(second.url, ownKey);
    const freshRead = await call('GET', `${second.url}/api/v2/documents/101101`, undefined, {
      'x-access-token': freshOwn,
    });
    expect(documentName(freshRead.body)).toBe('Own keys');

    // The proxy user.
    const proxyRead = await viaProxy(
      { port: second.port, caFile },
      proxied.id,
      'GET',
      '/api/v2/documents/101101',
      undefined,
      proxyAuth,
    );
    expect(proxyRead.status).toBe(200);
    expect(documentName(proxyRead.body)).toBe('Through the proxy');

    // The deleted session stays gone; the others are listed as they were.
    expect((await call('GET', `${second.url}/sessions/${deleted.id}/__admin/health`)).status).toBe(404);
    const listed = (await call('GET', `${second.url}/__admin/sessions`)).body as {
      sessions: Array<{ id: string; run?: string; expires?: boolean }>;
    };
    const byId = new Map(listed.sessions.map((s) => [s.id, s]));
    expect([...byId.keys()].sort()).toEqual([prefixed.id, own.id, proxied.id].sort());
    expect(byId.get(prefixed.id)?.run).toBe('ci-41');
  }, 180_000);
});
