import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
import { validateInput } from '@stoplight/prism-http/dist/validator/index.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { generate } from 'orval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { computeHash } from '../src/domain/tokens.js';
import { ACME_KEY, createTestServer, type TestServer, textEntry } from './support/test-server.js';

/**
 * The spec as tools nobody here wrote read it, for every operation it holds (checks are generic, so
 * an operation added later is held to them too):
 * - client code generated from the whole spec by openapi-typescript and by orval compiles under
 *   `tsc --strict`, and the generated types refuse what the fake refuses (a detail value without
 *   `text`);
 * - Prism's request validation (what a Prism validation proxy in front of the fake applies) agrees
 *   with the fake: a request the fake answers without a finding passes it, one the fake refuses for
 *   its body fails it, and where Prism refuses what the fake reads all the same, the fake notes it.
 * Redocly and Spectral lint the spec in spec-lint.test.ts.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SPEC = join(ROOT, 'spec/openapi.yaml');
// In test-artifacts/ (git-ignored): out of reach of the project's own linter and type check.
const SCRATCH = join(ROOT, 'test-artifacts', `spec-tools-${process.pid}`);

afterAll(() => rmSync(SCRATCH, { recursive: true, force: true }));

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM'],
    types: [],
    skipLibCheck: false,
  },
  include: ['*.ts'],
};

/** `tsc --strict` over a folder: the compiler's complaints, empty when it compiles. */
async function typeCheck(folder: string): Promise<string> {
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  return run(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(folder, 'tsconfig.json')]).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  );
}

describe('client code generated from the whole spec', () => {
  it('openapi-typescript: compiles under tsc --strict, and its types refuse a detail value without text', async () => {
    const folder = join(SCRATCH, 'openapi-typescript');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'api.ts'), astToString(await openapiTS(new URL(`file://${SPEC}`))));
    writeFileSync(
      join(folder, 'client.ts'),
      [
        "import type { components } from './api.js';",
        "type Entry = components['schemas']['DetailsInput'][string];",
        "export const whole: Entry = { name: 'City', description: '', value: { type: 'string', text: 'Perth' } };",
        "export const readShaped: Entry = { attribute: [{ type: 'vendors', id: 7 }] };",
        '// @ts-expect-error a value without text: the fake refuses it, and so must the types',
        "export const noText: Entry = { name: 'City', description: '', value: { type: 'string' } };",
        '// @ts-expect-error a value without anything',
        "export const emptyValue: Entry = { name: 'City', description: '', value: {} };",
      ].join('\n'),
    );
    expect(await typeCheck(folder)).toBe('');
  }, 120_000);

  it('orval (fetch client, every operation): compiles under tsc --strict', async () => {
    const folder = join(SCRATCH, 'orval');
    mkdirSync(folder, { recursive: true });
    await generate({
      input: { target: SPEC },
      output: {
        target: join(folder, 'api.ts'),
        client: 'fetch',
        mode: 'single',
        // The spec's default server as the base URL of every call.
        baseUrl: { getBaseUrlFromSpecification: true },
      },
    });
    const code = readFileSync(join(folder, 'api.ts'), 'utf8');
    // Every operation of the spec became a function.
    const spec = parse(readFileSync(SPEC, 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const ids = Object.values(spec.paths).flatMap((item) =>
      Object.values(item).flatMap((op) =>
        typeof op === 'object' && op?.operationId ? [op.operationId] : [],
      ),
    );
    expect(ids.length).toBeGreaterThan(20);
    for (const id of ids) expect(code, id).toMatch(new RegExp(`export const ${id} = `));
    expect(code).toContain('http://127.0.0.1:4010');
    expect(await typeCheck(folder)).toBe('');
  }, 120_000);
});

interface Probe {
  what: string;
  /** What the fake does with it: answers without a finding, refuses it, or reads it with a notice. */
  fake: 'silent' | 'refused' | 'noticed';
  method: 'get' | 'patch' | 'post';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  form?: boolean;
  headers?: Record<string, string>;
}

const ENTRY = textEntry('City', 'Perth');
const PROBES: Probe[] = [
  {
    what: 'a list ordered by label, descending',
    fake: 'silent',
    method: 'get',
    path: '/api/v2/documents',
    query: { pageNum: '1', orderBy: 'label', orderDir: 'desc' },
  },
  {
    what: 'a list with orderBy=LABEL',
    fake: 'noticed',
    method: 'get',
    path: '/api/v2/documents',
    query: { pageNum: '1', orderBy: 'LABEL', orderDir: 'DESC' },
  },
  {
    what: 'a PATCH of one documented entry',
    fake: 'silent',
    method: 'patch',
    path: '/api/v2/documents/101101',
    body: { city: ENTRY },
  },
  {
    what: 'a PATCH whose value has no text',
    fake: 'refused',
    method: 'patch',
    path: '/api/v2/documents/101101',
    body: { city: { ...ENTRY, value: { type: 'string' } } },
  },
  {
    what: 'a PATCH whose value is empty',
    fake: 'refused',
    method: 'patch',
    path: '/api/v2/documents/101101',
    body: { city: { ...ENTRY, value: {} } },
  },
  {
    what: 'a PATCH of an entry without value',
    fake: 'refused',
    method: 'patch',
    path: '/api/v2/documents/101101',
    body: { city: { name: 'City', description: '' } },
  },
  {
    what: 'a batch item with a blank id',
    fake: 'silent',
    method: 'patch',
    path: '/api/v2/documents',
    body: [{ templateUid: 'tpl-5001', id: '', title: 'Perth Office' }],
  },
  {
    what: 'a batch item without id',
    fake: 'noticed',
    method: 'patch',
    path: '/api/v2/documents',
    body: [{ templateUid: 'tpl-5001', title: 'Perth Office' }],
  },
  {
    what: 'a JSON token body',
    fake: 'silent',
    method: 'post',
    path: '/api/v2/auth/client_token',
    body: { scope: 'docs_api', content: 'c1' },
    headers: { 'x-key': ACME_KEY.keyId, 'x-hash': computeHash(ACME_KEY.secret, 'c1') },
  },
  {
    what: 'a form-encoded token body',
    fake: 'noticed',
    method: 'post',
    path: '/api/v2/auth/client_token',
    body: { scope: 'docs_api', content: 'c1' },
    form: true,
    headers: { 'x-key': ACME_KEY.keyId, 'x-hash': computeHash(ACME_KEY.secret, 'c1') },
  },
];

describe("Prism's request validation and the fake", () => {
  let t: TestServer;
  let token: string;
  let operations: Awaited<ReturnType<typeof getHttpOperationsFromSpec>>;
  beforeAll(async () => {
    t = await createTestServer();
    token = await t.token();
    operations = await getHttpOperationsFromSpec(SPEC);
  }, 60_000);
  afterAll(() => t.mock.close());

  /** The operation of the spec that serves `method path` (path templates matched segment by segment). */
  function operationOf(method: string, path: string) {
    const segments = path.split('/');
    return operations.find((op) => {
      const template = op.path.split('/');
      return (
        op.method === method &&
        template.length === segments.length &&
        template.every((part, i) => part.startsWith('{') || part === segments[i])
      );
    });
  }

  it.each(PROBES.map((p) => [p.what, p] as const))('%s', async (_what, probe) => {
    const headers: Record<string, string> = {
      ...(probe.path.includes('/auth/') ? {} : { 'x-access-token': token }),
      ...(probe.body === undefined
        ? {}
        : { 'content-type': probe.form ? 'application/x-www-form-urlencoded' : 'application/json' }),
      ...probe.headers,
    };
    await t.mock.clearRequests();
    const search = new URLSearchParams(probe.query).toString();
    let request = t.http[probe.method](`${probe.path}${search ? `?${search}` : ''}`);
    for (const [name, value] of Object.entries(headers)) request = request.set(name, value);
    if (probe.form) request = request.type('form');
    const res = probe.body === undefined ? await request : await request.send(probe.body as object);
    const [entry] = await t.mock.requests();
    const findings = { violations: entry?.violations ?? [], notices: entry?.notices ?? [] };
    const outcome =
      findings.violations.length > 0 ? 'refused' : findings.notices.length > 0 ? 'noticed' : 'silent';
    expect(outcome, `${probe.what}: ${res.status} ${JSON.stringify(findings)}`).toBe(probe.fake);
    expect(res.status < 300).toBe(probe.fake !== 'refused');

    const resource = operationOf(probe.method, probe.path);
    expect(resource, `${probe.method} ${probe.path}`).toBeDefined();
    if (!resource) return;
    const result = validateInput({
      resource,
      element: {
        method: probe.method,
        url: { path: probe.path, query: probe.query ?? {} },
        headers,
        body: probe.body,
      },
    });
    // Prism's errors (severity 0); warnings are left out.
    const prismErrors =
      result._tag === 'Left' ? result.left.filter((d) => d.severity === 0).map((d) => d.message) : [];

    if (res.status < 300 && findings.violations.length === 0 && findings.notices.length === 0) {
      // Accepted silently by the fake: standard validators accept it too.
      expect(prismErrors, `${probe.what}: ${res.status}`).toEqual([]);
    }
    if (findings.violations.length > 0 && res.status === 400) {
      // Refused for its body by the fake: the spec refuses it too.
      expect(prismErrors.length, `${probe.what}: ${JSON.stringify(res.body)}`).toBeGreaterThan(0);
    }
    if (prismErrors.length > 0 && res.status < 300) {
      // Refused by the spec, read by the fake: never silently.
      expect(findings.notices.length, `${probe.what}: ${prismErrors.join('; ')}`).toBeGreaterThan(0);
    }
  });
});
