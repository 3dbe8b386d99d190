import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, type Operation } from '../../src/contract/operations.js';
import {
  createSchemaCompiler,
  createValidatorFactory,
  documentKey,
  operationSchemas,
  precompileRequestValidators,
  type RawRequest,
  underlyingValidator,
} from '../../src/contract/request-validator.js';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec-document.js';
import {
  fixtureSchema,
  fixtureValidator,
  precompileFixtureValidator,
} from '../../src/domain/fixtures/validate-fixtures.js';
import { loadPrecompiled, sourceKey } from '../../src/precompiled-validators.js';

/**
 * The build's standalone validators behave exactly like the ones compiled at start-up: same
 * result, same `errors`, same coercion of the data, so the same error answers.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const document = loadSpec().document;
const operations = listOperations(document);
const NOWHERE = '/nonexistent/precompiled.cjs';
let dir: string;
let requestsPath: string;
let fixturePath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'precompiled-'));
  // The generated code requires Ajv's runtime helpers: resolve them as from the package.
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  requestsPath = join(dir, 'request-validators.cjs');
  fixturePath = join(dir, 'fixture-validator.cjs');
  writeFileSync(requestsPath, precompileRequestValidators(document));
  writeFileSync(fixturePath, precompileFixtureValidator());
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const op = (id: string): Operation => {
  const found = operations.find((o) => o.operationId === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};

/** Runs a validator on a copy of the data: its result, its errors and the data as it left it. */
function outcome(validate: ValidateFunction, data: unknown) {
  const copy = structuredClone(data);
  const valid = validate(copy);
  return { valid, errors: validate.errors ?? null, data: copy };
}

describe('precompiled request validators', () => {
  it('are all found for the document they were generated from', () => {
    const module = loadPrecompiled(requestsPath, documentKey(document));
    expect(module).toBeDefined();
    for (const operation of operations) {
      const { params, bodies } = operationSchemas(operation, document);
      for (const { location, schema } of params) {
        if (schema) expect(module?.params?.[`${operation.operationId} ${location}`]).toBeTypeOf('function');
      }
      for (const [mediaType] of bodies) {
        expect(module?.body?.[`${operation.operationId} ${mediaType}`]).toBeTypeOf('function');
      }
    }
  });

  const paramCases: Array<[string, string, 'path' | 'query' | 'header', Record<string, unknown>]> = [
    ['query coerced', 'listDocuments', 'query', { pageNum: '2', resultsPerPage: '20', orderBy: 'label' }],
    ['bad pageNum', 'listDocuments', 'query', { pageNum: 'two' }],
    ['pageNum out of range, bad type', 'listDocuments', 'query', { pageNum: '0', type: 'nope' }],
    ['empty query', 'listDocuments', 'query', {}],
    ['path id', 'getDocument', 'path', { documentId: '5001' }],
    ['bad path id', 'getDocument', 'path', { documentId: 'abc' }],
    ['token headers', 'createClientToken', 'header', { 'x-key': 'k', 'x-hash': 'h' }],
    ['missing token header', 'createClientToken', 'header', { 'x-key': 'k' }],
    ['requests filter', 'listRequests', 'query', { status: '200', method: 'GET' }],
  ];
  it.each(paramCases)('parameters: %s', (_name, id, location, values) => {
    const schema = operationSchemas(op(id), document).params.find((p) => p.location === location)?.schema;
    expect(schema).toBeDefined();
    const pre = createSchemaCompiler(document, requestsPath).params(op(id), location, schema as object);
    const run = createSchemaCompiler(document, NOWHERE).params(op(id), location, schema as object);
    expect(underlyingValidator(pre)).toBe(
      loadPrecompiled(requestsPath, documentKey(document))?.params?.[`${id} ${location}`],
    );
    expect(pre).not.toBe(run);
    const result = outcome(pre, values);
    expect(result).toEqual(outcome(run, values));
    expect(result.valid).toBe(!/bad|missing|range/.test(_name));
    if (_name === 'query coerced')
      expect(result.data).toEqual({ pageNum: 2, resultsPerPage: 20, orderBy: 'label' });
  });

  const body = (id: string) =>
    operationSchemas(op(id), document).bodies.find(([m]) => m === 'application/json')?.[1];
  const bodyCases: Array<[string, string, unknown]> = [
    ['batch, missing title', 'patchDocuments', [{ id: 1, details: {} }, { label: 'x' }]],
    ['batch replace, wrong types', 'replaceDocuments', [{ templateUid: '5', label: 3 }]],
    ['patch, entry of no known shape', 'patchDocument', { details: 5 }],
    ['patch, not an object', 'patchDocument', 'text'],
    ['token body', 'createClientToken', { scope: 'docs_api', content: 'x' }],
    ['fault', 'createFault', { status: '500' }],
    ['clock, not an object', 'setClock', [1]],
  ];
  it.each(bodyCases)('bodies: %s', (_name, id, data) => {
    const schema = body(id);
    expect(schema).toBeDefined();
    const pre = createSchemaCompiler(document, requestsPath).body(
      op(id),
      'application/json',
      schema as object,
    );
    const run = createSchemaCompiler(document, NOWHERE).body(op(id), 'application/json', schema as object);
    expect(underlyingValidator(pre)).toBe(
      loadPrecompiled(requestsPath, documentKey(document))?.body?.[`${id} application/json`],
    );
    expect(pre).not.toBe(run);
    const result = outcome(pre, data);
    expect(result).toEqual(outcome(run, data));
    expect(result.valid).toBe(_name === 'token body');
  });

  /** The whole request validator: the same values handed on, or the same error thrown. */
  function validated(path: string, id: string, request: Partial<RawRequest>) {
    const validate = createValidatorFactory(document, path)(op(id));
    const full: RawRequest = {
      params: {},
      query: {},
      headers: {},
      body: undefined,
      mediaType: undefined,
      ...request,
    };
    try {
      return { ok: validate(structuredClone(full)) };
    } catch (error) {
      return { error, violations: (error as { violations?: unknown }).violations };
    }
  }
  const requestCases: Array<[string, string, Partial<RawRequest>]> = [
    ['list page 2', 'listDocuments', { query: { pageNum: '2', orderDir: 'DESC' } }],
    ['list bad pageNum', 'listDocuments', { query: { pageNum: 'x' } }],
    ['batch missing title', 'patchDocuments', { body: [{ id: 1 }], mediaType: 'application/json' }],
    [
      'patch entry of no known shape',
      'patchDocument',
      { params: { documentId: '1' }, body: { details: true }, mediaType: 'application/json' },
    ],
    ['read bad id', 'getDocument', { params: { documentId: '-1' } }],
  ];
  it.each(requestCases)('requests: %s', (_name, id, request) => {
    const result = validated(requestsPath, id, request);
    expect(result).toEqual(validated(NOWHERE, id, request));
    expect('ok' in result).toBe(_name === 'list page 2');
  });

  it('are not used for another document: compiled from that document instead', () => {
    const edited = structuredClone(document) as OpenApiDocument;
    const listSchema = operationSchemas(op('listDocuments'), document).params.find(
      (p) => p.location === 'query',
    )?.schema;
    const editedOp = listOperations(edited).find((o) => o.operationId === 'listDocuments') as Operation;
    const pageNum = editedOp.parameters.find((p) => p.name === 'pageNum');
    expect(pageNum).toBeDefined();
    (pageNum as { schema: Record<string, unknown> }).schema.maximum = 123456789;
    expect(documentKey(edited)).not.toBe(documentKey(document));
    expect(loadPrecompiled(requestsPath, documentKey(edited))).toBeUndefined();
    const editedSchema = operationSchemas(editedOp, edited).params.find((p) => p.location === 'query')
      ?.schema as object;
    const validate = createSchemaCompiler(edited, requestsPath).params(editedOp, 'query', editedSchema);
    const original = createSchemaCompiler(document, requestsPath).params(
      op('listDocuments'),
      'query',
      listSchema as object,
    );
    expect(validate).not.toBe(original);
    expect(outcome(validate, { pageNum: '100000' }).valid).toBe(true);
    expect(outcome(original, { pageNum: '100000' }).valid).toBe(false);
  });
});

describe('precompiled fixture validator', () => {
  const text = JSON.stringify(fixtureSchema());
  const sets: Array<[string, unknown]> = [
    [
      'a bad set',
      { organizations: [{ id: 'x', nmae: 'Acme' }], documents: [{ id: 1, label: 5 }], extra: true },
    ],
    ['not an object', [1, 2]],
    ['an empty set', {}],
  ];
  it.each(sets)('gives the same result on %s', (_name, set) => {
    const shipped = fixtureValidator(undefined, fixturePath);
    const compiled = fixtureValidator(undefined, NOWHERE);
    const key = sourceKey(readFileSync(join(root, 'spec/fixtures.schema.json'), 'utf8'));
    expect(shipped).toBe(loadPrecompiled(fixturePath, key)?.fixtureSet?.validate);
    expect(shipped).not.toBe(compiled);
    const result = outcome(shipped, set);
    expect(result).toEqual(outcome(compiled, set));
    expect(result.valid).toBe(_name === 'an empty set');
  });

  it('is not used for another schema text', () => {
    const shipped = fixtureValidator(undefined, fixturePath);
    const other = fixtureValidator(`${text}\n`, fixturePath);
    expect(other).not.toBe(shipped);
    expect(outcome(other, { extra: true })).toEqual(outcome(shipped, { extra: true }));
  });
});
