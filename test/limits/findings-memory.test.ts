import { describe, expect, it } from 'vitest';
import { accessToken } from '../support/request-token.js';
import { smallHeapFake } from '../support/small-heap-fake.js';
import { ACME_KEY } from '../support/test-server.js';

/**
 * What a request leaves behind in the journal and the report (its violations and notices) counts
 * against the one memory budget, and what one request can leave is bounded: a PATCH with 20,000
 * unknown detail keys (0.87 MB; it used to pin about 5 MB of heap, and killed a 256 MB fake at
 * request 42) and a create with 20,000 unknown fields (20,000 notices) sent again and again leave
 * the fake alive, its budget reporting the findings within their share, the verdict exact.
 * The fake runs as a child with a small heap, so a regression dies within seconds.
 */

const HEAP_MB = 128;
const ROUNDS = 30;
const KEYS = 20_000;

const fake = smallHeapFake(HEAP_MB);

/** `{"k0": entry, "k1": entry, ...}`: detail keys no template has. */
function unknownDetailKeys(count: number): string {
  return `{${Array.from({ length: count }, (_, i) => `"a-detail-key-no-template-has-${i}":{}`).join(',')}}`;
}

/** A document to create with `count` fields the batch does not know (each a notice). */
function unknownFields(count: number): string {
  const fields = Array.from({ length: count }, (_, i) => `"unknownField${i}":1`).join(',');
  return `{"templateUid":"tpl-5001","title":"Flood",${fields}}`;
}

interface Health {
  memory: { total: { used: number; limit: number }; kinds: Record<string, { used: number; limit: number }> };
}

describe(`findings under a ${HEAP_MB} MB heap`, () => {
  it('PATCHes with 20,000 unknown detail keys and creates with 20,000 unknown fields, again and again: alive, findings in the budget, counts exact', async () => {
    const base = await fake.start();
    const token = await accessToken(base, ACME_KEY);
    const headers = { 'x-access-token': token, 'content-type': 'application/json' };
    const patch = unknownDetailKeys(KEYS);
    const create = unknownFields(KEYS);
    expect(patch.length).toBeGreaterThan(700_000);
    /** A fetch the fake does not answer (it died): the round and its last words. */
    const died = (i: number) => (error: unknown) => {
      throw new Error(`round ${i}: ${(error as Error).message}; the fake's stderr: ${fake.stderr}`);
    };
    for (let i = 0; i < ROUNDS; i++) {
      const patched = await fetch(`${base}/api/v2/documents/101101`, {
        method: 'PATCH',
        headers,
        body: patch,
      }).catch(died(i));
      expect(patched.status, fake.stderr).toBe(400);
      await patched.arrayBuffer();
      const created = await fetch(`${base}/api/v2/documents`, {
        method: 'POST',
        headers,
        body: create,
      }).catch(died(i));
      expect(created.status, fake.stderr).toBe(200);
      await created.arrayBuffer();
    }
    expect(fake.exitCode, fake.stderr).toBeNull();

    const health = (await (await fetch(`${base}/__admin/health`)).json()) as Health;
    const { findings, journals } = health.memory.kinds;
    expect(findings?.used).toBeGreaterThan(0);
    expect(findings?.used).toBeLessThanOrEqual(findings?.limit ?? 0);
    expect(journals?.used).toBeLessThanOrEqual(journals?.limit ?? 0);
    expect(health.memory.total.used).toBeLessThanOrEqual(health.memory.total.limit);

    const report = (await (await fetch(`${base}/__admin/report`)).json()) as {
      summary: {
        violatingRequests: number;
        requestsWithNotices: number;
        noticeCodes: Record<string, number>;
      };
      violations: Array<{ violations: unknown[] }>;
      notices: Array<{ notices: Array<{ code: string; location: string; message: string }> }>;
    };
    expect(report.summary.violatingRequests).toBe(ROUNDS);
    expect(report.summary.requestsWithNotices).toBe(ROUNDS);
    expect(report.summary.noticeCodes.batchFieldIgnored).toBe(ROUNDS);
    // One request keeps the first 100 findings and a count of the rest.
    expect(report.violations[0]?.violations).toHaveLength(101);
    const notices = report.notices[0]?.notices ?? [];
    expect(notices).toHaveLength(101);
    expect(notices[100]).toMatchObject({ code: 'batchFieldIgnored', location: 'request' });
    expect(notices[100]?.message).toContain(`and ${KEYS - 100} more batchFieldIgnored notices`);
  }, 180_000);
});
