import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import type { Dataset, Document } from '../../src/domain/types.js';
import { ApiError } from '../../src/errors.js';
import { details, entry, makeDataset, makeFake, ORG1, ORG2 } from '../fixtures/domain/dataset.js';

const listIds = (fake: ReturnType<typeof makeFake>['fake'], q = {}) =>
  fake.listDocuments(ORG1, { resultsPerPage: 1000, ...q }).rows.map((r) => r.id);

function token(fake: ReturnType<typeof makeFake>['fake'], keyId = 'key-one', secret = 'secret-one') {
  return fake.issueToken({ keyId, scope: 'docs_api', content: 'c', hash: computeHash(secret, 'c') })
    .access_token;
}

describe('reset', () => {
  it('returns documents, orders, search and clock to the reset point; tokens and settings stay', () => {
    const { fake, clock } = makeFake();
    const before = JSON.stringify(fake.snapshot());
    const t = token(fake);
    fake.patchDocument(ORG1, '101', { name: entry('Name', 'Changed') });
    fake.batchUpdate(
      ORG1,
      [
        { templateUid: 7, title: 'AAA new' },
        { templateUid: 79, id: 102, title: 'zz' },
      ],
      'replace',
    );
    clock.advance(500);
    fake.settings.maxResultsPerPage = 2;

    fake.reset();
    expect(JSON.stringify(fake.snapshot())).toBe(before);
    expect(fake.documentCount()).toBe(6);
    expect(clock.offsetSeconds()).toBe(0);
    expect(fake.authenticate(t).organizationId).toBe(1);
    expect(fake.settings.maxResultsPerPage).toBe(2);
    fake.settings.maxResultsPerPage = 1000;
    expect(listIds(fake)).toEqual([102, 103, 104, 101, 105]);
    expect(listIds(fake, { searchTxt: 'changed' })).toEqual([]);
    expect(listIds(fake, { searchTxt: 'dundee office' })).toEqual([101]);
  });

  it('keeps the reset point intact across repeated write/reset cycles (copy on write)', () => {
    const { fake } = makeFake();
    for (const title of ['first', 'second', 'third']) {
      fake.batchUpdate(ORG1, { templateUid: 7, id: 105, title }, 'merge');
      fake.batchUpdate(ORG1, { templateUid: 7, title: `${title} created` }, 'merge');
      expect(fake.documentCount()).toBe(7);
      fake.reset();
      expect(listIds(fake)).toEqual([102, 103, 104, 101, 105]);
      expect(listIds(fake, { orderBy: 'id', orderDir: 'desc' })).toEqual([105, 104, 103, 102, 101]);
    }
    // New ids start again from the reset point's highest id.
    expect(fake.batchUpdate(ORG1, { templateUid: 7, title: 'n' }, 'merge').created).toEqual([202]);
  });
});

describe('load and snapshot', () => {
  it('load replaces the state and becomes the new reset point', () => {
    const { fake, clock } = makeFake();
    const t = token(fake);
    clock.advance(100);
    const next: Dataset = makeDataset();
    next.documents = next.documents.filter((d) => d.id !== 102);
    next.apiKeys = [{ keyId: 'new-key', secret: 'new-secret', organizationId: 1 }];
    fake.load(next);
    expect(clock.offsetSeconds()).toBe(0);
    expect(() => fake.authenticate(t)).toThrow(ApiError);
    expect(() => token(fake)).toThrow(/unknown key ID/);
    expect(fake.authenticate(token(fake, 'new-key', 'new-secret')).organizationId).toBe(1);
    expect(listIds(fake)).toEqual([103, 104, 101, 105]);
    fake.patchDocument(ORG1, '103', {});
    fake.reset();
    expect(fake.documentCount()).toBe(5);
    expect(fake.getDocument(ORG1, '103').details).toEqual({ serial: entry('Serial', 'SN-42') });
  });

  it('a failed load (duplicate ids) leaves the state as it was', () => {
    const { fake } = makeFake();
    const bad = makeDataset();
    const dup = bad.documents[0] as Document;
    bad.documents.push({ ...dup });
    expect(() => fake.load(bad)).toThrow(/duplicate document id 101/);
    expect(fake.documentCount()).toBe(6);
    expect(listIds(fake)).toEqual([102, 103, 104, 101, 105]);
  });

  it('snapshot shows the current documents and round-trips through load', () => {
    const { fake } = makeFake();
    fake.batchUpdate(
      ORG1,
      { templateUid: 22, title: 'Created', details: { domain: entry('Domain', 'x.example') } },
      'replace',
    );
    const snap = fake.snapshot();
    expect(snap.documents.map((d) => d.id)).toEqual([101, 102, 103, 104, 105, 201, 202]);
    const other = makeFake({}, JSON.parse(JSON.stringify(snap)) as Dataset).fake;
    expect(listIds(other)).toEqual(listIds(fake));
    expect(other.getDocument(ORG1, '202')).toEqual(fake.getDocument(ORG1, '202'));
    // Mutating the returned arrays does not reach the fake.
    snap.documents.length = 0;
    snap.apiKeys.length = 0;
    expect(fake.documentCount()).toBe(7);
    expect(() => token(fake)).not.toThrow();
  });

  it('is isolated from later changes to the dataset it was given', () => {
    const dataset = makeDataset();
    const { fake } = makeFake({}, dataset);
    dataset.documents.length = 0;
    dataset.apiKeys.length = 0;
    fake.reset();
    expect(fake.documentCount()).toBe(6);
    expect(() => token(fake)).not.toThrow();
  });
});

describe('cached orders stay right under any sequence of writes', () => {
  const labels = ['a', 'A', 'b', 'B', 'ab', 'Ab', 'é', 'z', ''];
  const op = fc.oneof(
    fc.record({
      kind: fc.constant('create' as const),
      org: fc.constantFrom(1, 2),
      label: fc.constantFrom(...labels),
    }),
    fc.record({ kind: fc.constant('rename' as const), pick: fc.nat(), label: fc.constantFrom(...labels) }),
    fc.record({ kind: fc.constant('reset' as const) }),
  );

  it('matches a brute-force sort after every step', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const { fake } = makeFake();
        const principal = (org: number) => (org === 1 ? ORG1 : ORG2);
        const check = () => {
          const all = fake.snapshot().documents;
          for (const org of [1, 2]) {
            const mine = all.filter((d) => d.organization_id === org);
            const byLabel = [...mine].sort((a, b) => {
              const ka = a.label.toLowerCase();
              const kb = b.label.toLowerCase();
              return ka < kb ? -1 : ka > kb ? 1 : a.id - b.id;
            });
            const q = { resultsPerPage: 1000 };
            const p = principal(org);
            expect(fake.listDocuments(p, q).rows.map((r) => r.id)).toEqual(byLabel.map((d) => d.id));
            expect(fake.listDocuments(p, { ...q, orderDir: 'desc' }).rows.map((r) => r.id)).toEqual(
              byLabel.map((d) => d.id).reverse(),
            );
            expect(fake.listDocuments(p, { ...q, orderBy: 'id' }).rows.map((r) => r.id)).toEqual(
              mine.map((d) => d.id).sort((a, b) => a - b),
            );
          }
        };
        for (const o of ops) {
          if (o.kind === 'create') {
            fake.batchUpdate(principal(o.org), { templateUid: 7, title: o.label || 'x' }, 'merge');
          } else if (o.kind === 'rename') {
            const docs = fake.snapshot().documents;
            const doc = docs[o.pick % docs.length] as Document;
            fake.batchUpdate(
              principal(doc.organization_id),
              { templateUid: doc.templateId, id: doc.id, title: o.label || 'y' },
              'merge',
            );
          } else fake.reset();
          check();
        }
      }),
      { numRuns: 150 },
    );
  });

  it('details helper objects are null-prototype', () => {
    expect(Object.getPrototypeOf(details({}))).toBeNull();
  });
});
