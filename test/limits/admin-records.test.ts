import { afterEach, describe, expect, it } from 'vitest';
import { RECORD_BOUNDS } from '../../src/harness/held-records.js';
import { createTestServer, type TestServer } from '../support/test-server.js';

/**
 * What admin calls leave (faults with their bodies and headers, rate limits, declared
 * violations, applied scenarios with their steps) is bounded per instance by count and by bytes,
 * in the `controls` kind of the one memory budget: past a bound the call answers 4xx in the
 * vendor's shape naming the bound, nothing is added, and what was held stays; removing records
 * gives their bytes back. `admin-records-heap.test.ts` runs the attacks against a child process
 * with a small heap.
 */

interface Usage {
  used: number;
  limit: number;
}

let server: TestServer;
afterEach(async () => {
  await server?.mock.close();
});

async function controls(): Promise<Usage> {
  const res = await server.http.get('/__admin/health');
  return res.body.memory.kinds.controls as Usage;
}

function expectVendorError(res: { status: number; body: Record<string, unknown> }, status: number) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ success: false, code: 0, status });
  expect(typeof res.body.apiRequestUid).toBe('string');
}

describe('admin records and the memory budget', () => {
  it('counts a fault’s body and headers, refuses one past the controls share (429 naming it), and gives the bytes back on delete', async () => {
    // controls: 10 % of 4 MB = about 400 KB.
    server = await createTestServer({ memoryBudget: 4_000_000 });
    const before = await controls();
    expect(before.used).toBe(0);
    const body = { filler: 'b'.repeat(150_000) };
    const first = await server.http
      .post('/__admin/faults')
      .send({ path: '/api/v2/documents', status: 503, body, headers: { 'x-note': 'h'.repeat(8000) } });
    expect(first.status).toBe(201);
    const held = await controls();
    expect(held.used).toBeGreaterThan(158_000);
    await server.http.post('/__admin/faults').send({ status: 503, body }).expect(201);
    const refused = await server.http.post('/__admin/faults').send({ status: 503, body });
    expectVendorError(refused, 429);
    expect(refused.body.message).toMatch(
      /^memory budget reached: faults, rate limits, expected violations and scenarios would hold \d+ bytes, over their share of memoryBudget/,
    );
    expect((await server.http.get('/__admin/faults')).body.faults).toHaveLength(2);
    await server.http.delete(`/__admin/faults/${first.body.id}`).expect(200);
    expect((await controls()).used).toBeLessThan(held.used);
    await server.http.delete('/__admin/faults').expect(200);
    expect((await controls()).used).toBe(0);
    // Room again.
    await server.http.post('/__admin/faults').send({ status: 503, body }).expect(201);
  });

  it('refuses the fault past the count bound per instance (429 tooManyRecords naming it), nothing added', async () => {
    server = await createTestServer();
    const { mock } = server;
    for (let i = 0; i < RECORD_BOUNDS.faults; i++) mock.addFault({ path: `/api/v2/x${i}`, status: 500 });
    const res = await server.http.post('/__admin/faults').send({ status: 503 });
    expectVendorError(res, 429);
    expect(res.body.message).toBe(
      `too many faults: an instance holds at most ${RECORD_BOUNDS.faults} at once; remove some (DELETE /__admin/faults/{id} or /__admin/faults), or reset the instance`,
    );
    expect(mock.faults()).toHaveLength(RECORD_BOUNDS.faults);
    // A session has bounds of its own.
    const session = await server.http.post('/__admin/sessions').send({});
    await server.http.post(`/sessions/${session.body.id}/__admin/faults`).send({ status: 503 }).expect(201);
    // A reset makes room.
    await server.http.post('/__admin/reset').expect(200);
    await server.http.post('/__admin/faults').send({ status: 503 }).expect(201);
  });

  it('bounds rate limits, declarations and applied scenarios by count', async () => {
    server = await createTestServer();
    const { mock } = server;
    for (let i = 0; i < RECORD_BOUNDS.rateLimits; i++)
      mock.addRateLimit({ per: 'key', limit: 10, windowSeconds: 60 });
    const limit = await server.http
      .post('/__admin/rate-limits')
      .send({ per: 'key', limit: 10, windowSeconds: 60 });
    expectVendorError(limit, 429);
    expect(limit.body.message).toMatch(/^too many rate limits: an instance holds at most 100 at once/);

    for (let i = 0; i < RECORD_BOUNDS.expectedViolations; i++) mock.expectViolation({ location: `q${i}` });
    const declared = await server.http.post('/__admin/expected-violations').send({ location: 'x' });
    expectVendorError(declared, 429);
    expect(declared.body.message).toMatch(/^too many expected violations: an instance holds at most 10000/);
    expect(mock.expectedViolations()).toHaveLength(RECORD_BOUNDS.expectedViolations);

    const step = { kind: 'clock', advanceSeconds: 1, when: { afterRequests: 5 } };
    for (let i = 0; i < RECORD_BOUNDS.scenarios; i++)
      mock.applyScenario({ name: `mine-${i}`, steps: [step] });
    const scenario = await server.http.post('/__admin/scenarios').send({ name: 'one-more', steps: [step] });
    expectVendorError(scenario, 429);
    expect(scenario.body.message).toMatch(/^too many applied scenarios: an instance holds at most 100/);
    expect(mock.scenarios().applied).toHaveLength(RECORD_BOUNDS.scenarios);
  });

  it('counts declarations, rate limits and scenario steps in the budget and refuses past it', async () => {
    server = await createTestServer({ memoryBudget: 2_000_000 });
    const path = `/api/v2/${'p'.repeat(2000)}`;
    let added = 0;
    let refused: { status: number; body: Record<string, unknown> } | undefined;
    while (!refused && added < 1000) {
      const res = await server.http
        .post('/__admin/expected-violations')
        .send({ path, location: 'l'.repeat(1024) });
      if (res.status === 201) added++;
      else refused = res;
    }
    expect(refused).toBeDefined();
    expectVendorError(refused as { status: number; body: Record<string, unknown> }, 429);
    expect(refused?.body.message).toMatch(/^memory budget reached: faults, rate limits, expected violations/);
    expect(added).toBeGreaterThan(10);
    const full = await controls();
    expect(full.used).toBeGreaterThan(full.limit - 4000);
    // A rate limit and a scenario do not fit either; neither is half-applied.
    const limit = await server.http
      .post('/__admin/rate-limits')
      .send({ per: 'key', limit: 1, windowSeconds: 1, path });
    expectVendorError(limit, 429);
    const steps = [{ kind: 'fault', fault: { path, status: 503, headers: { 'x-a': 'v'.repeat(8000) } } }];
    const scenario = await server.http.post('/__admin/scenarios').send({ name: 'mine', steps });
    expectVendorError(scenario, 429);
    expect(server.mock.scenarios().applied).toHaveLength(0);
    expect(server.mock.faults()).toHaveLength(0);
    await server.http.delete('/__admin/expected-violations').expect(200);
    expect((await controls()).used).toBe(0);
    await server.http.post('/__admin/scenarios').send({ name: 'mine', steps }).expect(201);
    expect((await controls()).used).toBeGreaterThan(8000);
    expect(server.mock.faults()).toHaveLength(1);
    await server.http.delete('/__admin/scenarios').expect(200);
    expect((await controls()).used).toBe(0);
  });

  it('refuses a path, method or header name longer than the spec allows (400 naming the field)', async () => {
    server = await createTestServer();
    const long = `/${'p'.repeat(2048)}`;
    for (const [url, body, location] of [
      ['/__admin/faults', { path: long, status: 503 }, 'body/path'],
      ['/__admin/faults', { method: 'G'.repeat(33), status: 503 }, 'body/method'],
      ['/__admin/faults', { status: 503, headers: { ['x'.repeat(257)]: 'v' } }, 'body/headers'],
      ['/__admin/rate-limits', { per: 'key', limit: 1, windowSeconds: 1, path: long }, 'body/path'],
      ['/__admin/expected-violations', { path: long }, 'body/path'],
    ] as const) {
      const res = await server.http.post(url).send(body);
      expectVendorError(res, 400);
      expect(JSON.stringify(res.body.errors)).toContain(location);
    }
    const steps = [{ kind: 'clock', advanceSeconds: 1, when: { onRequest: { path: long } } }];
    const res = await server.http.post('/__admin/scenarios').send({ name: 'mine', steps });
    expectVendorError(res, 400);
    expect(res.body.errors[0].location).toBe('body/steps/0/when/onRequest/path');
  });
});
