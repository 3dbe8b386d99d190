import { describe, expect, it } from 'vitest';
import { MAX_LISTED_VIOLATIONS } from '../../src/errors.js';
import { createTestServer } from '../support/test-server.js';

/**
 * Bad input is refused in time linear in its size, with a bounded answer: a batch of tens of
 * thousands of bad items (a few hundred kilobytes, a token enough to send it) and a fixture set of
 * as many bad documents once held the event loop for seconds to minutes, every session waiting.
 * The counts here are scaled down; the answers list the first problems and count the rest.
 */

describe('validation linear in the input, answers bounded', () => {
  it('answers a batch of 20,000 bad items with the first problems and how many more', async () => {
    const server = await createTestServer({ maxBatchItems: 100_000 });
    const token = await server.token();
    const items = Array.from({ length: 20_000 }, () => ({}));
    const res = await server.http.patch('/api/v2/documents').set('x-access-token', token).send(items);
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(MAX_LISTED_VIOLATIONS + 1);
    expect(res.body.errors.at(-1).message).toMatch(/^and \d+ more problems/);
    expect(res.body.message).toMatch(/and \d+ more/);
    const health = await server.http.get('/__admin/health');
    expect(health.status).toBe(200);
  });

  it('answers a fixture set of 20,000 empty documents with the first problems, and keeps the state', async () => {
    const server = await createTestServer();
    const before = server.mock.state().documents.length;
    const res = await server.http
      .put('/__admin/fixtures')
      .send({ documents: Array.from({ length: 20_000 }, () => ({})) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(MAX_LISTED_VIOLATIONS + 1);
    expect(res.body.message).toMatch(/80000 problems/);
    expect(res.body.errors[0].location).toMatch(/^body\/documents\/0\//);
    expect(server.mock.state().documents.length).toBe(before);
  });

  it('creates sessions from such a set no slower: refused the same way', async () => {
    const server = await createTestServer();
    const res = await server.http
      .post('/__admin/sessions')
      .send({ fixtures: { documents: Array.from({ length: 20_000 }, () => ({})) } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(MAX_LISTED_VIOLATIONS + 1);
    expect((await server.http.get('/__admin/sessions')).body.sessions).toEqual([]);
  });
});
