import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildBase, DocumentStore, type StoreBase } from '../../src/domain/store.js';
import type { Document } from '../../src/domain/types.js';
import { details } from '../fixtures/domain/dataset.js';

const LABELS = ['a', 'A', 'b', 'B', 'ab', 'Ab', 'é', 'z', '', 'Zz'];

function doc(id: number, org: number, label: string): Document {
  return {
    id,
    organization_id: org,
    client_id: 1,
    templateId: 1,
    label,
    description: '',
    customId: '',
    details: details({}),
    last_modified: '2025-01-01T00:00:00.000Z',
  };
}

function expectOrders(store: DocumentStore, orgs: number[]): void {
  const all = store.all();
  for (const org of orgs) {
    const mine = all.filter((d) => d.organization_id === org);
    const byId = [...mine].sort((a, b) => a.id - b.id).map((d) => d.id);
    const byLabel = [...mine]
      .sort((a, b) => {
        const ka = a.label.toLowerCase();
        const kb = b.label.toLowerCase();
        return ka < kb ? -1 : ka > kb ? 1 : a.id - b.id;
      })
      .map((d) => d.id);
    const orders = store.ordersOf(org);
    expect(orders?.byId.map((d) => d.id) ?? []).toEqual(byId);
    expect(orders?.byLabel.map((d) => d.id) ?? []).toEqual(byLabel);
    // The orders hold the stored objects, not stale ones.
    for (const d of orders?.byLabel ?? []) expect(store.get(d.id)).toBe(d);
  }
}

/** Freezes the reset point's arrays so any in-place write to them throws. */
function frozen(base: StoreBase): StoreBase {
  for (const o of base.orders.values()) {
    Object.freeze(o.byId);
    Object.freeze(o.byLabel);
  }
  Object.freeze(base.documents);
  return base;
}

const write = fc.record({
  id: fc.integer({ min: 1, max: 150 }),
  org: fc.constantFrom(1, 2, 3),
  label: fc.constantFrom(...LABELS),
});

describe('DocumentStore', () => {
  it('rejects duplicate and invalid ids when building a base', () => {
    expect(() => buildBase([doc(1, 1, 'a'), doc(1, 1, 'b')])).toThrow(/duplicate document id 1/);
    expect(() => buildBase([doc(0, 1, 'a')])).toThrow(/not a positive integer/);
    expect(() => buildBase([doc(1.5, 1, 'a')])).toThrow(/not a positive integer/);
  });

  it('sorts a base given in any order', () => {
    const store = new DocumentStore(
      buildBase([doc(3, 1, 'b'), doc(1, 1, 'B'), doc(2, 1, 'a'), doc(9, 2, 'x')]),
    );
    expectOrders(store, [1, 2]);
    expect(store.nextId()).toBe(10);
  });

  it('single puts, bulk puts and moves between organizations keep both orders right; the base is never written', () => {
    fc.assert(
      fc.property(
        fc.array(write, { maxLength: 60 }),
        fc.array(fc.array(write, { minLength: 0, maxLength: 200 }), { maxLength: 4 }),
        (initial, batches) => {
          const seen = new Set<number>();
          const docs = initial
            .filter((w) => !seen.has(w.id) && seen.add(w.id))
            .map((w) => doc(w.id, w.org, w.label));
          const base = frozen(buildBase(docs));
          const store = new DocumentStore(base);
          for (const batch of batches) {
            const written = batch.map((w) => doc(w.id, w.org, w.label));
            if (written.length % 2 === 0) store.putMany(written);
            else for (const d of written) store.put(d);
            expectOrders(store, [1, 2, 3]);
          }
          // A new store from the same base starts from the loaded documents again.
          const again = new DocumentStore(base);
          expect(again.all()).toEqual(docs);
          expectOrders(again, [1, 2, 3]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('in a bulk write, the later of two documents with the same id wins', () => {
    const store = new DocumentStore(buildBase([doc(1, 1, 'a')]));
    const many = Array.from({ length: 100 }, (_, i) => doc(i + 2, 1, `n${i}`));
    store.putMany([...many, doc(1, 1, 'first'), doc(1, 1, 'second')]);
    expect(store.get(1)?.label).toBe('second');
    expect(store.count()).toBe(101);
    expectOrders(store, [1]);
  });
});
