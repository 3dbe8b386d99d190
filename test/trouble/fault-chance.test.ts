/**
 * Faults with headers and chance: the headers reach the client, a seeded probability hits the
 * same requests in every run, `after` lets the first matches through.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SeededChance } from '../../src/harness/seeded-chance.js';
import { createTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(() => server.mock.close());
beforeEach(() => {
  server.mock.reset();
  server.mock.clearReport();
});

/** Which of `count` list requests a fresh fault with probability 0.3, seed 7 hits. */
async function hitsOfOneRun(count: number): Promise<number[]> {
  await server.http.post('/__admin/reset').expect(200);
  await server.http
    .post('/__admin/faults')
    .send({ path: '/api/v2/documents', status: 503, probability: 0.3, seed: 7 })
    .expect(201);
  const token = await server.token();
  const hits: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);
    if (res.status === 503) hits.push(i);
    else expect(res.status).toBe(200);
  }
  return hits;
}

describe('faults with headers and chance', () => {
  it('a fault with probability 0.3 and seed 7 hits the same requests in two runs', async () => {
    const first = await hitsOfOneRun(30);
    const second = await hitsOfOneRun(30);
    expect(second).toEqual(first);
    // About three in ten, and neither none nor all.
    expect(first.length).toBeGreaterThan(3);
    expect(first.length).toBeLessThan(18);
    const [fault] = await server.mock.faults();
    expect(fault).toMatchObject({ probability: 0.3, seed: 7, hits: first.length, matched: 30 });
  });

  it('the same seed draws the same sequence; another seed another one', () => {
    const draw = (seed: number) => {
      const chance = new SeededChance(0.5, seed);
      return Array.from({ length: 20 }, () => chance.draw());
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it("a fault's headers reach the client", async () => {
    await server.http
      .post('/__admin/faults')
      .send({
        path: '/api/v2/documents',
        status: 429,
        headers: { 'Retry-After': '7', 'X-Custom': 'yes' },
        times: 1,
      })
      .expect(201);
    const token = await server.token();
    const res = await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.headers['x-custom']).toBe('yes');
  });

  it('after lets the first matches through', async () => {
    await server.mock.addFault({ path: '/api/v2/documents', status: 500, after: 2, times: 1 });
    const token = await server.token();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token)).status,
      );
    expect(statuses).toEqual([200, 200, 500, 200]);
  });

  it('refuses headers with drop, framing headers and a seed without probability, naming the field', async () => {
    const bad = [
      [{ drop: true, headers: { 'Retry-After': '1' } }, 'body/headers'],
      [{ status: 503, headers: { 'Content-Length': '3' } }, 'body/headers/Content-Length'],
      [{ status: 503, seed: 3 }, 'body/seed'],
      [{ status: 503, probability: 2 }, 'body/probability'],
      [{ status: 503, headers: { 'Bad Name': 'x' } }, 'body/headers'],
    ] as const;
    for (const [fault, location] of bad) {
      const res = await server.http.post('/__admin/faults').send(fault);
      expect(res.status, JSON.stringify(fault)).toBe(400);
      expect(JSON.stringify(res.body.errors)).toContain(location);
    }
    expect(await server.mock.faults()).toEqual([]);
  });
});
