import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listOperations } from '../../src/contract/operations.js';
import { createOperationValidators } from '../../src/contract/request-validator.js';
import { DEFAULT_SPEC_PATH, loadSpec } from '../../src/contract/spec-document.js';
import { defaultApiKey } from '../../src/domain/fixtures/default-keys.js';
import { loadFixtureSource } from '../../src/domain/fixtures/load-fixtures.js';
import { createMockServer } from '../../src/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'shared-immutables-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('what servers in one process share', () => {
  it('the default fixture set is read and validated once, deep-frozen, and never edited by a server', async () => {
    const first = await loadFixtureSource(undefined);
    const again = await loadFixtureSource(undefined);
    expect(again.dataset).toBe(first.dataset);
    const { documents } = first.dataset;
    expect(Object.isFrozen(first.dataset)).toBe(true);
    expect(Object.isFrozen(documents)).toBe(true);
    expect(Object.isFrozen(documents[0]?.details)).toBe(true);
    expect(() => {
      (documents as unknown[]).push({});
    }).toThrow(TypeError);
    // Another generation is another set.
    const generated = await loadFixtureSource(undefined, { generate: 3, seed: 7 });
    expect(generated.dataset).not.toBe(first.dataset);
    expect(generated.dataset.documents.length).toBe(documents.length + 3);
  });

  it('two servers on the default set: a write, a delete and a fixture load in one never show in the other', async () => {
    const a = await createMockServer({ logLevel: 'silent' });
    const b = await createMockServer({ logLevel: 'silent' });
    try {
      const key = defaultApiKey(1);
      const principal = { organizationId: 1, keyId: key.keyId };
      const [doc] = a.root.fake.listDocuments(principal, { resultsPerPage: 1, orderBy: 'id' }).rows;
      if (!doc) throw new Error('the default set has no document for organization 1');
      const id = String(doc.id);
      const before = b.root.fake.getDocument(principal, id);
      const [field, entry] = Object.entries(before.details)[0] ?? [];
      if (!field || !entry) throw new Error('the document has no details');
      const changed = { [field]: { ...(entry as object), value: { type: 'string', text: 'only in A' } } };
      a.root.fake.patchDocument(principal, id, changed);
      expect(a.root.fake.getDocument(principal, id).details[field]).toEqual(changed[field]);
      expect(b.root.fake.getDocument(principal, id)).toEqual(before);
      const count = b.root.fake.documentCount();
      a.root.fake.reset();
      a.root.load({ ...(await loadFixtureSource(undefined)).dataset, documents: [] });
      expect(a.root.fake.documentCount()).toBe(0);
      expect(b.root.fake.documentCount()).toBe(count);
      // And the shared set itself is as it was read.
      const fresh = JSON.parse(
        readFileSync(join(import.meta.dirname, '../../fixtures/default/documents.json'), 'utf8'),
      );
      expect((await loadFixtureSource(undefined)).dataset.documents.length).toBe(fresh.length);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('the spec is parsed once per text, frozen, with its operations and validators compiled once', () => {
    const path = join(tmp, 'openapi.yaml');
    copyFileSync(DEFAULT_SPEC_PATH, path);
    const one = loadSpec(path);
    const two = loadSpec(path);
    expect(two.document).toBe(one.document);
    expect(Object.isFrozen(one.document.paths)).toBe(true);
    expect(listOperations(two.document)).toBe(listOperations(one.document));
    expect(createOperationValidators(two.document)).toBe(createOperationValidators(one.document));
    // An edited file is parsed again: what a server serves follows the text.
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace(/^info:\n {2}title: .*$/m, 'info:\n  title: Edited'),
    );
    const edited = loadSpec(path);
    expect(edited.document).not.toBe(one.document);
    expect((edited.document.info as { title: string }).title).toBe('Edited');
  });
});
