/**
 * Hostile input, property-based. Requests to every operation of the spec are generated from its
 * schemas and then broken (see hostile-requests.ts), sent as raw bytes to a listening fake, and
 * every answer must hold:
 *
 * - never a 5xx, never a hang (5 s), never a dropped connection, nothing logged at error level;
 * - every answer conforms to the spec (prism-http), and every error has the vendor shape with
 *   `status` equal to the HTTP status;
 * - `Object.prototype` (and Array/Function prototypes) untouched;
 * - a rejected write, and any read, leaves the state byte-for-byte unchanged.
 *
 * Seed and size: FC_SEED (default below) and FC_RUNS (runs per property, default 200). A long
 * session with another seed: `FC_SEED=$RANDOM FC_RUNS=5000 npx vitest run test/properties`.
 */
import * as fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations, type Operation } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';
import { computeHash } from '../../src/domain/tokens.js';
import {
  type ConformanceChecker,
  defaultConformanceChecker,
  describeFailure,
} from '../support/conformance.js';
import { ACME_KEY, createTestServer, OTHER_KEY, type TestServer } from '../support/test-server.js';
import {
  applyMutations,
  bodyEncoding,
  CONTENT_TYPES,
  compress,
  contentEncoding,
  encodeText,
  hostileValue,
  KNOWN,
  type Mutation,
  mutation,
  pathArbitrary,
  queryArbitrary,
  RawJson,
  schemaArbitrary,
  setOwn,
  toJsonText,
  type WireRequest,
} from './hostile-requests.js';
import { createWireClient, type WireResponse } from './wire.js';

const SEED = Number(process.env.FC_SEED ?? 20_240_611);
const RUNS = Number(process.env.FC_RUNS ?? 200);
const TIMEOUT_MS = 5000;
const fcOptions = { seed: SEED, numRuns: RUNS, endOnFailure: true } as const;
/** Per test: generous, so only a real hang trips the per-request timeout first. */
const testTimeout = Math.max(60_000, RUNS * 1500);

const document = loadSpec().document;
const operations = listOperations(document);
const ADMIN_WRITES_RESET_WORLD = (op: Operation | undefined, method: string) =>
  op?.tags.includes('admin') === true && method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';

// ------------------------------------------------------------------ the world under test

interface World {
  server: TestServer;
  url: string;
  wire: ReturnType<typeof createWireClient>;
  token: string;
  otherToken: string;
  errors: string[];
}

async function createWorld(): Promise<World> {
  const errors: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(line) });
  const server = await createTestServer({ logger });
  const url = await server.mock.listen(0, '127.0.0.1');
  return {
    server,
    url,
    wire: createWireClient(url, TIMEOUT_MS),
    token: await server.token(ACME_KEY),
    otherToken: await server.token(OTHER_KEY),
    errors,
  };
}

async function closeWorld(world: World | undefined): Promise<void> {
  if (!world) return;
  world.wire.close();
  await world.server.mock.close();
}

function fingerprint(world: World): string {
  const fake = world.server.mock.root.fake;
  return `${JSON.stringify(fake.snapshot())}\n${JSON.stringify(fake.settings)}`;
}

function prototypesFingerprint(): string {
  const describe = (target: object) =>
    Reflect.ownKeys(target)
      .map((key) => {
        const d = Object.getOwnPropertyDescriptor(target, key);
        const kind = d && 'value' in d ? typeof d.value : 'accessor';
        return `${String(key)}:${kind}:${d?.enumerable}:${d?.writable}`;
      })
      .join(',');
  const probe = {} as Record<string, unknown>;
  const inherited: string[] = [];
  for (const key in probe) inherited.push(key);
  return [
    describe(Object.prototype),
    describe(Array.prototype),
    describe(Function.prototype),
    describe(String.prototype),
    inherited.join(','),
    String(probe.polluted),
  ].join('\n');
}

// ------------------------------------------------------------------ requests to materialize

type TokenMode = 'valid' | 'none' | 'garbage' | 'both' | 'duplicate' | 'other' | 'huge' | 'latin1';
type KeyMode = 'valid' | 'swapped' | 'noKey' | 'noHash' | 'wrongHash' | 'duplicate' | 'latin1' | 'upper';

interface Plan {
  operation: Operation;
  method: string;
  path: string;
  query: string;
  tokenMode: TokenMode;
  keyMode: KeyMode;
  contentType: string | undefined;
  extraHeaders: string[];
  /** The JSON value of the body (before serialization) or undefined for none. */
  body: unknown;
  hasBody: boolean;
  form: boolean;
  encoding: Parameters<typeof encodeText>[1];
  compression: Parameters<typeof compress>[1];
  pristine: boolean;
}

const EXTRA_HEADERS: string[][] = [
  ['__proto__', 'x'],
  ['constructor', 'x'],
  ['prototype', 'x'],
  ['x-http-method-override', 'DELETE'],
  ['accept', 'text/html'],
  ['accept', '*/*;q=0'],
  ['origin', 'http://evil.example'],
  ['authorization', 'Bearer nope'],
  ['x-request-id', '../../etc'],
  ['x-fake-fault', 'forged'],
  ['x-big', 'x'.repeat(20_000)],
  ['cookie', '__proto__=1; constructor=2'],
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND'];

function planArbitrary(operation: Operation): fc.Arbitrary<Plan> {
  const media = operation.requestBody ? [...operation.requestBody.content.keys()] : [];
  const bodySchema = operation.requestBody ? operation.requestBody.content.values().next().value : undefined;
  const baseBody: fc.Arbitrary<unknown> = bodySchema
    ? schemaArbitrary(bodySchema, { document, depth: 0 })
    : fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: hostileValue });
  const contentType = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom<string | undefined>(...(media.length > 0 ? media : [undefined])),
    },
    { weight: 3, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) },
  );
  return fc
    .record({
      method: fc.oneof(
        { weight: 24, arbitrary: fc.constant(operation.method.toUpperCase()) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      path: pathArbitrary(operation, document),
      query: queryArbitrary(operation, document),
      tokenMode: fc.oneof(
        { weight: 20, arbitrary: fc.constant<TokenMode>('valid') },
        {
          weight: 3,
          arbitrary: fc.constantFrom<TokenMode>(
            'none',
            'garbage',
            'both',
            'duplicate',
            'other',
            'huge',
            'latin1',
          ),
        },
      ),
      keyMode: fc.oneof(
        { weight: 12, arbitrary: fc.constant<KeyMode>('valid') },
        {
          weight: 3,
          arbitrary: fc.constantFrom<KeyMode>(
            'swapped',
            'noKey',
            'noHash',
            'wrongHash',
            'duplicate',
            'latin1',
            'upper',
          ),
        },
      ),
      contentType,
      extraHeaders: fc.oneof(
        { weight: 12, arbitrary: fc.constant<string[][]>([]) },
        { weight: 1, arbitrary: fc.subarray(EXTRA_HEADERS, { minLength: 1, maxLength: 3 }) },
      ),
      body: baseBody,
      mutations: fc.oneof(
        { weight: 3, arbitrary: fc.constant<Mutation[]>([]) },
        { weight: 4, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 1 }) },
        { weight: 2, arbitrary: fc.array(mutation, { minLength: 2, maxLength: 3 }) },
      ),
      hasBody: bodySchema
        ? fc.oneof({ weight: 12, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) })
        : fc.constant(true),
      encoding: bodyEncoding,
      compression: contentEncoding,
    })
    .map((r) => {
      const body = r.mutations.length > 0 ? applyMutations(r.body, r.mutations) : r.body;
      const pristine =
        r.mutations.length === 0 &&
        r.method === operation.method.toUpperCase() &&
        r.tokenMode === 'valid' &&
        r.keyMode === 'valid' &&
        r.encoding.kind === 'utf8' &&
        r.compression === 'none' &&
        r.extraHeaders.length === 0;
      const plan: Plan = {
        operation,
        method: r.method,
        path: r.path,
        query: r.query,
        tokenMode: r.tokenMode,
        keyMode: r.keyMode,
        contentType: r.contentType,
        extraHeaders: r.extraHeaders.flat(),
        body,
        hasBody: r.hasBody && body !== undefined,
        form: r.contentType === 'application/x-www-form-urlencoded',
        encoding: r.encoding,
        compression: r.compression,
        pristine,
      };
      Object.defineProperty(plan, fc.toStringMethod, {
        value: () =>
          `${plan.method} ${plan.path.slice(0, 200)}${plan.query.slice(0, 200)} [${operation.operationId}] ` +
          `token=${plan.tokenMode} key=${plan.keyMode} type=${plan.contentType} encoding=${plan.encoding.kind} ` +
          `compression=${plan.compression} headers=${JSON.stringify(plan.extraHeaders.map((h) => h.slice(0, 40)))} ` +
          `body=${plan.hasBody ? toJsonText(plan.body).slice(0, 400) : 'none'}`,
      });
      return plan;
    });
}

/** encodeURIComponent, with lone surrogates replaced (they have no UTF-8 form to escape). */
function formEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return encodeURIComponent((text as unknown as { toWellFormed(): string }).toWellFormed());
  }
}

function formText(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return formEncode(toJsonText(value));
  const parts: string[] = [];
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    const text = typeof v === 'string' ? v : v instanceof RawJson ? v.text : toJsonText(v);
    parts.push(`${formEncode(key)}=${formEncode(text)}`);
  }
  return parts.join('&');
}

function materialize(plan: Plan, world: World): WireRequest {
  const headers: string[] = [];
  const needsToken =
    plan.operation.operationId !== 'createClientToken' && !plan.operation.tags.includes('admin');
  if (needsToken) {
    switch (plan.tokenMode) {
      case 'valid':
        headers.push('x-access-token', world.token);
        break;
      case 'none':
        break;
      case 'garbage':
        headers.push('x-access-token', 'not-a-token');
        break;
      case 'both':
        headers.push('x-access-token', world.token, 'x-api-token', world.otherToken);
        break;
      case 'duplicate':
        headers.push('x-access-token', world.token, 'x-access-token', world.token);
        break;
      case 'other':
        headers.push('x-api-token', world.otherToken);
        break;
      case 'huge':
        headers.push('x-access-token', 't'.repeat(30_000));
        break;
      case 'latin1':
        headers.push('x-access-token', '\u00ff\u00e9\u00e0');
        break;
    }
  }
  let bodyText: string | undefined;
  if (plan.hasBody) bodyText = plan.form ? formText(plan.body) : toJsonText(plan.body);
  if (plan.operation.operationId === 'createClientToken') {
    const content = (plan.body as Record<string, unknown> | undefined)?.content;
    const hash = computeHash(ACME_KEY.secret, typeof content === 'string' ? content : String(content));
    switch (plan.keyMode) {
      case 'valid':
        headers.push('x-key', ACME_KEY.keyId, 'x-hash', hash);
        break;
      case 'upper':
        headers.push('x-key', ACME_KEY.keyId.toUpperCase(), 'x-hash', hash.toUpperCase());
        break;
      case 'swapped':
        headers.push('x-key', ACME_KEY.secret, 'x-hash', ACME_KEY.keyId);
        break;
      case 'noKey':
        headers.push('x-hash', hash);
        break;
      case 'noHash':
        headers.push('x-key', ACME_KEY.keyId);
        break;
      case 'wrongHash':
        headers.push('x-key', ACME_KEY.keyId, 'x-hash', `${hash.slice(0, -1)}0`);
        break;
      case 'duplicate':
        headers.push('x-key', ACME_KEY.keyId, 'x-key', OTHER_KEY.keyId, 'x-hash', hash, 'x-hash', hash);
        break;
      case 'latin1':
        headers.push('x-key', '\u00ff\u00fe', 'x-hash', '\u00e9');
        break;
    }
  }
  let body: Buffer | undefined;
  if (bodyText !== undefined) {
    const [bytes, encodingHeader] = compress(encodeText(bodyText, plan.encoding), plan.compression);
    body = bytes;
    if (encodingHeader) headers.push('content-encoding', encodingHeader);
    if (plan.contentType !== undefined) headers.push('content-type', plan.contentType);
  }
  headers.push(...plan.extraHeaders);
  const request: WireRequest = {
    method: plan.method,
    path: `${plan.path}${plan.query}`,
    headers,
    body,
    operationId: plan.operation.operationId,
    pristine: plan.pristine,
  };
  // fast-check prints counterexamples: keep them readable whatever their size.
  Object.defineProperty(request, fc.toStringMethod, {
    value: () =>
      `${request.method} ${request.path.slice(0, 300)} [${request.operationId}] headers=${JSON.stringify(
        headers.map((h) => h.slice(0, 80)),
      )} body=${body === undefined ? 'none' : JSON.stringify(body.subarray(0, 300).toString('latin1'))}${
        body && body.length > 300 ? `... (${body.length} bytes)` : ''
      }`,
  });
  return request;
}

// ------------------------------------------------------------------ the checks

const stats: string[] = [];
let checker: ConformanceChecker;
let world: World;
const protoBaseline = prototypesFingerprint();

function describeExchange(req: WireRequest, res: WireResponse | undefined): string {
  const custom = (req as unknown as Record<symbol, (() => string) | undefined>)[fc.toStringMethod];
  const summary = custom ? custom() : `${req.method} ${req.path.slice(0, 300)} [${req.operationId}]`;
  return `${summary}\n -> ${res ? `${res.status} ${res.text.slice(0, 500)}` : 'no response'}`;
}

async function exchange(req: WireRequest): Promise<WireResponse> {
  const before = fingerprint(world);
  const errorsBefore = world.errors.length;
  let res: WireResponse;
  try {
    res = await world.wire.send(req);
  } catch (error) {
    throw new Error(`request failed (${String(error)}):\n${describeExchange(req, undefined)}`);
  }
  const where = describeExchange(req, res);
  const faulted = res.headers['x-fake-fault'] !== undefined;
  if (!faulted) {
    expect(res.status, `5xx:\n${where}\nlogged: ${world.errors.slice(errorsBefore).join('\n')}`).toBeLessThan(
      500,
    );
    expect(res.jsonError, `unparseable JSON answer:\n${where}`).toBeUndefined();
    if (res.status >= 400 && req.method !== 'HEAD') {
      expect(res.body, `not the vendor error shape:\n${where}`).toMatchObject({
        success: expect.toSatisfy((v) => v === false || v === 'false'),
        message: expect.any(String),
        code: expect.any(Number),
        status: res.status,
        apiRequestUid: expect.any(String),
      });
    }
    const observed = {
      method: req.method,
      url: req.path,
      status: res.status,
      headers: res.headers as Record<string, string | string[] | undefined>,
      body: res.body,
    };
    const failure = describeFailure(observed, checker.check(observed));
    expect(failure, where).toBeUndefined();
  }
  expect(world.errors.slice(errorsBefore), `logged errors:\n${where}`).toEqual([]);
  expect(prototypesFingerprint(), `a prototype changed:\n${where}`).toBe(protoBaseline);
  const readOnly = ['GET', 'HEAD', 'OPTIONS'].includes(req.method);
  if (res.status >= 400 || readOnly) {
    expect(fingerprint(world) === before, `state changed by a rejected write or a read:\n${where}`).toBe(
      true,
    );
  }
  return res;
}

/** After an accepted vendor write, read back what changed: stored hostile data must still serialize. */
async function readBack(before: ReturnType<TestServer['mock']['root']['fake']['snapshot']>): Promise<void> {
  const after = world.server.mock.root.fake.snapshot();
  const old = new Map(before.documents.map((d) => [d.id, d]));
  const changed = after.documents.filter((d) => old.get(d.id) !== d && d.organization_id === 1).slice(0, 4);
  for (const doc of changed) {
    await exchange({
      method: 'GET',
      path: `/api/v2/documents/${doc.id}`,
      headers: ['x-access-token', world.token],
      body: undefined,
      operationId: 'getDocument',
      pristine: true,
    });
  }
  if (changed.length > 0) {
    await exchange({
      method: 'GET',
      path: '/api/v2/documents?resultsPerPage=1000&searchTxt=e',
      headers: ['x-access-token', world.token],
      body: undefined,
      operationId: 'listDocuments',
      pristine: true,
    });
  }
}

/** The admin views that render what hostile requests left behind (journal, violations, state). */
async function readAdminViews(): Promise<void> {
  for (const path of ['/__admin/requests', '/__admin/violations', '/__admin/state']) {
    const operationId = path.slice('/__admin/'.length);
    await exchange({ method: 'GET', path, headers: [], body: undefined, operationId, pristine: true });
  }
}

let runCount = 0;

async function run(plan: Plan): Promise<void> {
  runCount++;
  const before = world.server.mock.root.fake.snapshot();
  const req = materialize(plan, world);
  const res = await exchange(req);
  if (process.env.FC_STATS)
    stats.push(
      `${plan.operation.operationId} ${req.method} ${res.status} ${plan.pristine ? 'pristine' : ''}${
        req.body?.includes('['.repeat(1000)) || req.body?.includes('{"a":'.repeat(1000)) ? ' deep' : ''
      }`,
    );
  if (res.status < 300 && ADMIN_WRITES_RESET_WORLD(plan.operation, req.method)) {
    // An accepted admin write (reset, load, settings, faults, clock, revoke) changes the rules
    // for the next run: start the next one from a fresh fake.
    const old = world;
    world = await createWorld();
    await closeWorld(old);
    return;
  }
  if (res.status < 300 && !plan.operation.tags.includes('admin') && req.method !== 'GET')
    await readBack(before);
  if (runCount % 10 === 0) await readAdminViews();
}

describe(`hostile input (seed ${SEED}, ${RUNS} runs per property)`, () => {
  beforeAll(async () => {
    checker = await defaultConformanceChecker();
    world = await createWorld();
  });
  afterAll(async () => {
    if (process.env.FC_STATS) {
      const counts = new Map<string, number>();
      for (const s of stats) counts.set(s, (counts.get(s) ?? 0) + 1);
      console.log(
        [...counts]
          .sort()
          .map(([k, n]) => `${n}\t${k}`)
          .join('\n'),
      );
    }
    await closeWorld(world);
  });

  const vendor = operations.filter((op) => !op.tags.includes('admin'));
  const admin = operations.filter((op) => op.tags.includes('admin'));

  it.each([
    ['vendor', vendor],
    ['admin', admin],
  ])(
    'every %s operation: generated from the spec, then broken',
    async (_name, ops) => {
      const plans = fc.constantFrom(...ops).chain(planArbitrary);
      await fc.assert(fc.asyncProperty(plans, run), fcOptions);
      await readAdminViews();
      const health = await world.wire.send({
        method: 'GET',
        path: '/__admin/health',
        headers: [],
        body: undefined,
      });
      expect(health.status).toBe(200);
    },
    testTimeout,
  );

  it(
    'a batch with one bad item is rejected whole, naming the item, and changes nothing',
    async () => {
      const patchDocuments = operations.find((op) => op.operationId === 'patchDocuments') as Operation;
      const goodItem = fc.record({
        templateUid: fc.constantFrom('tpl-5001', 'TPL-5001', '5001', 5001),
        id: fc.constantFrom(101101, 101102, '', null),
        title: fc.string({ maxLength: 20 }),
        details: fc.constant({
          city: { name: 'City', description: '', value: { type: 'string', text: 'Perth' } },
        }),
      });
      const breakItem = fc.constantFrom<(item: Record<string, unknown>) => unknown>(
        (item) => ({ ...item, title: 42 }),
        (item) => ({ ...item, templateUid: 'tpl-0' }),
        (item) => ({ ...item, templateUid: 'tpl-424242' }),
        ({ templateUid: _t, ...item }) => item,
        (item) => ({ ...item, id: 201101 }),
        (item) => ({ ...item, id: 999999 }),
        (item) => ({ ...item, id: -1 }),
        (item) => ({ ...item, id: new RawJson('9007199254740993') }),
        (item) => ({ ...item, id: '0x1' }),
        (item) => {
          const details: Record<string, unknown> = {};
          setOwn(details, '__proto__', { name: 'x', description: '', value: { type: 's', text: 't' } });
          return { ...item, details };
        },
        (item) => ({
          ...item,
          details: { zz_not_a_field: { name: 'x', description: '', value: { type: 's', text: 't' } } },
        }),
        (item) => ({ ...item, details: { city: 42 } }),
        (item) => ({
          ...item,
          details: {
            city: {
              name: 'City',
              description: '',
              value: { type: 's', text: 't', deep: new RawJson(`${'['.repeat(50)}${']'.repeat(50)}`) },
            },
          },
        }),
        (item) => ({ ...item, details: [] }),
        (item) => ({ ...item, clientId: 'x' }),
      );
      const batches = fc.record({
        items: fc.array(goodItem, { minLength: 1, maxLength: 5 }),
        at: fc.nat(),
        breaker: breakItem,
        method: fc.constantFrom('PUT', 'PATCH'),
      });
      await fc.assert(
        fc.asyncProperty(batches, async ({ items, at, breaker, method }) => {
          const index = at % (items.length + 1);
          const batch: unknown[] = [...items];
          batch.splice(index, 0, breaker(items[0] as Record<string, unknown>));
          const res = await exchange({
            method,
            path: '/api/v2/documents',
            headers: ['x-access-token', world.token, 'content-type', 'application/json'],
            body: Buffer.from(toJsonText(batch)),
            operationId: patchDocuments.operationId,
            pristine: false,
          });
          expect([400, 403]).toContain(res.status);
          const mentioned = JSON.stringify(res.body);
          if (res.status === 400) expect(mentioned).toContain(`body/${index}`);
        }),
        fcOptions,
      );
    },
    testTimeout,
  );

  it('JSON nested 20 000 levels deep, sent to every operation, breaks no later answer', async () => {
    const depth = 20_000;
    const bodies = [
      `${'['.repeat(depth)}${']'.repeat(depth)}`,
      `{"name":{"name":"N","description":"","value":{"type":"s","text":"t","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}}`,
    ];
    // Vendor operations first: an accepted admin write (reset, revoke, clear) would hide the rest.
    const ordered = [...operations].sort(
      (a, b) => Number(a.tags.includes('admin')) - Number(b.tags.includes('admin')),
    );
    for (const op of ordered) {
      for (const body of bodies) {
        await exchange({
          method: op.method.toUpperCase(),
          path: op.path.replace('{documentId}', '101101').replace(/\{[^}]+\}/g, 'x'),
          headers: ['x-access-token', world.token, 'content-type', 'application/json'],
          body: Buffer.from(body),
          operationId: op.operationId,
          pristine: false,
        });
        await readAdminViews();
      }
    }
  });

  it('knows the fixture values it aims at', () => {
    // Guards the generators: the small set still has these, or the properties test less than they claim.
    const ids = new Set(world.server.mock.root.fake.snapshot().documents.map((d) => String(d.id)));
    for (const id of KNOWN.documentIds.slice(0, 5)) expect(ids.has(id), id).toBe(true);
  });
});
