import { beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../support/test-server.js';

/** The decisions table, listing rows, through HTTP, over the small fixture set of organization 1. */

let server: TestServer;
let token: string;
beforeAll(async () => {
  server = await createTestServer();
  token = await server.token();
});

async function ids(
  query: Record<string, unknown>,
  s: TestServer = server,
  t: string = token,
): Promise<number[]> {
  const res = await s.http.get('/api/v2/documents').query(query).set('x-access-token', t);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body.results.map((d: { id: number }) => d.id);
}

describe('filters (AND-combined)', () => {
  it.each([
    ['no filter', {}, [101102, 101101, 101103, 101104]],
    ['type', { type: 'asset' }, [101103, 101104]],
    ['templateUid tpl-', { templateUid: 'tpl-5001' }, [101102, 101101]],
    ['templateUid TPL-', { templateUid: 'TPL-5001' }, [101102, 101101]],
    ['templateUid bare number', { templateUid: '79' }, [101103, 101104]],
    ['clientId', { clientId: 41002 }, [101102, 101104]],
    ['clientID', { clientID: 41001 }, [101101, 101103]],
    ['type and clientId', { type: 'asset', clientId: 41002 }, [101104]],
    ['templateUid and type that disagree', { templateUid: '79', type: 'location' }, []],
    ['searchTxt in label, any case', { searchTxt: 'LAPTOP' }, [101103, 101104]],
    ['searchTxt in description', { searchTxt: 'head off' }, [101101]],
    ['searchTxt in customId', { searchTxt: 'loc-1' }, [101101]],
    ['searchTxt in templateName', { searchTxt: 'generic asset' }, [101103, 101104]],
    ['searchTxt in a detail text', { searchTxt: 'union st' }, [101102]],
    ['searchTxt in a plain string detail', { searchTxt: 'scotland' }, [101101]],
    ['searchTxt in a tags entry', { searchTxt: 'spare' }, [101104]],
    ['searchTxt with no match', { searchTxt: 'zzz' }, []],
  ])('%s', async (_name, query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });
});

describe('ordering', () => {
  it.each([
    ['label asc (default): case-insensitive, ties by id', {}, [101102, 101101, 101103, 101104]],
    ['label desc: ties by id descending', { orderDir: 'desc' }, [101104, 101103, 101101, 101102]],
    ['id asc', { orderBy: 'id' }, [101101, 101102, 101103, 101104]],
    ['id desc, values in any case', { orderBy: 'ID', orderDir: 'DESC' }, [101104, 101103, 101102, 101101]],
  ])('%s', async (_name, query, expected) => {
    expect(await ids(query)).toEqual(expected);
  });
});

describe('paging', () => {
  it('pageNum is 1-based and defaults to 1', async () => {
    expect(await ids({ resultsPerPage: 2 })).toEqual([101102, 101101]);
    expect(await ids({ resultsPerPage: 2, pageNum: 1 })).toEqual([101102, 101101]);
    expect(await ids({ resultsPerPage: 2, pageNum: 2 })).toEqual([101103, 101104]);
  });
  it('a page past the end is success with no results', async () => {
    const res = await server.http
      .get('/api/v2/documents')
      .query({ pageNum: 50 })
      .set('x-access-token', token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, results: [] });
  });
  it('defaultPageNum changes the page used when pageNum is absent', async () => {
    const s = await createTestServer({ defaultPageNum: 2 });
    const t = await s.token();
    expect(await ids({ resultsPerPage: 3 }, s, t)).toEqual([101104]);
  });
  it('resultsPerPage above maxResultsPerPage is silently capped', async () => {
    const s = await createTestServer({ maxResultsPerPage: 3 });
    const t = await s.token();
    expect(await ids({ resultsPerPage: 1000 }, s, t)).toHaveLength(3);
  });
  it('resultsPerPage defaults to 100', async () => {
    const s = await createTestServer({ fixtures: undefined });
    const { defaultApiKey } = await import('../../src/domain/fixtures/default-keys.js');
    const t = await s.token(defaultApiKey(1));
    expect(await ids({}, s, t)).toHaveLength(100);
  });
});

describe('list rows', () => {
  it('carry the contract fields plus the live extras (clientName entity-encoded)', async () => {
    const res = await server.http
      .get('/api/v2/documents')
      .query({ clientId: 41002, type: 'asset' })
      .set('x-access-token', token);
    expect(res.body.results[0]).toEqual({
      id: 101104,
      organization_id: 1,
      label: 'laptop 01',
      description: 'spare',
      client_id: 41002,
      customId: '',
      templateId: 79,
      templateName: 'Generic Asset',
      type: 'asset',
      clientName: 'Matt&#039;s Museum',
      accessible: true,
      last_modified: expect.any(String),
    });
    expect(typeof res.body.apiRequestUid).toBe('string');
    // Rows are serialised once per stored document: the text sent is exactly the body's JSON.
    expect(res.text).toBe(JSON.stringify(res.body));
  });
});

describe('query keys that name object prototypes are data', () => {
  it('?__proto__[x]=1&constructor=2 are ignored like any unknown parameter', async () => {
    const res = await server.http
      .get('/api/v2/documents?__proto__[polluted]=1&constructor=2&prototype=3')
      .set('x-access-token', token);
    expect(res.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
