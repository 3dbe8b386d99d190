/**
 * An admin power is defined once: an operation of the spec's `admin` tag, which names the admin
 * client's methods that call it (`x-client`) and the programmatic API's methods that do the same
 * in process (`x-controls`). This test holds the spec, the handler table, the controls and the
 * admin client to that one list, both ways: a power missing in one place, or a method no
 * operation names, fails here (docs/admin-api.md's tables are made from the same operations:
 * test/generated-files.test.ts). The MCP server's tools are held to it too: one per operation,
 * named by its operationId, taking its parameters and body (test/mcp/ drives them through the
 * SDK's client). The dataset kinds are held to the spec the same way.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '../src/client/admin-client.js';
import { ADMIN_TAG, listOperations, type Operation } from '../src/contract/operations.js';
import { createOperationValidators } from '../src/contract/request-validator.js';
import { loadSpec, resolveRef } from '../src/contract/spec-document.js';
import { DATASET_KINDS } from '../src/domain/types.js';
import { ServerPowers } from '../src/harness/server-powers.js';
import { createAdminHandlers } from '../src/http/handlers/admin-handlers.js';
import { adminTools, BODY_ARGUMENT, SESSION_ARGUMENT } from '../src/mcp/tools.js';
import { createTestServer, type TestServer } from './support/test-server.js';

const spec = loadSpec();
const adminOperations = listOperations(spec.document).filter((op) => op.tags.includes(ADMIN_TAG));

function namesOf(operation: Operation, extension: 'x-client' | 'x-controls'): string[] {
  const names = operation.raw[extension];
  if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string')) {
    throw new Error(`${operation.operationId}: ${extension} must list at least one method name`);
  }
  return names;
}

const union = (extension: 'x-client' | 'x-controls') =>
  [...new Set(adminOperations.flatMap((op) => namesOf(op, extension)))].sort();

/** The admin powers of a test server, made as `createMockServer` makes them. */
const powersOf = ({ mock }: TestServer) =>
  new ServerPowers({
    root: mock.root,
    sessions: mock.sessions,
    validators: createOperationValidators(spec.document),
    operationIds: [],
  });

const methodsOf = (object: object) =>
  Object.entries(object)
    .filter(([, value]) => typeof value === 'function')
    .map(([key]) => key)
    .sort();

/** Arguments each client method is called with; one call per entry (none: one call without). */
const CLIENT_CALLS: Record<string, unknown[][]> = {
  load: [[{}]],
  request: [[7]],
  addFault: [[{}]],
  removeFault: [['f-1']],
  addRateLimit: [[{ per: 'key', limit: 1, windowSeconds: 1 }]],
  removeRateLimit: [['r-1']],
  applyScenario: [[{ name: 'throttled' }]],
  advanceClock: [[60]],
  setClock: [[1_700_000_000]],
  settings: [[], [{}]],
  deleteSession: [['s-1']],
};

/** A body every admin answer can be read from, so each client method completes. */
const ANY_ANSWER = {
  violations: [],
  notices: [],
  faults: [],
  rateLimits: [],
  scenarios: [],
  applied: [],
  sessions: [],
  id: 'f-1',
  revoked: 0,
  baseUrl: 'http://127.0.0.1:9/sessions/s-1',
};

/** The admin operation a request goes to, matched by method and path as the spec router does. */
function operationOf(method: string, url: string): string | undefined {
  const path = new URL(url).pathname;
  return adminOperations.find((op) => {
    if (op.method !== method.toLowerCase()) return false;
    const pattern = op.path.replace(/\{[^}]+\}/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(path);
  })?.operationId;
}

describe('an admin power is defined once', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer();
  });
  afterAll(() => server.mock.close());

  it('the spec has admin operations, each naming its client and control methods', () => {
    expect(adminOperations.length).toBeGreaterThan(15);
    for (const op of adminOperations) {
      expect(namesOf(op, 'x-client').length).toBeGreaterThan(0);
      expect(namesOf(op, 'x-controls').length).toBeGreaterThan(0);
    }
  });

  it('every admin operation has a handler, and every admin handler an operation', () => {
    const handlers = createAdminHandlers(powersOf(server));
    expect(Object.keys(handlers).sort()).toEqual(adminOperations.map((op) => op.operationId).sort());
  });

  it('the admin client has exactly the methods the operations name', () => {
    const client = createAdminClient('http://127.0.0.1:9');
    expect(methodsOf(client)).toEqual(union('x-client'));
  });

  it('each client method calls the operations that name it, and no other', async () => {
    const calledBy = new Map<string, Set<string>>();
    let current = '';
    const client = createAdminClient('http://127.0.0.1:9', {
      fetch: async (url, init) => {
        const operation = operationOf(init?.method ?? 'GET', String(url));
        calledBy.get(current)?.add(operation ?? `unknown ${init?.method} ${String(url)}`);
        return new Response(JSON.stringify(ANY_ANSWER), { status: 200 });
      },
    });
    for (const name of methodsOf(client)) {
      current = name;
      calledBy.set(name, new Set());
      const method = (client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name];
      for (const args of CLIENT_CALLS[name] ?? [[]]) await method?.(...args);
    }
    const expected = new Map<string, string[]>();
    for (const op of adminOperations) {
      for (const name of namesOf(op, 'x-client')) {
        expected.set(name, [...(expected.get(name) ?? []), op.operationId].sort());
      }
    }
    const actual = new Map([...calledBy].map(([name, ops]) => [name, [...ops].sort()]));
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
  });

  it('the programmatic API has a control for every operation, and no control no operation names', () => {
    const { mock } = server;
    for (const name of union('x-controls')) {
      // `sessions.list`: a method of the server's session registry.
      const [head, tail] = name.split('.') as [string, string | undefined];
      const owner = tail === undefined ? mock : (mock as unknown as Record<string, object>)[head];
      const method = (owner as Record<string, unknown> | undefined)?.[tail ?? head];
      expect(typeof method, `control ${name}`).toBe('function');
    }
    const controls = powersOf(server).controls(mock.root);
    const named = new Set(union('x-controls'));
    expect(methodsOf(controls).filter((name) => !named.has(name))).toEqual([]);
  });

  it('a control answers what its admin call answers', async () => {
    const { mock, http } = server;
    // The heap moves between two reads; the rest is the same.
    const withoutHeap = ({ memory, ...rest }: { memory?: object }) => ({
      ...rest,
      memoryKinds: Object.keys(memory ?? {}),
    });
    const health = (await http.get('/__admin/health')).body;
    expect(withoutHeap(health)).toEqual(withoutHeap(mock.health()));
    expect(health.memory).toBeDefined();
    mock.advanceClock(90);
    const clock = (await http.get('/__admin/clock')).body;
    expect(clock.offsetSeconds).toBe(mock.clock().offsetSeconds);
    expect(Math.abs(clock.now - mock.clock().now)).toBeLessThanOrEqual(1);
    await http.get('/api/v2/documents');
    const [entry] = await mock.requests({ path: '/api/v2/documents' });
    expect(entry).toBeDefined();
    const id = entry?.id ?? 0;
    expect((await http.get(`/__admin/requests/${id}`)).body).toEqual(
      JSON.parse(JSON.stringify(await mock.request(id))),
    );
    await expect(mock.request(999_999)).rejects.toMatchObject({ kind: 'requestNotFound' });
    expect((await http.get('/__admin/requests/999999')).status).toBe(404);
  });
});

describe('the MCP server has a tool per admin operation', () => {
  const tools = adminTools(spec.document);

  it('one tool per operation, named by its operationId, and no other', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(adminOperations.map((op) => op.operationId).sort());
  });

  it("each tool takes its operation's path and query parameters, its body, and the session", () => {
    for (const op of adminOperations) {
      const tool = tools.find((t) => t.name === op.operationId);
      const expected = [
        SESSION_ARGUMENT,
        ...op.parameters.filter((p) => p.in === 'path' || p.in === 'query').map((p) => p.name),
        ...(op.requestBody?.content.has('application/json') ? [BODY_ARGUMENT] : []),
      ].sort();
      expect(Object.keys(tool?.inputSchema.properties ?? {}).sort(), op.operationId).toEqual(expected);
      const required = op.parameters.filter((p) => p.in === 'path' || (p.in === 'query' && p.required));
      for (const p of required) expect(tool?.inputSchema.required, op.operationId).toContain(p.name);
      expect(tool?.inputSchema.required.includes(BODY_ARGUMENT), op.operationId).toBe(
        op.requestBody?.required === true,
      );
    }
  });
});

describe('the dataset kinds are listed once', () => {
  it("are the spec's State, required and described", () => {
    const state = resolveRef<Record<string, unknown>>(spec.document, {
      $ref: '#/components/schemas/State',
    });
    expect(state.required).toEqual([...DATASET_KINDS]);
    expect(Object.keys(state.properties as object)).toEqual([...DATASET_KINDS]);
  });

  it('are the keys of a fixture set (spec/fixtures.schema.json)', () => {
    const schema = JSON.parse(
      readFileSync(new URL('../spec/fixtures.schema.json', import.meta.url), 'utf8'),
    ) as { properties: object };
    expect(Object.keys(schema.properties)).toEqual([...DATASET_KINDS]);
  });

  it('are the keys of the state the admin API answers, in that order', async () => {
    const server = await createTestServer();
    try {
      const res = await server.http.get('/__admin/state');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual([...DATASET_KINDS]);
      expect(res.body).toEqual(JSON.parse(JSON.stringify(server.mock.state())));
    } finally {
      await server.mock.close();
    }
  });
});
