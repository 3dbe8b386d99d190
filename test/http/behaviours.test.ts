import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { BEHAVIOUR_IDS, BEHAVIOURS, type BehaviourId } from '../../src/harness/verdicts/behaviours.js';
import { NOTICE_CODES } from '../../src/notices.js';
import { createTestServer, type TestServer, textEntry } from '../support/test-server.js';

/**
 * Every behaviour of the catalogue but the notices (test/http/notices.test.ts provokes each notice
 * code and checks its `notice.<code>` mark), provoked as a client would meet it, and read back
 * from the journal entry's `behaviours`. The table must cover the whole catalogue: a behaviour
 * added without a way to exercise it fails here.
 */

type Send = (t: TestServer, token: string) => Promise<{ status: number }>;

const list =
  (query: string): Send =>
  (t, token) =>
    t.http.get(`/api/v2/documents?${query}`).set('x-access-token', token);

const tokenCall = (
  t: TestServer,
  headers: Record<string, string>,
  body: object = { scope: 'docs_api', content: 'c' },
) => t.http.post('/api/v2/auth/client_token').set(headers).send(body);

const ACME_HEADERS = (content = 'c') => ({
  'x-key': '9f2c4b7a1e6d3c8b5a0f9e2d7c4b1a6e3d8c5b2a7f4e1d6c3b8a5f2e9d6c3b0a',
  'x-hash': computeHash('secret-of-acme', content),
});

/** The compiler holds the table to the catalogue's ids too: one case for each, none misspelt. */
const CASES: Record<Exclude<BehaviourId, `notice.${string}`>, { status: number; send: Send }> = {
  tokenIssued: { status: 200, send: (t) => tokenCall(t, ACME_HEADERS()) },
  tokenExpired: {
    status: 401,
    send: (t, token) => {
      t.mock.advanceClock(3600);
      return list('pageNum=1')(t, token);
    },
  },
  tokenRevoked: {
    status: 401,
    send: (t, token) => {
      t.mock.revokeTokens();
      return list('pageNum=1')(t, token);
    },
  },
  refreshTokenUsed: {
    status: 401,
    send: async (t) => {
      const issued = await tokenCall(t, ACME_HEADERS());
      return list('pageNum=1')(t, issued.body.refresh_token as string);
    },
  },
  pagePastEnd: { status: 200, send: list('pageNum=9999&resultsPerPage=100') },
  shortLastPage: { status: 200, send: list('pageNum=2&resultsPerPage=3') },
  emptyList: { status: 200, send: list('pageNum=1&searchTxt=no-such-text') },
  foreignDocument: {
    status: 403,
    send: (t, token) => t.http.get('/api/v2/documents/201101').set('x-access-token', token),
  },
  missingDocument: {
    status: 403,
    send: (t, token) => t.http.get('/api/v2/documents/999999999').set('x-access-token', token),
  },
  batchCreate: {
    status: 200,
    send: (t, token) =>
      t.http
        .patch('/api/v2/documents')
        .set('x-access-token', token)
        .send([{ templateUid: 'tpl-5001', id: '', title: 'New office' }]),
  },
  batchRefusedWhole: {
    status: 400,
    send: (t, token) =>
      t.http
        .patch('/api/v2/documents')
        .set('x-access-token', token)
        .send([
          { templateUid: 'tpl-5001', id: 101101, title: 'Fine' },
          { templateUid: 'tpl-999', id: 101102, title: 'Unknown template' },
        ]),
  },
  patchClearsOmittedFields: {
    status: 200,
    // 101101 has name and address_1: the body sends name only, so address_1 becomes null.
    send: (t, token) =>
      t.http
        .patch('/api/v2/documents/101101')
        .set('x-access-token', token)
        .send({ name: textEntry('Name', 'Renamed') }),
  },
  emptyQueryValue: { status: 200, send: list('pageNum=1&orderBy=&searchTxt=') },

  'error.invalidBody': {
    status: 400,
    send: (t) => tokenCall(t, ACME_HEADERS(), { scope: 'everything', content: 'c' }),
  },
  'error.malformedJson': {
    status: 400,
    send: (t, token) =>
      t.http
        .patch('/api/v2/documents')
        .set('x-access-token', token)
        .set('content-type', 'application/json')
        .send('{"a":'),
  },
  'error.unsupportedMediaType': {
    status: 400,
    send: (t, token) =>
      t.http
        .patch('/api/v2/documents')
        .set('x-access-token', token)
        .set('content-type', 'application/json; charset=ebcdic')
        .send('[]'),
  },
  'error.invalidId': {
    status: 400,
    send: (t, token) => t.http.get('/api/v2/documents/abc').set('x-access-token', token),
  },
  'error.invalidBatch': {
    status: 400,
    send: (t, token) =>
      t.http
        .patch('/api/v2/documents')
        .set('x-access-token', token)
        .send([{ templateUid: 'tpl-999', id: 101101, title: 'x' }]),
  },
  'error.unknownDetailKeys': {
    status: 400,
    send: (t, token) =>
      t.http
        .patch('/api/v2/documents/101101')
        .set('x-access-token', token)
        .send({ colour: textEntry('Colour', 'red') }),
  },
  'error.missingCredentials': {
    status: 401,
    send: (t) => tokenCall(t, { 'x-key': ACME_HEADERS()['x-key'] }),
  },
  'error.unknownKey': { status: 401, send: (t) => tokenCall(t, { ...ACME_HEADERS(), 'x-key': 'nobody' }) },
  'error.hashMismatch': { status: 401, send: (t) => tokenCall(t, ACME_HEADERS('other content')) },
  'error.invalidToken': { status: 401, send: (t) => list('pageNum=1')(t, 'not-a-token') },
  'error.notFound': {
    status: 403,
    send: (t, token) => t.http.get('/api/v2/documents/999999999').set('x-access-token', token),
  },
  'error.invalidQuery': { status: 404, send: list('pageNum=0') },
  'error.routeNotFound': {
    status: 404,
    send: (t, token) => t.http.get('/api/v2/folders').set('x-access-token', token),
  },
  'error.methodNotAllowed': {
    status: 405,
    send: (t, token) => t.http.delete('/api/v2/documents/101101').set('x-access-token', token),
  },
  'error.memoryBudget': {
    status: 429,
    send: async (t, token) => {
      t.mock.settings({ maxCreatedDocuments: 1000 });
      let last = { status: 0 };
      for (let i = 0; i < 30 && last.status !== 429; i++) {
        last = await t.http
          .post('/api/v2/documents')
          .set('x-access-token', token)
          .send({ templateUid: 'tpl-5001', title: `Big ${i}`, description: 'x'.repeat(200_000) });
      }
      return last;
    },
  },
  'error.payloadTooLarge': {
    status: 413,
    send: (t, token) =>
      t.http
        .patch('/api/v2/documents')
        .set('x-access-token', token)
        .set('content-type', 'application/json')
        .send(`[${'"x",'.repeat(400_000)}"x"]`),
  },
  'error.uriTooLong': { status: 414, send: list(`pageNum=1&searchTxt=${'a'.repeat(9_000)}`) },

  'fault.status': {
    status: 503,
    send: (t, token) => {
      t.mock.addFault({ path: '/api/v2/documents', status: 503, times: 1 });
      return list('pageNum=1')(t, token);
    },
  },
  'fault.delay': {
    status: 200,
    send: (t, token) => {
      t.mock.addFault({ path: '/api/v2/documents', delayMs: 5, times: 1 });
      return list('pageNum=1')(t, token);
    },
  },
  'error.rateLimited': {
    status: 429,
    send: async (t, token) => {
      t.mock.addRateLimit({ per: 'token', limit: 1, windowSeconds: 60 });
      await list('pageNum=1')(t, token);
      return list('pageNum=1')(t, token);
    },
  },
  documentChangedUnderYou: {
    status: 200,
    send: async (t, token) => {
      t.mock.applyScenario({ name: 'changed-under-you' });
      const read = await t.http.get('/api/v2/documents/101101').set('x-access-token', token);
      return t.http.patch('/api/v2/documents/101101').set('x-access-token', token).send(read.body.details);
    },
  },
  'fault.drop': {
    status: 0,
    send: async (t, token) => {
      t.mock.addFault({ path: '/api/v2/documents', drop: true, times: 1 });
      try {
        return await list('pageNum=1')(t, token);
      } catch {
        return { status: 0 };
      }
    },
  },
};

let t: TestServer;

beforeAll(async () => {
  t = await createTestServer({ memoryBudget: 2_000_000 });
});
afterAll(async () => {
  await t.mock.close();
});
beforeEach(() => {
  t.mock.reset();
});

describe('the behaviour catalogue', () => {
  it('has unique ids, each with a meaning, a source, a reason and a way to exercise it', () => {
    expect(new Set(BEHAVIOUR_IDS).size).toBe(BEHAVIOUR_IDS.length);
    for (const b of BEHAVIOURS) {
      for (const text of [b.meaning, b.source, b.why, b.how]) expect(text.length, b.id).toBeGreaterThan(10);
      expect(b.likelihood).toBeGreaterThanOrEqual(1);
    }
  });

  it('has a request below for every behaviour but the notices, and a notice behaviour for every notice code', () => {
    const notices = BEHAVIOUR_IDS.filter((id) => id.startsWith('notice.'));
    expect(notices).toEqual(NOTICE_CODES.map((code) => `notice.${code}`));
    expect(Object.keys(CASES).sort()).toEqual(BEHAVIOUR_IDS.filter((id) => !id.startsWith('notice.')).sort());
  });

  it.each(Object.entries(CASES))(
    '%s is marked on the journal entry of the request that met it',
    async (id, c) => {
      const token = await t.token();
      const before = (await t.mock.requests()).at(-1)?.id ?? 0;
      const res = await c.send(t, token);
      expect(res.status).toBe(c.status);
      // The request that met it is the last one journaled (a case's own token call comes before it).
      const last = (await t.mock.requests({ since: before })).at(-1);
      expect(last?.behaviours, JSON.stringify(last?.behaviours)).toContain(id);
    },
  );

  it('marks the pages of the client list as those of the document list, with its paging notices', async () => {
    const token = await t.token();
    const marked = async (query: string) => {
      const res = await t.http.get(`/api/v2/documents/clients?${query}`).set('x-access-token', token);
      expect(res.status).toBe(200);
      const last = (await t.mock.requests()).at(-1);
      return { rows: (res.body.results as unknown[]).length, behaviours: last?.behaviours };
    };
    const all = await marked('pageNum=1&resultsPerPage=100');
    expect(all.rows).toBeGreaterThan(1);
    expect(all.behaviours).toEqual(['shortLastPage']);
    expect(await marked(`pageNum=1&resultsPerPage=${all.rows}`)).toEqual({ rows: all.rows, behaviours: [] });
    expect(await marked('pageNum=9999&resultsPerPage=100')).toEqual({ rows: 0, behaviours: ['pagePastEnd'] });
    expect(await marked('resultsPerPage=500')).toEqual({
      rows: all.rows,
      behaviours: ['shortLastPage', 'notice.pageNumOmitted', 'notice.pageSizeCapped'],
    });
  });

  it('marks a plain, full page read with no vendor behaviour beyond what it is', async () => {
    const token = await t.token();
    await list('pageNum=1&resultsPerPage=2')(t, token);
    const last = (await t.mock.requests()).at(-1);
    expect(last?.behaviours).toEqual([]);
  });
});
