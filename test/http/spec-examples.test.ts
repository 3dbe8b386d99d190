import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMockServer, type MockServer } from '../../src/index.js';

/**
 * The spec's own examples, sent as written against the default fixtures: a reader who copies an
 * example from the docs (or presses "try it") gets a success. Every vendor operation with a
 * request example is sent once per example, with the token example's key and hash.
 */

type Obj = Record<string, unknown>;
const spec = parse(
  readFileSync(fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url)), 'utf8'),
) as Obj;
const paths = spec.paths as Record<string, Obj>;
const components = spec.components as Record<string, Record<string, Obj>>;

function resolve(value: unknown): Obj {
  const ref = (value as Obj | undefined)?.$ref;
  if (typeof ref !== 'string') return (value ?? {}) as Obj;
  const [, , kind, name] = ref.split('/');
  return resolve(components[kind as string]?.[name as string]);
}

interface ExampleCall {
  name: string;
  method: string;
  path: string;
  query: Obj;
  headers: Record<string, string>;
  body: unknown;
}

/** One call per request-body example (or one call when the operation has no body). */
function examplesOf(path: string, method: string, op: Obj): ExampleCall[] {
  const params = [
    ...((paths[path]?.parameters as unknown[]) ?? []),
    ...((op.parameters as unknown[]) ?? []),
  ].map(resolve);
  let url = path;
  const query: Obj = {};
  const headers: Record<string, string> = {};
  for (const p of params) {
    if (p.example === undefined) continue;
    if (p.in === 'path') url = url.replace(`{${String(p.name)}}`, String(p.example));
    if (p.in === 'header') headers[String(p.name)] = String(p.example);
    if (p.in === 'query') query[String(p.name)] = p.example;
  }
  const media = (resolve(op.requestBody).content as Record<string, Obj> | undefined)?.['application/json'];
  const bodies: Array<[string, unknown]> = [];
  if (media?.example !== undefined) bodies.push(['example', media.example]);
  for (const [name, example] of Object.entries((media?.examples as Record<string, Obj>) ?? {})) {
    bodies.push([name, resolve(example).value]);
  }
  if (bodies.length === 0) bodies.push(['no body', undefined]);
  return bodies.map(([name, body]) => ({ name, method, path: url, query, headers, body }));
}

const VENDOR_TAGS = new Set(['auth', 'documents']);
const calls: Array<[string, ExampleCall]> = [];
for (const [path, item] of Object.entries(paths)) {
  for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
    const op = item[method] as Obj | undefined;
    if (!op || !(op.tags as string[]).some((t) => VENDOR_TAGS.has(t))) continue;
    for (const call of examplesOf(path, method, op))
      calls.push([`${String(op.operationId)} (${call.name})`, call]);
  }
}

let mock: MockServer;
let http: ReturnType<typeof supertest>;
let token: string;

beforeAll(async () => {
  mock = await createMockServer({ logLevel: 'silent' });
  http = supertest(mock.app);
  const [, tokenCall] = calls.find(([name]) => name.startsWith('createClientToken')) ?? [];
  expect(tokenCall, 'the token operation has an example').toBeDefined();
  const res = await http
    .post(tokenCall?.path ?? '')
    .set(tokenCall?.headers ?? {})
    .send(tokenCall?.body as object);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  token = res.body.access_token;
});
afterAll(async () => {
  await mock.close();
});

describe('every vendor example of the spec succeeds against the default fixtures', () => {
  it('covers every vendor operation that takes input', () => {
    const ops = new Set(calls.map(([name]) => name.split(' ')[0]));
    for (const id of [
      'createClientToken',
      'listDocuments',
      'getDocument',
      'patchDocument',
      'replaceDocuments',
      'patchDocuments',
      'createDocuments',
      'listClients',
    ]) {
      expect(ops).toContain(id);
    }
  });

  it.each(calls)('%s', async (_name, call) => {
    const req = http[call.method as 'get'](call.path)
      .set(call.headers)
      .set('x-access-token', token)
      .query(call.query);
    const res = call.body === undefined ? await req : await req.send(call.body as object);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    expect(
      res.body.success === true || res.body.success === 'true' || typeof res.body.openapi === 'string',
    ).toBe(true);
    const entry = (await mock.requests()).at(-1);
    expect(entry?.violations).toEqual([]);
    // The list examples filter together (template and search text) and still find a document.
    if (Array.isArray(res.body.results)) expect(res.body.results.length).toBeGreaterThan(0);
  });
});
