import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, defaultApiKey, type MockServer } from '../../src/index.js';
import { issueToken } from '../support/test-server.js';

/**
 * What real clients of the live service send, against the default fixtures: the vendor's own
 * example requests, the endpoints public clients call beyond the documentation, and the notices
 * that tell a client team where it relies on luck.
 */

const KEY = defaultApiKey(1);
let mock: MockServer;
let http: ReturnType<typeof supertest>;
let token: string;

beforeAll(async () => {
  mock = await createMockServer({ logLevel: 'silent' });
  http = supertest(mock.app);
  token = await issueToken(http, '', KEY);
});
afterAll(async () => {
  await mock.close();
});

const get = (path: string) => http.get(path).set('x-access-token', token);

/** The notices journaled for the last request to `path` (any method). */
async function lastNotices(
  path: string,
  method?: string,
): Promise<Array<{ location: string; message: string }>> {
  const entries = await mock.requests({ path, method });
  const last = entries.at(-1);
  expect(last, `a journal entry for ${path}`).toBeDefined();
  expect(last?.violations).toEqual([]);
  return last?.notices ?? [];
}

const ids = (res: { body: { results: Array<{ id: number }> } }) => res.body.results.map((r) => r.id);

describe('query parameters as the vendor and its clients send them', () => {
  it("answers the vendor's own documented example request, empty values and all", async () => {
    const res = await get(
      '/api/v2/documents?resultsPerPage=10&pageNum=1&orderBy&orderDir=desc&type=location&templateUid=101&clientID=101&searchTxt',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, results: [] });
    const notices = await lastNotices('/api/v2/documents');
    expect(notices.map((n) => n.location)).toContain('query.clientID');
  });

  it.each([
    'type',
    'templateUid',
    'clientId',
    'pageNum',
    'resultsPerPage',
    'orderBy',
    'orderDir',
    'searchTxt',
  ])('reads an empty %s as "not given"', async (name) => {
    const plain = await get('/api/v2/documents?pageNum=1&orderBy=id');
    const res = await get(`/api/v2/documents?pageNum=1&orderBy=id&${name}=`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(ids(res)).toEqual(ids(plain));
  });

  it.each([
    ['orderBY', 'orderBy', 'orderBY=id&orderDir=desc', 'orderBy=id&orderDir=desc'],
    ['templateUID', 'templateUid', 'templateUID=tpl-5001', 'templateUid=tpl-5001'],
    ['clientID', 'clientId', 'clientID=41002', 'clientId=41002'],
  ])('reads the spelling %s as %s, with a notice', async (variant, canonical, sent, expected) => {
    const want = await get(`/api/v2/documents?pageNum=1&${expected}`);
    const res = await get(`/api/v2/documents?pageNum=1&${sent}`);
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(ids(want));
    expect(ids(res)).not.toEqual(ids(await get('/api/v2/documents?pageNum=1')));
    const notices = await lastNotices('/api/v2/documents');
    // The last request is the unfiltered one: read the notices of the one before it.
    const sentWith = (await mock.requests({ path: '/api/v2/documents' })).at(-2)?.notices ?? [];
    expect(notices.some((n) => n.location === `query.${variant}`)).toBe(false);
    const notice = sentWith.find((n) => n.location === `query.${variant}`);
    expect(notice?.message).toContain(`send ${canonical}`);
  });

  it('takes the last value of a repeated parameter, with a notice', async () => {
    const res = await get('/api/v2/documents?pageNum=1&resultsPerPage=50&resultsPerPage=3');
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(3);
    const notices = await lastNotices('/api/v2/documents');
    expect(notices.find((n) => n.location === 'query.resultsPerPage')?.message).toMatch(
      /2 times.*last value/,
    );
  });

  it('caps the page size at 100 as the live service does, with a notice', async () => {
    const res = await get('/api/v2/documents?pageNum=1&resultsPerPage=1000');
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(100);
    const notices = await lastNotices('/api/v2/documents');
    expect(notices.find((n) => n.location === 'query.resultsPerPage')?.message).toContain('cap (100)');
  });

  it('notes a left-out pageNum: the documentation says its default is 100', async () => {
    expect((await get('/api/v2/documents?resultsPerPage=5')).status).toBe(200);
    const notices = await lastNotices('/api/v2/documents');
    expect(notices.find((n) => n.location === 'query.pageNum')?.message).toContain('default as 100');
  });

  it('answers a type outside the documented list with no documents and a notice', async () => {
    const res = await get('/api/v2/documents/all?type=folders&pageNum=1');
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
    const notices = await lastNotices('/api/v2/documents/all');
    expect(notices.find((n) => n.location === 'query.type')?.message).toContain('"folders"');
  });

  it('notes a parameter the operation does not have, naming a near miss', async () => {
    expect((await get('/api/v2/documents?pageNum=1&orderby=id')).status).toBe(200);
    const notices = await lastNotices('/api/v2/documents');
    expect(notices.find((n) => n.location === 'query.orderby')?.message).toContain('did you mean orderBy');
  });

  it('answers a GET that declares Content-Type: application/json with no body, as an integration platform sends it', async () => {
    const res = await get('/api/v2/documents/101101').set('content-type', 'application/json');
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(101101);
  });

  it('notes a token sent in x-api-token, saying what is known of it', async () => {
    const res = await http.get('/api/v2/documents?pageNum=1').set('x-api-token', token);
    expect(res.status).toBe(200);
    const notices = await lastNotices('/api/v2/documents');
    expect(notices.find((n) => n.location === 'header.x-api-token')?.message).toBe(
      "the token was read from x-api-token: the vendor's parameter tables name this header, its request examples send x-access-token; whether the live service accepts x-api-token is unconfirmed, so send x-access-token",
    );
  });
});

describe('the live surface beyond the documentation', () => {
  it('pages the organization’s clients, names HTML-entity-encoded, under the same cap', async () => {
    const state = mock.state();
    const ownClients = state.clients.filter((c) => c.organizationId === 1).map((c) => c.id);
    const first = await get('/api/v2/documents/clients?resultsPerPage=2&pageNum=1');
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    expect(first.body.results).toHaveLength(2);
    const all = await get('/api/v2/documents/clients?resultsPerPage=1000&pageNum=1');
    expect(all.body.results.map((c: { id: number }) => c.id)).toEqual([...ownClients].sort((a, b) => a - b));
    expect(all.body.results).toContainEqual({ id: 41002, name: 'Matt&#039;s Museum' });
    const past = await get('/api/v2/documents/clients?resultsPerPage=100&pageNum=2');
    expect(past.body).toMatchObject({ success: true, results: [] });
  });

  it('lists /api/v2/documents/all exactly as /api/v2/documents', async () => {
    const query = 'type=location&orderBy=label&orderDir=desc&resultsPerPage=7&pageNum=1';
    const a = await get(`/api/v2/documents?${query}`);
    const b = await get(`/api/v2/documents/all?${query}`);
    expect(b.status).toBe(200);
    expect(b.body.results).toEqual(a.body.results);
    expect(b.body.description).toBe(a.body.description);
  });

  it('carries the top-level description the documentation’s sample shows', async () => {
    const res = await get('/api/v2/documents?pageNum=1');
    expect(typeof res.body.description).toBe('string');
  });

  it('serves the spec where the live service serves its Swagger document', async () => {
    const res = await http.get('/api/documentation/v2/swagger');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(Object.keys(res.body.paths)).toContain('/api/v2/documents/clients');
  });

  it('names the allowed methods in a 405', async () => {
    const res = await http.delete('/api/v2/documents').set('x-access-token', token);
    expect(res.status).toBe(405);
    expect(res.headers.allow?.split(', ').sort()).toEqual(['GET', 'HEAD', 'PATCH', 'POST', 'PUT']);
  });
});

describe('POST /api/v2/documents adds documents', () => {
  it('adds a batch atomically and answers the string "true"', async () => {
    const res = await http
      .post('/api/v2/documents')
      .set('x-access-token', token)
      .send([
        { templateUid: 'TPL-5001', clientId: 41001, title: 'Perth Office' },
        { templateUid: '5001', clientId: 41003, title: 'Stirling Office', description: 'new' },
      ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: 'true' });
    const found = await get('/api/v2/documents?searchTxt=office&type=location&pageNum=1');
    const labels = found.body.results.map((r: { label: string }) => r.label);
    expect(labels).toEqual(expect.arrayContaining(['Perth Office', 'Stirling Office']));
  });

  it('rejects the whole batch when one item is bad, naming its index', async () => {
    const before = mock.state().documents.length;
    const res = await http
      .post('/api/v2/documents')
      .set('x-access-token', token)
      .send([
        { templateUid: 'TPL-5001', clientId: 41001, title: 'Never added' },
        { templateUid: 'TPL-5001', clientId: 52001, title: 'Foreign client' },
      ]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].location).toBe('body/1/clientId');
    expect(mock.state().documents.length).toBe(before);
  });

  it('refuses an item with an id: POST adds, PUT and PATCH update', async () => {
    const res = await http
      .post('/api/v2/documents')
      .set('x-access-token', token)
      .send({ templateUid: 'TPL-5001', id: 101101, title: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ location: 'body/id' });
  });
});

describe('batch items and details as real clients send them', () => {
  it('ignores fields it does not know and reads clientID, with notices; an id may be a string of digits', async () => {
    const res = await http
      .patch('/api/v2/documents')
      .set('x-access-token', token)
      .send([
        { templateUid: 'tpl-5001', id: '101101', title: 'Dundee Office', folderId: 7 },
        { templateUid: 'tpl-5001', id: '', title: 'Arbroath Office', clientID: 41003 },
      ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const notices = await lastNotices('/api/v2/documents');
    expect(notices.map((n) => n.location)).toEqual(
      expect.arrayContaining(['body/0/folderId', 'body/1/clientID']),
    );
    const created = await get('/api/v2/documents?searchTxt=arbroath&pageNum=1');
    expect(created.body.results[0]).toMatchObject({ label: 'Arbroath Office', client_id: 41003 });
  });

  it('takes back the details of a read unchanged (read-modify-write), with a notice', async () => {
    const read = await get('/api/v2/documents/101101');
    const details = read.body.details;
    expect(Object.values(details).some((v) => v === null || Array.isArray(v))).toBe(true);
    const res = await http.patch('/api/v2/documents/101101').set('x-access-token', token).send(details);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const again = await get('/api/v2/documents/101101');
    expect(again.body.details).toEqual(details);
    const notices = await lastNotices('/api/v2/documents/101101', 'PATCH');
    expect(notices[0]?.message).toContain('shape reads return');
  });

  it('with readShapedDetails=reject, says exactly which shape to send', async () => {
    const session = await mock.session();
    try {
      session.settings({ readShapedDetails: 'reject' });
      const res = await http
        .patch(`${session.baseUrl}/api/v2/documents/101101`)
        .set('x-access-token', await issueToken(http, session.baseUrl, KEY))
        .send({ tags: [] });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ location: 'body/tags' });
      expect(res.body.errors[0].message).toContain('"value": {"type": "string", "text": "..."}');
    } finally {
      session.delete();
    }
  });

  it('a batch PUT without details clears the template fields, as the spec states', async () => {
    // A Location document of the organization other than those the tests above write to.
    const list = await get('/api/v2/documents?type=location&templateUid=5001&orderBy=id&orderDir=asc');
    const id = (list.body.results as Array<{ id: number }>).find((r) => r.id !== 101101)?.id;
    const before = (await get(`/api/v2/documents/${id}`)).body.details;
    expect(['name', 'address_1', 'city'].some((key) => before[key] !== null)).toBe(true);
    const res = await http
      .put('/api/v2/documents')
      .set('x-access-token', token)
      .send({ templateUid: 'tpl-5001', id, title: 'Renamed' });
    expect(res.status).toBe(200);
    const read = await get(`/api/v2/documents/${id}`);
    for (const key of ['name', 'address_1', 'city']) expect(read.body.details[key]).toBeNull();
  });
});

describe('error bodies and stray paths', () => {
  it('answers success "false" in error bodies under errorSuccess=string', async () => {
    const session = await mock.session();
    try {
      session.settings({ errorSuccess: 'string' });
      const res = await supertest(mock.app)
        .get(`${session.baseUrl}/api/v2/documents/abc`)
        .set('x-access-token', 't');
      expect(res.status).toBe(401);
      expect(res.body.success).toBe('false');
      expect((await http.get('/api/v2/documents/abc')).body.success).toBe(false);
    } finally {
      session.delete();
    }
  });

  it('serves a browser’s / and /favicon.ico unjournaled, and journals other paths outside the API as notices', async () => {
    await mock.clearRequests();
    expect((await http.get('/')).status).toBe(200);
    expect((await http.get('/favicon.ico')).status).toBe(200);
    expect((await http.get('/robots.txt')).status).toBe(404);
    expect((await http.get('/apple-touch-icon.png')).status).toBe(404);
    expect(await mock.violations()).toEqual([]);
    const notices = await mock.notices();
    expect(notices.map((n) => n.path)).toEqual(['/robots.txt', '/apple-touch-icon.png']);
    expect((await http.get('/api/v2/nothing-here').set('x-access-token', token)).status).toBe(404);
    expect((await mock.violations()).map((v) => v.path)).toEqual(['/api/v2/nothing-here']);
  });
});
