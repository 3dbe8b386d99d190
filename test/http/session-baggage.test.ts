import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { MAX_BAGGAGE_BYTES, SESSION_MEMBER, sessionOfBaggage } from '../../src/http/session-baggage.js';
import type { MockSession } from '../../src/index.js';
import { ACME_KEY, createTestServer, type TestServer } from '../support/test-server.js';

/**
 * A session carried by the W3C `baggage` header (docs/frontend.md, docs/sessions.md): the member
 * `passportal-fake-session=<id>` routes a request at the root URL to that session, as a backend
 * instrumented with OpenTelemetry propagates it from the browser test that set it; a request that
 * names another session by its URL prefix or own key is a 400 naming both; baggage that does not
 * parse is a notice, never an error; `--session-baggage off` ignores it.
 */

describe('reading baggage as the W3C Baggage spec writes it', () => {
  it('finds the member among others, with properties, whitespace and percent-encoding', () => {
    expect(sessionOfBaggage(`${SESSION_MEMBER}=abc`).session).toBe('abc');
    expect(
      sessionOfBaggage(`userId=alice, ${SESSION_MEMBER} = s%2D1%20x ;ttl=30;secure , isProduction=false`),
    ).toEqual({ session: 's-1 x', problems: [] });
    // Several baggage headers are one list.
    expect(sessionOfBaggage(['a=1', `b=2;p, ${SESSION_MEMBER}=s2`]).session).toBe('s2');
    // Empty members, as HTTP lists allow them.
    expect(sessionOfBaggage(`a=1,,${SESSION_MEMBER}=s3,`)).toEqual({ session: 's3', problems: [] });
    expect(sessionOfBaggage('userId=alice')).toEqual({ session: undefined, problems: [] });
    expect(sessionOfBaggage(undefined)).toEqual({ session: undefined, problems: [] });
  });

  it('skips a member that does not parse, naming it, and keeps the others', () => {
    const read = sessionOfBaggage(`no-equals, ${SESSION_MEMBER}=s4, bad key=1, k=v"q, k2=%zz`);
    expect(read.session).toBe('s4');
    expect(read.problems).toHaveLength(4);
    expect(read.problems.join(' ')).toContain('"no-equals"');
  });

  it('names no session when its own member is bad, empty or given twice with two values', () => {
    expect(sessionOfBaggage(`${SESSION_MEMBER}=%E0%A4%A`).session).toBeUndefined();
    expect(sessionOfBaggage(`${SESSION_MEMBER}=a b`).session).toBeUndefined();
    expect(sessionOfBaggage(`${SESSION_MEMBER}=`).problems).toEqual([`${SESSION_MEMBER} is empty`]);
    const twice = sessionOfBaggage(`${SESSION_MEMBER}=a, ${SESSION_MEMBER}=b`);
    expect(twice.session).toBeUndefined();
    expect(twice.problems[0]).toContain('names 2 sessions');
    expect(sessionOfBaggage(`${SESSION_MEMBER}=a, ${SESSION_MEMBER}=a`).session).toBe('a');
  });

  it('ignores a header beyond the W3C limit whole', () => {
    const long = `${SESSION_MEMBER}=a, pad=${'x'.repeat(MAX_BAGGAGE_BYTES)}`;
    const read = sessionOfBaggage(long);
    expect(read.session).toBeUndefined();
    expect(read.problems[0]).toContain('8192 bytes');
  });
});

describe('a request routed by its baggage', () => {
  let t: TestServer;
  let session: MockSession;
  let token: string;
  let rootToken: string;
  const title = 'Renamed in the session only';
  const carried = () => ({ baggage: `userId=alice,${SESSION_MEMBER}=${session.id};source=playwright` });

  beforeAll(async () => {
    t = await createTestServer();
    session = await t.mock.session();
    rootToken = await t.token();
    // A token of the session's (each session issues its own).
    const content = 'c';
    const issued = await t.http
      .post(`/sessions/${session.id}/api/v2/auth/client_token`)
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', computeHash(ACME_KEY.secret, content))
      .send({ scope: 'docs_api', content });
    token = issued.body.access_token;
    const renamed = await t.http
      .patch(`/sessions/${session.id}/api/v2/documents`)
      .set('x-access-token', token)
      .send([{ templateUid: 'tpl-5001', id: 101101, title }]);
    expect(renamed.status).toBe(200);
  });
  afterAll(async () => {
    await t.mock.close();
  });

  it('lands in that session at the root URL, journaled by the session only', async () => {
    await t.mock.clearRequests();
    await session.clearRequests();
    const res = await t.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token).set(carried());
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain(title);
    expect(res.headers['x-fake-session']).toBeUndefined();
    const atRoot = await t.http.get('/api/v2/documents?pageNum=1').set('x-access-token', rootToken);
    expect(JSON.stringify(atRoot.body)).not.toContain(title);
    const [entry] = await session.requests();
    expect(entry).toMatchObject({ path: '/api/v2/documents', via: 'baggage-session' });
    expect((await t.mock.requests()).map((e) => e.via)).toEqual(['direct']);
  });

  it('agrees with a URL prefix naming the same session', async () => {
    const res = await t.http
      .get(`/sessions/${session.id}/api/v2/documents/101101`)
      .set('x-access-token', token)
      .set(carried());
    expect(res.status).toBe(200);
  });

  it('answers 400 naming both when the URL prefix names another session', async () => {
    const other = await t.mock.session();
    const res = await t.http
      .get(`/sessions/${other.id}/api/v2/documents/101101`)
      .set('x-access-token', token)
      .set(carried());
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain(`"${session.id}" by its baggage`);
    expect(res.body.message).toContain(`"${other.id}" by the URL prefix`);
  });

  it('answers 400 naming both when an own key names another session', async () => {
    const keyed = await t.mock.session(undefined, { keys: 'own' });
    const [own] = keyed.instance.ownKeys?.list() ?? [];
    expect(own).toBeDefined();
    const res = await t.http
      .post('/api/v2/auth/client_token')
      .set('x-key', own?.keyId ?? '')
      .set('x-hash', 'ab')
      .set(carried())
      .send({ scope: 'docs_api', content: 'c' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(`"${keyed.id}" by its own API key or token`);
  });

  it('answers 404 for a session that does not exist, naming the baggage', async () => {
    const res = await t.http
      .get('/api/v2/documents?pageNum=1')
      .set('x-access-token', token)
      .set('baggage', `${SESSION_MEMBER}=gone`);
    expect(res.status).toBe(404);
    expect(res.body.message).toContain(`"gone", named by the baggage member ${SESSION_MEMBER}`);
  });

  it('never routes the admin API', async () => {
    const res = await t.http.get('/__admin/health').set(carried());
    expect(res.body.session).toBeNull();
  });

  it('ignores baggage that does not parse, with a notice, never a 5xx', async () => {
    await t.mock.clearRequests();
    const res = await t.http
      .get('/api/v2/documents?pageNum=1')
      .set('x-access-token', rootToken)
      .set('baggage', `${SESSION_MEMBER}=%ZZ`);
    expect(res.status).toBe(200);
    const [entry] = await t.mock.requests();
    expect(entry?.notices.map((n) => n.code)).toContain('baggageMalformed');
  });
});

describe('--session-baggage off', () => {
  it('leaves a request with baggage at the root', async () => {
    const t = await createTestServer({ sessionBaggage: 'off' });
    try {
      const session = await t.mock.session();
      const token = await t.token(ACME_KEY);
      const res = await t.http
        .get('/api/v2/documents?pageNum=1')
        .set('x-access-token', token)
        .set('baggage', `${SESSION_MEMBER}=${session.id}`);
      expect(res.status).toBe(200);
      expect(await session.requests()).toEqual([]);
      expect((await t.mock.requests()).at(-1)?.path).toBe('/api/v2/documents');
    } finally {
      await t.mock.close();
    }
  });
});
