/**
 * Faults with headers and chance: the headers reach the client, a seeded probability hits the
 * same requests in every run, `after` lets the first matches through; a header Node could not
 * send is refused wherever a fault is made.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SeededChance } from '../../src/harness/seeded-chance.js';
import { createMockServer } from '../../src/index.js';
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

describe('fault headers Node could not send', () => {
  // NUL, a control character, a character above U+00FF: Node refuses to write each.
  const badValues = ['a\u0000b', 'bell\u0007', 'snow \u2603'];

  it('are refused when the fault is made (400 naming the header), never a 500 on a matching request', async () => {
    for (const value of badValues) {
      const res = await server.http
        .post('/__admin/faults')
        .send({ path: '/api/v2/documents', status: 503, headers: { 'X-Note': value } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ location: 'body/headers/X-Note' });
      expect(res.body.errors[0].message).toMatch(/^cannot be sent: a header value holds tab, visible ASCII/);
    }
    expect(() => server.mock.addFault({ status: 503, headers: { 'X-Note': 'a\u0000b' } })).toThrow(
      /body\/headers\/X-Note cannot be sent/,
    );
    expect(await server.mock.faults()).toHaveLength(0);
    // Latin-1 is what Node sends: accepted and answered.
    await server.http
      .post('/__admin/faults')
      .send({ path: '/api/v2/documents', status: 503, headers: { 'X-Note': 'caf\u00e9\tok' } })
      .expect(201);
    const token = await server.token();
    const res = await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token);
    expect(res.status).toBe(503);
    expect(res.headers['x-note']).toMatch(/^caf.+\tok$/);
  });

  it('are refused in a scenario step, nothing applied', async () => {
    const res = await server.http.post('/__admin/scenarios').send({
      name: 'mine',
      steps: [
        { kind: 'clock', advanceSeconds: 5 },
        {
          kind: 'fault',
          fault: { status: 503, headers: { 'X-Note': 'a\u0001' } },
          when: { afterRequests: 2 },
        },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].location).toBe('body/steps/1/fault/headers/X-Note');
    expect((await server.mock.scenarios()).applied).toHaveLength(0);
  });

  it('stop a start with --scenario naming the file and the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fault-headers-'));
    const file = join(dir, 'bad-header.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'mine',
        steps: [{ kind: 'fault', fault: { status: 503, headers: { 'X-Note': 'a\u0000' } } }],
      }),
    );
    try {
      await expect(createMockServer({ scenario: file, logLevel: 'silent' })).rejects.toThrow(
        `scenario file ${file} (option --scenario) at steps/0/fault/headers/X-Note: cannot be sent`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('held across fakes and against client text', () => {
  it('a seeded chance hits the same requests in another fake', async () => {
    const other = await createTestServer();
    try {
      const hitsIn = async (s: TestServer) => {
        s.mock.addFault({ path: '/api/v2/documents', status: 503, probability: 0.4, seed: 1234 });
        const token = await s.token();
        const hits: number[] = [];
        for (let i = 0; i < 25; i++)
          if ((await s.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token)).status === 503)
            hits.push(i);
        return hits;
      };
      const here = await hitsIn(server);
      expect(await hitsIn(other)).toEqual(here);
      expect(here.length).toBeGreaterThan(0);
    } finally {
      await other.mock.close();
    }
  });

  it('matches a path with regular-expression characters as text, never as a pattern', async () => {
    // As a regular expression this would backtrack for a long time, and match other paths.
    server.mock.addFault({ path: '/api/v2/(a+)+$.*', status: 418 });
    server.mock.expectViolation({ path: '/api/v2/(a+)+$.*' });
    const token = await server.token();
    const evil = `/api/v2/${'a'.repeat(40)}!`;
    expect((await server.http.get(evil).set('x-access-token', token)).status).not.toBe(418);
    expect((await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token)).status).toBe(
      200,
    );
    expect((await server.http.get('/api/v2/(a+)+$.anything').set('x-access-token', token)).status).toBe(418);
  });
});
