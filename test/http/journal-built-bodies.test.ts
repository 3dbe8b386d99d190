import { describe, expect, it } from 'vitest';
import { renderJsonBytes } from '../../src/contract/json-text.js';
import { keepBody, keptBytes, readBody } from '../../src/harness/verdicts/kept-body.js';
import { createTestServer } from '../support/test-server.js';

/**
 * List and read answers are built from texts made once (frozen rows, details); the journal keeps
 * the body they were rendered from rather than a copy of the text, and shows exactly what was sent,
 * whatever changed since.
 */
describe('the journal of built answers', () => {
  it('shows a list page and a read exactly as sent, whole and in the listing', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const list = await server.http
      .get('/api/v2/documents?resultsPerPage=3&orderBy=label')
      .set('x-access-token', token)
      .expect(200);
    const id = list.body.results[0].id;
    const read = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token).expect(200);

    const { requests } = (await server.http.get('/__admin/requests')).body;
    const [listed, readEntry] = requests.slice(-2);
    expect(listed.response).toEqual(list.body);
    expect(readEntry.response).toEqual(read.body);
    const whole = await server.http.get(`/__admin/requests/${listed.id}`);
    expect(whole.body.response).toEqual(list.body);
    expect(JSON.stringify(whole.body.response)).toBe(list.text);
    const [entry] = (await server.mock.requests()).slice(-1);
    expect(entry?.response).toEqual(read.body);
  });

  it('shows a read as it was sent after the document was changed', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const list = await server.http.get('/api/v2/documents?resultsPerPage=1').set('x-access-token', token);
    const id = list.body.results[0].id;
    const before = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token).expect(200);
    await server.http.patch(`/api/v2/documents/${id}`).set('x-access-token', token).send({}).expect(200);
    const after = await server.http.get(`/api/v2/documents/${id}`).set('x-access-token', token).expect(200);
    expect(after.text).not.toBe(before.text);
    const reads = (await server.mock.requests()).filter(
      (r) => r.method === 'GET' && r.path.endsWith(`/${id}`),
    );
    expect(reads.map((r) => JSON.stringify(r.response))).toEqual([before.text, after.text]);
  });

  it('keeps a rendered value only when nothing in it can change', () => {
    const frozenRow = Object.freeze({ id: 1, label: 'é' });
    const stable = renderJsonBytes({ success: true, results: [frozenRow, 2] });
    expect(stable.replayable).toBe(true);
    const live = { id: 2, label: 'x' };
    expect(renderJsonBytes({ success: true, results: [live] }).replayable).toBe(false);
    expect(renderJsonBytes({ when: new Date(0) }).replayable).toBe(false);
  });

  it('a kept rendered value reads and is summarised as the same text kept whole, and weighs its bytes', () => {
    const value = { a: 'é', b: [1, 2] };
    const sent = Buffer.from(JSON.stringify(value));
    const rendered = keepBody(sent, 'json', 1024, { rendered: value });
    const whole = keepBody(sent, 'json', 1024);
    expect(readBody(rendered)).toEqual(readBody(whole));
    expect(keptBytes(rendered)).toBe(sent.length);
    expect(rendered.bytes).toBe(whole.bytes);
    // Over the limit: a summary either way, with the same hash.
    expect(keepBody(sent, 'json', 8, { rendered: value })).toEqual(keepBody(sent, 'json', 8));
  });
});
