import { describe, expect, it } from 'vitest';
import { smallHeapFake } from '../support/small-heap-fake.js';

/**
 * Admin calls cannot kill the fake: the records they leave (large faults, many declarations)
 * count against the memory budget, so a child fake with a small heap (96 MB) refuses them once the
 * `controls` share is full, stays up, and its health reports what they hold. Before they were
 * counted, fifteen large faults or a stream of small declarations exhausted the heap.
 */

const HEAP_MB = 96;

const fake = smallHeapFake(HEAP_MB);

interface Usage {
  used: number;
  limit: number;
}

async function memory(base: string): Promise<Record<'bodies' | 'controls', Usage>> {
  const res = await fetch(`${base}/__admin/health`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { memory: { kinds: Record<'bodies' | 'controls', Usage> } }).memory.kinds;
}

async function post(base: string, path: string, body: string): Promise<{ status: number; message: string }> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const answer = (await res.json()) as { message?: string };
  return { status: res.status, message: answer.message ?? '' };
}

describe('admin records under a small heap', () => {
  it('fifteen large faults: the ones past the controls share are refused, the fake stays up and reports the bytes', async () => {
    const base = await fake.start();
    const { bodies, controls: empty } = await memory(base);
    expect(empty.used).toBe(0);
    // As large as a body may be (fifteen of them are more than the heap), then smaller ones.
    const faultOf = (bytes: number) => `{"status":503,"body":"${'f'.repeat(Math.floor(bytes))}"}`;
    const send = async (body: string): Promise<number> => {
      const res = await post(base, '/__admin/faults', body);
      if (res.status !== 201) {
        expect(res.status, res.message).toBe(429);
        expect(res.message).toMatch(/^memory budget reached: .*faults, rate limits, expected violations/);
      }
      return res.status;
    };
    const large = faultOf(bodies.limit * 0.9);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push(await send(large));
    expect(statuses).toContain(429);
    const medium = faultOf(empty.limit / 8);
    let accepted = 0;
    while ((await send(medium)) === 201) accepted++;
    expect(accepted).toBeGreaterThan(0);
    const { controls } = await memory(base);
    expect(controls.used).toBeGreaterThan(controls.limit / 2);
    expect(controls.used).toBeLessThanOrEqual(controls.limit);
    expect(fake.exitCode, fake.stderr).toBeNull();
  }, 120_000);

  it('small declarations until refused: the fake stays up and reports what they hold', async () => {
    const base = await fake.start();
    const body = JSON.stringify({ path: `/api/v2/${'p'.repeat(2000)}`, location: 'l'.repeat(1024) });
    let added = 0;
    let refusal = '';
    const worker = async () => {
      while (!refusal && added < 100_000) {
        const res = await post(base, '/__admin/expected-violations', body);
        if (res.status === 201) added++;
        else {
          expect(res.status, res.message).toBe(429);
          refusal = res.message;
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    expect(refusal).toMatch(/^memory budget reached: .*expected violations/);
    const { controls } = await memory(base);
    expect(controls.used).toBeGreaterThan(controls.limit / 2);
    expect(controls.used).toBeLessThanOrEqual(controls.limit);
    expect(added).toBeGreaterThan(100);
    expect(fake.exitCode, fake.stderr).toBeNull();
  }, 120_000);
});
