/**
 * The spec is the one source of operations. src/contract/operation-ids.ts is made from it
 * (scripts/operation-ids.ts) and types the handler tables, so the compiler fails on an operation
 * without a handler or a handler without an operation (test/generated-files.test.ts fails when the
 * spec changed and the ids were not made again). This file fails, in seconds, when a handler is
 * missing from its table (a build that skipped the type check), and when the list operations'
 * query parameters and `ListQuery` part ways (a filter added to the spec alone would be ignored).
 */
import { describe, expect, it } from 'vitest';
import {
  ADMIN_OPERATION_IDS,
  EXAMPLE_OPERATION_IDS,
  VENDOR_OPERATION_IDS,
} from '../src/contract/operation-ids.js';
import { listOperations } from '../src/contract/operations.js';
import { loadSpec } from '../src/contract/spec-document.js';
import { LIST_QUERY_KEYS } from '../src/domain/list-query.js';
import { createVendorHandlers } from '../src/http/handlers/vendor-handlers.js';

const spec = loadSpec();

describe('operation ids made from the spec', () => {
  it('names every operation of the spec once: vendor, answered from its example, or admin', () => {
    const all = listOperations(spec.document).map((op) => op.operationId);
    const listed = [...VENDOR_OPERATION_IDS, ...EXAMPLE_OPERATION_IDS, ...ADMIN_OPERATION_IDS];
    expect([...listed].sort()).toEqual([...all].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('the vendor handler table has a function for every vendor operation, and nothing else', () => {
    const table = createVendorHandlers(spec.document) as Record<string, unknown>;
    expect(Object.keys(table).sort()).toEqual([...VENDOR_OPERATION_IDS].sort());
    for (const id of VENDOR_OPERATION_IDS) expect(typeof table[id], id).toBe('function');
  });

  it("ListQuery reads exactly the list operations' query parameters", () => {
    for (const operationId of ['listDocuments', 'listAllDocuments']) {
      const op = listOperations(spec.document).find((o) => o.operationId === operationId);
      const names = (op?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      expect([...names].sort(), operationId).toEqual([...LIST_QUERY_KEYS].sort());
    }
  });
});
