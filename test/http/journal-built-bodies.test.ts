import { describe, expect, it } from 'vitest';
import { keepBody, keptBytes, readBody } from '../../src/harness/kept-body.js';
import { createTestServer } from '../support/test-server.js';

/**
 * List and read answers are built from texts made once (rows, details); the journal keeps those
 * pieces rather than a copy of the body, and shows exactly what was sent.
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

  it('a kept pieced text reads, weighs and is summarised as the same text kept whole', () => {
    const pieces = ['{"a":', '"é"', ',"b":[1,2]', '}'];
    const text = pieces.join('');
    const bytes = Buffer.byteLength(text);
    const pieced = keepBody(text, 'json', 1024, { bytes, pieces });
    const whole = keepBody(text, 'json', 1024);
    expect(readBody(pieced)).toEqual(readBody(whole));
    expect(keptBytes(pieced)).toBe(keptBytes(whole));
    expect(pieced.bytes).toBe(whole.bytes);
    // Over the limit: a summary either way, with the same hash.
    expect(keepBody(text, 'json', 8, { bytes, pieces })).toEqual(keepBody(text, 'json', 8));
  });
});
