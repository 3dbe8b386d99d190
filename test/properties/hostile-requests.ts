/**
 * fast-check arbitraries for hostile requests: a request to an operation is generated from the
 * spec's schemas (parameters and request body), then broken: wrong types, missing and extra
 * fields, huge strings and arrays, deep nesting, invalid UTF-8, `__proto__`/`constructor`/
 * `prototype` keys at every level, odd content types and encodings, duplicated query parameters,
 * numbers beyond 2^53.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import * as fc from 'fast-check';
import type { Operation, ParameterDef } from '../../src/contract/operations.js';
import { type OpenApiDocument, resolveRef } from '../../src/contract/spec-document.js';

type Obj = Record<string, unknown>;

/** JSON text inserted verbatim where this value sits (numbers JSON.parse rounds, deep nesting). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A JSON object node (a RawJson is a leaf). */
const isObj = (v: unknown): v is Obj =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawJson);

/** Sets an own enumerable property, even `__proto__`, without touching any prototype. */
export function setOwn(target: Obj, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const key of Object.keys(value)) setOwn(out, key, cloneJson(value[key]));
  return out;
}

/** JSON text of a generated value, RawJson parts inserted as they are. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof RawJson) {
      raws.push(v.text);
      return `\u0001RAW${raws.length - 1}\u0001`;
    }
    return v;
  });
  if (text === undefined) return 'null';
  return text.replace(/"\\u0001RAW(\d+)\\u0001"/g, (_m, i: string) => raws[Number(i)] ?? 'null');
}

// ------------------------------------------------------------------ values the fixtures know

/** Values that hit real documents, templates and clients of the small fixture set. */
export const KNOWN = {
  documentIds: ['101101', '101102', '101103', '101104', '201101', '999999'],
  templateUids: ['tpl-5001', 'TPL-79', '5001', 'tpl-79', 5001, 79, 'tpl-6'],
  clientIds: [41001, 41002, 42001, 7],
  detailKeys: ['name', 'address_1', 'city', 'country', 'state/province', 'serial_number', 'vendor', 'tags'],
};

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

// ------------------------------------------------------------------ schema → arbitrary

function hintFor(name: string | undefined): fc.Arbitrary<unknown> | undefined {
  switch (name) {
    case 'documentId':
      return fc.constantFrom(...KNOWN.documentIds);
    case 'id':
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...KNOWN.documentIds.map(Number)) },
        { weight: 1, arbitrary: fc.constantFrom('', null) },
      );
    case 'templateUid':
      return fc.constantFrom(...KNOWN.templateUids);
    case 'clientId':
    case 'clientID':
      return fc.constantFrom(...KNOWN.clientIds);
    case 'scope':
      return fc.constantFrom('docs_api', 'docs-api');
    default:
      return undefined;
  }
}

interface SchemaContext {
  document: OpenApiDocument;
  depth: number;
  /** The components/schemas name when the schema came from a `$ref`. */
  refName?: string;
}

const shortString = fc.string({ maxLength: 12 });

/** Values that (mostly) satisfy the schema; biased towards the fixtures' ids and keys. */
export function schemaArbitrary(
  raw: unknown,
  ctx: SchemaContext,
  propertyName?: string,
): fc.Arbitrary<unknown> {
  const hinted = hintFor(propertyName);
  if (hinted) return hinted;
  let refName = ctx.refName;
  if (isObj(raw) && typeof raw.$ref === 'string') refName = raw.$ref.split('/').pop();
  const schema = resolveRef<Obj>(ctx.document, raw);
  if (!isObj(schema) || ctx.depth > 5) return fc.constant(null);
  const inner: SchemaContext = { document: ctx.document, depth: ctx.depth + 1 };

  if (refName === 'DetailsInput') {
    const entry = schemaArbitrary((schema as Obj).additionalProperties, inner);
    // `name` is a field of every fixture template: a body of it alone fits any document.
    const keys = fc.oneof(
      { weight: 3, arbitrary: fc.constant('name') },
      { weight: 1, arbitrary: fc.constantFrom(...KNOWN.detailKeys) },
    );
    return fc.dictionary(keys, entry, { maxKeys: 2 }).map((d) => cloneJson(d));
  }
  if (refName === 'BatchItem') {
    return fc.oneof(
      { weight: 3, arbitrary: coherentBatchItem(schema, inner) },
      { weight: 1, arbitrary: objectArbitrary(schema, inner) },
    );
  }
  if (refName === 'FixtureSet') {
    return fc.oneof(
      fc.constant({}),
      fc.record({
        organizations: fc.array(fc.record({ id: fc.nat(5), name: shortString }), { maxLength: 2 }),
      }),
      fc.dictionary(shortString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    );
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      return fc.oneof(...branches.map((b) => schemaArbitrary(b, inner, propertyName)));
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return schemaArbitrary(schema.allOf[0], inner);
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  const arbitraries = type.map((t) => typedArbitrary(String(t), schema, inner));
  return arbitraries.length === 1 ? (arbitraries[0] as fc.Arbitrary<unknown>) : fc.oneof(...arbitraries);
}

function typedArbitrary(type: string, schema: Obj, ctx: SchemaContext): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string': {
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
      if (schema.format === 'date-time')
        return fc
          .date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
          .map((d) => d.toISOString());
      const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return fc.string({ minLength, maxLength: Math.max(minLength, 16) });
    }
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min, 0) + 1000;
      return fc.integer({ min, max: Math.min(max, min + 100_000) });
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schemaArbitrary(schema.items ?? {}, ctx);
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return fc.array(items, { minLength, maxLength: Math.max(minLength, 3) });
    }
    case 'object':
      return objectArbitrary(schema, ctx);
    default:
      if (isObj(schema.properties)) return objectArbitrary(schema, ctx);
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A batch item that fits the fixtures: a document with its own template, that template's fields. */
function coherentBatchItem(schema: Obj, ctx: SchemaContext): fc.Arbitrary<unknown> {
  const properties = isObj(schema.properties) ? schema.properties : {};
  const entry = schemaArbitrary(
    { $ref: '#/components/schemas/DetailEntryInput' },
    { document: ctx.document, depth: ctx.depth },
  );
  const variant = (templateUids: unknown[], ids: unknown[], fields: string[]): fc.Arbitrary<unknown> =>
    fc
      .record(
        {
          templateUid: fc.constantFrom(...templateUids),
          id: fc.constantFrom(...ids),
          title: schemaArbitrary(properties.title, ctx),
          clientId: fc.constantFrom(41001, 41002),
          description: fc.string({ maxLength: 10 }),
          customId: fc.string({ maxLength: 6 }),
          details: fc.dictionary(fc.constantFrom(...fields), entry, { maxKeys: 3 }),
        },
        { requiredKeys: ['templateUid', 'title'] },
      )
      .map((item) => cloneJson(item));
  return fc.oneof(
    variant(
      ['tpl-5001', 'TPL-5001', '5001', 5001],
      [101101, 101102, '', null],
      ['name', 'address_1', 'city', 'country', 'state/province'],
    ),
    variant(['tpl-79', 'TPL-79', 79], [101103, 101104, ''], ['name', 'serial_number', 'vendor']),
  );
}

function objectArbitrary(schema: Obj, ctx: SchemaContext): fc.Arbitrary<unknown> {
  const properties = isObj(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const keys = Object.keys(properties);
  const extra =
    isObj(schema.additionalProperties) && keys.length === 0
      ? fc.dictionary(shortString, schemaArbitrary(schema.additionalProperties, ctx), { maxKeys: 2 })
      : fc.constant({});
  const fields = keys.map((key) =>
    fc.tuple(
      fc.constant(key),
      required.has(key) ? fc.constant(true) : fc.boolean(),
      schemaArbitrary(properties[key], ctx, key),
    ),
  );
  return fc.tuple(fc.tuple(...fields), extra).map(([chosen, more]) => {
    const out: Obj = {};
    for (const [key, value] of Object.entries(more as Obj)) setOwn(out, key, value);
    for (const [key, keep, value] of chosen) if (keep) setOwn(out, key, value);
    return out;
  });
}

// ------------------------------------------------------------------ hostile values

/** Integers JSON.parse cannot hold exactly, overflowing literals and odd number spellings. */
const RAW_NUMBERS = [
  '9007199254740993',
  '-9007199254740993',
  '18446744073709551617',
  '123456789012345678901234567890',
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '1.0',
  '4.9e-324',
  '0.1e1',
];

function nested(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array'
    ? new RawJson(`${'['.repeat(depth)}${']'.repeat(depth)}`)
    : new RawJson(`${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`);
}

function protoBomb(): Obj {
  const out: Obj = {};
  setOwn(out, '__proto__', { polluted: 'yes', toString: 'x' });
  setOwn(out, 'constructor', { prototype: { polluted: 'yes' } });
  setOwn(out, 'prototype', { polluted: 'yes' });
  return out;
}

const WEIRD_STRINGS = [
  '',
  ' ',
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '😀',
  '\u202e\u0041',
  'é'.normalize('NFD'),
  '<script>alert(1)</script>',
  "'; DROP TABLE documents; --",
  '../../etc/passwd',
  '%00',
  '%FF',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'null',
  'true',
  '1e400',
  '9007199254740993',
  'tpl-',
  'TPL-0',
];

/** A value of any type, sized or shaped to hurt. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<unknown>(...WEIRD_STRINGS) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      -1,
      0,
      -0,
      1.5,
      2 ** 31,
      2 ** 53,
      2 ** 53 + 2,
      -(2 ** 53) - 2,
      1e308,
      -1e308,
      Number.MIN_VALUE,
      true,
      false,
      null,
      [],
      {},
      [null],
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => new RawJson(t)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(70_000, 300_000), fc.constantFrom('x', 'é', '😀', '\\'))
      .map(([n, c]) => c.repeat(n)),
  },
  { weight: 1, arbitrary: fc.constantFrom(1001, 3000).map((n) => Array.from({ length: n }, () => ({}))) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(33, 300, 6000, 40_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
      .map(([d, k]) => nested(d, k)),
  },
  { weight: 2, arbitrary: fc.constant(null).map(() => protoBomb()) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'toString',
      'valueOf',
      'hasOwnProperty',
      '',
      ' ',
      'a/b',
      '~1',
      'x'.repeat(5000),
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
);

// ------------------------------------------------------------------ mutations of a JSON tree

type Path = Array<string | number>;

function pathsOf(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) pathsOf(value[i], [...path, i], out);
  } else if (isObj(value)) for (const key of Object.keys(value)) pathsOf(value[key], [...path, key], out);
  return out;
}

function getAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const part of path) {
    if (!isObj(node) && !Array.isArray(node)) return undefined;
    node = (node as Obj)[part as string];
  }
  return node;
}

export type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: unknown }
  | { kind: 'wrap'; at: number }
  | { kind: 'protoEverywhere' };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: hostileValue }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      at: fc.nat(),
      key: hostileKey,
      value: hostileValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wrap' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'protoEverywhere' as const }) },
);

/** Applies mutations to a copy of the value; paths are picked by index among the value's paths. */
export function applyMutations(value: unknown, mutations: Mutation[]): unknown {
  let root = cloneJson(value);
  for (const original of mutations) {
    // Generated values may be shared between runs (constants): insert copies only.
    const m = 'value' in original ? { ...original, value: cloneJson(original.value) } : original;
    if (m.kind === 'protoEverywhere') {
      for (const path of pathsOf(root)) {
        const node = getAt(root, path);
        if (isObj(node)) for (const key of PROTO_KEYS) setOwn(node, key, protoBomb());
      }
      if (!isObj(root) && !Array.isArray(root)) root = protoBomb();
      continue;
    }
    const paths = pathsOf(root);
    const path = paths[m.at % paths.length] ?? [];
    const parent = path.length > 0 ? getAt(root, path.slice(0, -1)) : undefined;
    const last = path[path.length - 1];
    const put = (v: unknown) => {
      if (parent === undefined) root = v;
      else if (Array.isArray(parent)) parent[last as number] = v;
      else setOwn(parent as Obj, String(last), v);
    };
    switch (m.kind) {
      case 'replace':
        put(m.value);
        break;
      case 'wrap':
        put([getAt(root, path)]);
        break;
      case 'delete':
        if (Array.isArray(parent)) parent.splice(last as number, 1);
        else if (isObj(parent)) delete parent[String(last)];
        else root = undefined;
        break;
      case 'add': {
        const node = getAt(root, path);
        if (isObj(node)) setOwn(node, m.key, m.value);
        else if (Array.isArray(node)) node.push(m.value);
        else if (isObj(parent)) setOwn(parent, m.key, m.value);
        else {
          const wrapper: Obj = {};
          setOwn(wrapper, m.key, m.value);
          root = wrapper;
        }
        break;
      }
    }
  }
  return root;
}

// ------------------------------------------------------------------ bytes on the wire

export interface WireRequest {
  method: string;
  /** Path and query, already encoded (may hold deliberately bad escapes). */
  path: string;
  /** Flat [name, value, name, value, ...]: duplicates and odd names allowed. */
  headers: string[];
  body: Buffer | undefined;
  /** The operation the request was generated for (for the report). */
  operationId: string;
  /** Whether nothing was broken on purpose. */
  pristine: boolean;
}

const INVALID_UTF8 = [
  Buffer.from([0xff]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xc0, 0xaf]),
];

export type BodyEncoding =
  | { kind: 'utf8' }
  | { kind: 'invalidUtf8'; at: number; bytes: number }
  | { kind: 'bom' }
  | { kind: 'utf16' }
  | { kind: 'truncate'; at: number }
  | { kind: 'latin1' };

export const bodyEncoding: fc.Arbitrary<BodyEncoding> = fc.oneof(
  { weight: 30, arbitrary: fc.constant({ kind: 'utf8' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('invalidUtf8' as const),
      at: fc.nat(),
      bytes: fc.nat(INVALID_UTF8.length - 1),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'bom' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'utf16' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'latin1' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
);

export function encodeText(text: string, encoding: BodyEncoding): Buffer {
  const utf8 = Buffer.from(text, 'utf8');
  switch (encoding.kind) {
    case 'utf8':
      return utf8;
    case 'bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]);
    case 'utf16':
      return Buffer.from(text, 'utf16le');
    case 'latin1':
      return Buffer.from(text, 'latin1');
    case 'truncate':
      return utf8.subarray(0, utf8.length === 0 ? 0 : encoding.at % utf8.length);
    case 'invalidUtf8': {
      // Prefer a spot inside a JSON string so the parser reaches the bad bytes.
      const quotes = [...text.matchAll(/"/g)].map((m) =>
        Buffer.byteLength(text.slice(0, (m.index ?? 0) + 1)),
      );
      const at =
        quotes.length > 0 ? (quotes[encoding.at % quotes.length] ?? 0) : encoding.at % (utf8.length + 1);
      return Buffer.concat([
        utf8.subarray(0, at),
        INVALID_UTF8[encoding.bytes] ?? Buffer.from([0xff]),
        utf8.subarray(at),
      ]);
    }
  }
}

export type ContentEncoding =
  | 'none'
  | 'gzip'
  | 'deflate'
  | 'br'
  | 'identity'
  | 'garbageGzip'
  | 'bomb'
  | 'unknown';

export const contentEncoding: fc.Arbitrary<ContentEncoding> = fc.oneof(
  { weight: 30, arbitrary: fc.constant('none' as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<ContentEncoding>(
      'gzip',
      'deflate',
      'br',
      'identity',
      'garbageGzip',
      'bomb',
      'unknown',
    ),
  },
);

/** Returns the body bytes and the content-encoding header value (if any). */
export function compress(body: Buffer, encoding: ContentEncoding): [Buffer, string | undefined] {
  switch (encoding) {
    case 'none':
      return [body, undefined];
    case 'gzip':
      return [gzipSync(body), 'gzip'];
    case 'deflate':
      return [deflateSync(body), 'deflate'];
    case 'br':
      return [brotliCompressSync(body), 'br'];
    case 'identity':
      return [body, 'identity'];
    case 'garbageGzip':
      return [Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), body]), 'gzip'];
    case 'bomb':
      // 8 MB of spaces inside a JSON string: a few KB on the wire.
      return [gzipSync(Buffer.from(`{"a":"${' '.repeat(8 * 1024 * 1024)}"}`)), 'gzip'];
    case 'unknown':
      return [body, 'x-compress-2000'];
  }
}

export const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset="nope"',
  'application/merge-patch+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'text/plain',
  'application/xml',
  'application/octet-stream',
  ';;;',
  'application/json;;',
  'application/json, text/html',
  '*/*',
  '',
];

// ------------------------------------------------------------------ query strings and paths

const HOSTILE_QUERY_VALUES = [
  '',
  'abc',
  '-1',
  '0',
  '1.5',
  '1e3',
  '0x10',
  '%201',
  '9007199254740993',
  '99999999999999999999999',
  '%FF',
  '%C3%28',
  '%ED%A0%80',
  '%',
  '%zz',
  '%00',
  '__proto__',
  'LABEL',
  'DESC',
  'tpl-0',
  'true',
  '[]',
  '{}',
];

const EXTRA_QUERY = [
  '__proto__=1',
  '__proto__[polluted]=1',
  'constructor=1',
  'constructor[prototype][polluted]=1',
  'prototype=1',
  'hasOwnProperty=1',
  'toString=1',
  'a[b][c]=1',
  '%FF=1',
  '=1',
  '&&&',
];

export type QueryPart = { raw: string };

/** One query parameter, well-formed or not, possibly repeated. */
function queryPartArbitrary(param: ParameterDef, document: OpenApiDocument): fc.Arbitrary<string[]> {
  const valid = schemaArbitrary(param.schema, { document, depth: 0 }, param.name).map((v) =>
    encodeURIComponent(String(v)),
  );
  const value = fc.oneof(
    { weight: 6, arbitrary: valid },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_QUERY_VALUES) },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map(encodeURIComponent) },
  );
  const name = fc.constantFrom(param.name, param.name, param.name.toUpperCase(), `${param.name}[]`);
  return fc
    .tuple(name, fc.array(value, { minLength: 1, maxLength: 3 }), fc.nat(9))
    .map(([n, values, repeat]) => (repeat < 8 ? values.slice(0, 1) : values).map((v) => `${n}=${v}`));
}

export function queryArbitrary(operation: Operation, document: OpenApiDocument): fc.Arbitrary<string> {
  const params = operation.parameters.filter((p) => p.in === 'query');
  const parts = params.map((p) =>
    fc.oneof(
      { weight: 2, arbitrary: fc.constant<string[]>([]) },
      { weight: 3, arbitrary: queryPartArbitrary(p, document) },
    ),
  );
  const extra = fc.oneof(
    { weight: 30, arbitrary: fc.constant<string[]>([]) },
    { weight: 6, arbitrary: fc.subarray(EXTRA_QUERY, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant([`searchTxt=${'a'.repeat(9000)}`]) },
  );
  return fc.tuple(fc.tuple(...parts), extra).map(([chosen, more]) => {
    const all = [...chosen.flat(), ...more];
    return all.length > 0 ? `?${all.join('&')}` : '';
  });
}

const HOSTILE_PATH_VALUES = [
  '0',
  '-1',
  '01',
  'abc',
  '1.5',
  '%FF',
  '%C3%28',
  '%2F',
  '%00',
  '..',
  '%2e%2e',
  '__proto__',
  'constructor',
  '9007199254740993',
  '12345678901234567',
  '1e3',
  '9'.repeat(3000),
  '%',
];

export function pathArbitrary(operation: Operation, document: OpenApiDocument): fc.Arbitrary<string> {
  const params = operation.parameters.filter((p) => p.in === 'path');
  const values = params.map((p) =>
    fc.oneof(
      {
        weight: 6,
        arbitrary: schemaArbitrary(p.schema, { document, depth: 0 }, p.name).map((v) =>
          encodeURIComponent(String(v)),
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_PATH_VALUES) },
    ),
  );
  const shape = fc.oneof(
    { weight: 20, arbitrary: fc.constant('as-is') },
    { weight: 1, arbitrary: fc.constantFrom('trailing-slash', 'double-slash', 'extra', 'upper') },
  );
  return fc.tuple(fc.tuple(...values), shape).map(([vals, how]) => {
    let i = 0;
    let path = operation.path.replace(/\{[^}]+\}/g, () => String(vals[i++]));
    if (how === 'trailing-slash') path += '/';
    if (how === 'double-slash') path = path.replace('/api', '//api').replace('/__admin', '//__admin');
    if (how === 'extra') path += '/extra';
    if (how === 'upper') path = path.toUpperCase();
    return path;
  });
}
