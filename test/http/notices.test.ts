import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { NOTICE_CODES, type NoticeCode } from '../../src/notices.js';
import { ACME_KEY, createTestServer, type TestServer } from '../support/test-server.js';

/**
 * Every notice code, provoked by the request a real client would send, and read back from the
 * journal by its code: the entry of `GET /__admin/requests`, `GET /__admin/notices` and
 * `mock.notices()` all carry it (the admin answers are checked against the spec's enum by the
 * suite's conformance setup). The table must cover the whole catalogue.
 */

interface Case {
  code: NoticeCode;
  /** What the client did, for the test name. */
  sends: string;
  method: 'get' | 'patch' | 'post';
  path: string;
  body?: unknown;
  /** Send `body` form-encoded rather than as JSON. */
  form?: boolean;
  /** More headers (the token call's key and hash). */
  headers?: Record<string, string>;
  /** The token header; `x-access-token` unless a case says otherwise, none for `null`. */
  tokenHeader?: string | null;
  status: number;
  location: string;
}

const LOCATION_DOC = { templateUid: 'tpl-5001', id: 101101, title: 'Dundee Office' };

const CASES: Case[] = [
  {
    code: 'pageNumOmitted',
    sends: 'a list without pageNum',
    method: 'get',
    path: '/api/v2/documents?resultsPerPage=5',
    status: 200,
    location: 'query.pageNum',
  },
  {
    code: 'pageSizeCapped',
    sends: 'resultsPerPage above the cap',
    method: 'get',
    path: '/api/v2/documents?pageNum=1&resultsPerPage=1000',
    status: 200,
    location: 'query.resultsPerPage',
  },
  {
    code: 'undocumentedType',
    sends: 'a type outside the documented list',
    method: 'get',
    path: '/api/v2/documents/all?pageNum=1&type=folders',
    status: 200,
    location: 'query.type',
  },
  {
    code: 'spellingVariant',
    sends: 'the query spelling orderBY',
    method: 'get',
    path: '/api/v2/documents?pageNum=1&orderBY=id',
    status: 200,
    location: 'query.orderBY',
  },
  {
    code: 'spellingVariant',
    sends: 'a batch item with clientID',
    method: 'patch',
    path: '/api/v2/documents',
    body: [{ ...LOCATION_DOC, clientID: 41001 }],
    status: 200,
    location: 'body/0/clientID',
  },
  {
    code: 'spellingVariantIgnored',
    sends: 'orderBY beside orderBy',
    method: 'get',
    path: '/api/v2/documents?pageNum=1&orderBy=id&orderBY=title',
    status: 200,
    location: 'query.orderBY',
  },
  {
    code: 'spellingVariantIgnored',
    sends: 'a batch item with clientID beside clientId',
    method: 'patch',
    path: '/api/v2/documents',
    body: [{ ...LOCATION_DOC, clientId: 41001, clientID: 41002 }],
    status: 200,
    location: 'body/0/clientID',
  },
  {
    code: 'unknownParameter',
    sends: 'a parameter the operation does not have',
    method: 'get',
    path: '/api/v2/documents?pageNum=1&orderby=id',
    status: 200,
    location: 'query.orderby',
  },
  {
    code: 'repeatedParameter',
    sends: 'pageNum twice',
    method: 'get',
    path: '/api/v2/documents?pageNum=1&pageNum=2',
    status: 200,
    location: 'query.pageNum',
  },
  {
    code: 'tokenHeaderAlias',
    sends: 'the token in x-api-token',
    method: 'get',
    path: '/api/v2/documents?pageNum=1',
    tokenHeader: 'x-api-token',
    status: 200,
    location: 'header.x-api-token',
  },
  {
    code: 'batchFieldIgnored',
    sends: 'a batch item with a field the fake does not know',
    method: 'patch',
    path: '/api/v2/documents',
    body: [{ ...LOCATION_DOC, folderId: 7 }],
    status: 200,
    location: 'body/0/folderId',
  },
  {
    code: 'readShapedDetails',
    sends: 'details in the shape reads return',
    method: 'patch',
    path: '/api/v2/documents/101101',
    body: { city: 'Dundee' },
    status: 200,
    location: 'body',
  },
  {
    code: 'valueCaseVariant',
    sends: 'orderBy=LABEL and orderDir=DESC',
    method: 'get',
    path: '/api/v2/documents?pageNum=1&orderBy=LABEL&orderDir=DESC',
    status: 200,
    location: 'query.orderBy',
  },
  {
    code: 'formEncodedBody',
    sends: 'a form-encoded token body',
    method: 'post',
    path: '/api/v2/auth/client_token',
    body: { scope: 'docs_api', content: 'api-content-hash' },
    form: true,
    headers: { 'x-key': ACME_KEY.keyId, 'x-hash': computeHash(ACME_KEY.secret, 'api-content-hash') },
    tokenHeader: null,
    status: 200,
    location: 'header.content-type',
  },
  {
    code: 'batchItemWithoutId',
    sends: 'a batch item without id',
    method: 'patch',
    path: '/api/v2/documents',
    body: [{ templateUid: 'tpl-5001', title: 'Perth Office' }],
    status: 200,
    location: 'body/0',
  },
  {
    code: 'baggageMalformed',
    sends: 'a baggage header one of whose members does not parse',
    method: 'get',
    path: '/api/v2/documents?pageNum=1',
    headers: { baggage: 'trace-tier=gold, no-equals-sign' },
    status: 200,
    location: 'header.baggage',
  },
  {
    code: 'keySecretSwapped',
    sends: 'the token call with the secret as x-key and the key ID as the HMAC key',
    method: 'post',
    path: '/api/v2/auth/client_token',
    body: { scope: 'docs_api', content: 'swapped' },
    headers: { 'x-key': ACME_KEY.secret, 'x-hash': computeHash(ACME_KEY.keyId, 'swapped') },
    tokenHeader: null,
    status: 401,
    location: 'header.x-key',
  },
  {
    code: 'nonApiPath',
    sends: 'a path outside the API',
    method: 'get',
    path: '/robots.txt',
    tokenHeader: null,
    status: 404,
    location: 'path',
  },
];

let t: TestServer;
let token: string;

beforeAll(async () => {
  t = await createTestServer();
  token = await t.token();
});
afterAll(async () => {
  await t.mock.close();
});
beforeEach(async () => {
  await t.mock.clearRequests();
});

describe('notice codes', () => {
  it('has a request for every code of the catalogue', () => {
    expect(new Set(CASES.map((c) => c.code))).toEqual(new Set(NOTICE_CODES));
  });

  it.each(CASES.map((c) => [c.code, c.sends, c] as const))('%s: %s', async (code, _sends, c) => {
    let request = t.http[c.method](c.path);
    const header = c.tokenHeader === undefined ? 'x-access-token' : c.tokenHeader;
    if (header !== null) request = request.set(header, token);
    for (const [name, value] of Object.entries(c.headers ?? {})) request = request.set(name, value);
    if (c.form) request = request.type('form');
    const res = c.body === undefined ? await request : await request.send(c.body as object);
    expect(res.status, JSON.stringify(res.body)).toBe(c.status);

    const journal = await t.http.get('/__admin/requests');
    expect(journal.status).toBe(200);
    const entries = journal.body.requests as Array<{
      path: string;
      violations: unknown[];
      notices: Array<{ code: string; location: string; message: string }>;
      behaviours: string[];
    }>;
    const entry = entries.find((e) => e.path === c.path.split('?')[0]);
    expect(entry, `a journal entry for ${c.path}`).toBeDefined();
    expect(entry?.violations).toEqual([]);
    const found = entry?.notices.find((n) => n.code === code);
    expect(found, JSON.stringify(entry?.notices)).toMatchObject({ code, location: c.location });
    expect(found?.message.length).toBeGreaterThan(0);
    // The coverage of the report counts it as the behaviour `notice.<code>`.
    expect(entry?.behaviours).toContain(`notice.${code}`);

    const listed = await t.http.get('/__admin/notices');
    expect(listed.status).toBe(200);
    const codes = (listed.body.notices as Array<{ notices: Array<{ code: string }> }>).flatMap((r) =>
      r.notices.map((n) => n.code),
    );
    expect(codes).toContain(code);
    expect((await t.mock.notices()).flatMap((r) => r.notices.map((n) => n.code))).toContain(code);
  });
});
