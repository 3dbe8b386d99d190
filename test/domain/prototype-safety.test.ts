import { afterEach, describe, expect, it } from 'vitest';
import type { Dataset, Document } from '../../src/domain/types.js';
import { ApiError } from '../../src/errors.js';
import { makeDataset, makeFake, ORG1 } from '../fixtures/domain/dataset.js';

const POISON = ['__proto__', 'constructor', 'prototype'];

function expectPrototypeUntouched(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(
    [
      '__defineGetter__',
      '__defineSetter__',
      '__lookupGetter__',
      '__lookupSetter__',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'isPrototypeOf',
      'propertyIsEnumerable',
      'toLocaleString',
      'toString',
      'valueOf',
    ].sort(),
  );
  const probe: Record<string, unknown> = {};
  expect(probe.polluted).toBeUndefined();
  expect(probe.title).toBeUndefined();
  expect(typeof Object.prototype.constructor).toBe('function');
}

/** A dataset whose template 7 has the poisonous keys as fields and document 101 stores them. */
function poisonDataset(): Dataset {
  const dataset = makeDataset();
  const tpl = dataset.templates.find((t) => t.id === 7);
  if (!tpl) throw new Error('fixture');
  tpl.fields.push(...POISON.map((key) => ({ key, name: key, description: '' })));
  const doc = dataset.documents.find((d) => d.id === 101) as Document;
  doc.details = JSON.parse(
    '{"__proto__":{"name":"P","description":"","value":{"type":"string","text":"hidden-proto"}},"constructor":"ctor-text","other":1}',
  );
  return dataset;
}

afterEach(expectPrototypeUntouched);

describe('prototype safety', () => {
  it('round-trips __proto__, constructor and prototype as detail keys (template fields)', () => {
    const { fake } = makeFake({}, poisonDataset());
    expect(fake.listDocuments(ORG1, { searchTxt: 'hidden-proto' }).rows.map((r) => r.id)).toEqual([101]);
    expect(fake.listDocuments(ORG1, { searchTxt: 'ctor-text' }).rows.map((r) => r.id)).toEqual([101]);

    const body = JSON.parse(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":"p"}',
    );
    fake.patchDocument(ORG1, '101', body);
    const { details } = fake.getDocument(ORG1, '101');
    expect(Object.getPrototypeOf(details)).toBeNull();
    expect(Object.hasOwn(details, '__proto__')).toBe(true);
    expect(JSON.parse(JSON.stringify(details))).toEqual(
      JSON.parse(
        '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"other":1,"name":null,"address_1":null,"city":null,"phone/fax":null,"prototype":"p"}',
      ),
    );
    expect(JSON.stringify(details)).toContain('"__proto__":{"polluted":true}');
  });

  it('rejects poisonous keys that are not known, naming them as data', () => {
    const { fake } = makeFake();
    const body = JSON.parse('{"__proto__":{"polluted":true},"constructor":"x","prototype":"y"}');
    let caught: unknown;
    try {
      fake.patchDocument(ORG1, '101', body);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).errors?.map((e) => e.location)).toEqual([
      'body/__proto__',
      'body/constructor',
      'body/prototype',
    ]);
  });

  it('accepts poisonous keys as data when unknown keys are accepted (PATCH and batch)', () => {
    const { fake } = makeFake({ unknownDetailKeys: 'accept' });
    fake.patchDocument(ORG1, '105', JSON.parse('{"__proto__":{"polluted":true}}'));
    expect(Object.keys(fake.getDocument(ORG1, '105').details)).toContain('__proto__');

    const batch = JSON.parse(
      '[{"templateUid":7,"title":"made","details":{"__proto__":{"polluted":true},"constructor":"c"}},' +
        '{"templateUid":7,"id":104,"__proto__":{"title":"from-proto"},"title":"t"}]',
    );
    // Item 1 names the wrong template (document 104 is tpl-22): the whole batch fails, nothing leaks.
    expect(() => fake.batchUpdate(ORG1, batch, 'merge')).toThrow(/item 1: document 104 uses template tpl-22/);
    expect(fake.documentCount()).toBe(6);
    const ok = JSON.parse(
      '[{"templateUid":7,"title":"made","details":{"__proto__":{"polluted":true},"constructor":"c"}}]',
    );
    const { created } = fake.batchUpdate(ORG1, ok, 'merge');
    const details = fake.getDocument(ORG1, String(created[0])).details;
    expect(Object.hasOwn(details, '__proto__')).toBe(true);
    expect(details.constructor).toBe('c');
  });

  it('does not read batch item fields through an own __proto__ key', () => {
    const { fake } = makeFake();
    const item = JSON.parse('{"__proto__":{"title":"from-proto","id":101},"templateUid":7}');
    let caught: unknown;
    try {
      fake.batchUpdate(ORG1, item, 'replace');
    } catch (e) {
      caught = e;
    }
    expect((caught as ApiError).errors?.map((e) => e.location)).toEqual(['body/title']);
  });
});
