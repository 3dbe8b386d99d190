import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse as parseJunit, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '../../src/client/admin-client.js';
import { ADMIN_TAG, listOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';
import type { Report } from '../../src/harness/verdicts/report.js';
import { ContractViolationError, fakeMatchers, type MockServer } from '../../src/index.js';
import { reportCommand } from '../support/in-process-command.js';
import { createTestServer, SMALL_SET, type TestServer, textEntry } from '../support/test-server.js';
import { schemaErrors } from '../support/xml-schema.js';

/**
 * A suite that tests its client's handling of a 400 provokes it on purpose: it declares the
 * violation first, and then neither the per-test check, nor the report's gate, nor its JUnit file
 * counts it as a failure; undeclared, it fails both; declared and never provoked, it fails both
 * too (docs/testing.md).
 */

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const JUNIT_XSD = fileURLToPath(new URL('../fixtures/junit/junit.xsd', import.meta.url));
const CTRF_SCHEMA = fileURLToPath(
  new URL('../../node_modules/ctrf/src/ctrf-schema-0.0.json', import.meta.url),
);

let t: TestServer;
let mock: MockServer;

beforeAll(async () => {
  t = await createTestServer();
  mock = t.mock;
  await mock.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await mock.close();
});

/** The client's bad request: a PATCH with a detail key the template lacks (`body/colour`). */
async function sendBadPatch(base: string, token: string): Promise<number> {
  const res = await fetch(`${base}/api/v2/documents/101101`, {
    method: 'PATCH',
    headers: { 'x-access-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ name: textEntry('Name', 'Dundee'), colour: textEntry('Colour', 'red') }),
  });
  return res.status;
}

async function tokenAt(base: string): Promise<string> {
  const admin = createAdminClient(base);
  const { apiKeys } = await admin.state();
  const key = apiKeys[0];
  if (!key) throw new Error('no key');
  const { computeHash } = await import('../../src/domain/tokens.js');
  const res = await fetch(`${base}/api/v2/auth/client_token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-key': key.keyId,
      'x-hash': computeHash(key.secret, 'c'),
    },
    body: JSON.stringify({ scope: 'docs_api', content: 'c' }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * One test of a suite as a team writes it: reset before, (declare,) provoke the 400 and check the
 * client's handling, then the per-test check after. Answers what the check threw, if anything.
 */
async function runTest(base: string, declare: boolean): Promise<unknown> {
  const admin = createAdminClient(base);
  await admin.reset();
  const token = await tokenAt(base);
  if (declare)
    await admin.expectViolation({ method: 'patch', path: '/api/v2/documents/*', location: 'body/colour' });
  expect(await sendBadPatch(base, token)).toBe(400);
  return admin.expectNoViolations().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('a suite that provokes a violation on purpose', () => {
  it('declared: the per-test checks pass, the gate passes and its JUnit lists the violation as a passing case', async () => {
    const { baseUrl } = await mock.session();
    // Two tests, each resetting first.
    expect(await runTest(baseUrl, true)).toBeUndefined();
    expect(await runTest(baseUrl, true)).toBeUndefined();
    const admin = createAdminClient(baseUrl);
    // Kept in the journal, marked; not listed as a violation.
    const [entry] = (await admin.requests({ method: 'PATCH' })).requests;
    expect(entry?.violations).toEqual([expect.objectContaining({ location: 'body/colour', expected: true })]);
    expect(await admin.violations()).toEqual([]);

    const json = await reportCommand(['--url', baseUrl, '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toContain('2 with expected violations');
    const report = JSON.parse(json.stdout) as Report;
    expect(report.summary).toMatchObject({
      violatingRequests: 0,
      expectedViolations: 2,
      unmetExpectations: 0,
    });
    expect(report.violations).toEqual([]);
    expect(report.expectedViolations).toHaveLength(2);
    expect(report.expectedViolations[0]?.violations[0]).toMatchObject({
      location: 'body/colour',
      expected: true,
    });

    const out = join(mkdtempSync(join(tmpdir(), 'fake-expected-')), 'junit.xml');
    const junit = await reportCommand([
      '--url',
      baseUrl,
      '--format',
      'junit',
      '--out',
      out,
      '--fail-on',
      'violations',
    ]);
    expect(junit.code, junit.stderr).toBe(0);
    expect(junit.stderr).toContain('gates passed');
    // libxml2's xmllint is the consumer CI systems' schema checks use.
    expect(await schemaErrors(readFileSync(out, 'utf8'), JUNIT_XSD)).toEqual([]);
    const parsed = (await parseJunit(readFileSync(out, 'utf8'))) as TestSuites;
    expect(parsed.failures).toBe(0);
    const patch = parsed.testsuite?.find((s) => s.name === 'patchDocument');
    const expected = patch?.testcase?.filter((c) => c.name?.startsWith('expected violation ')) ?? [];
    expect(expected).toHaveLength(2);
    for (const c of expected) {
      expect(c.name).toMatch(
        /^expected violation #\d+ PATCH \/api\/v2\/documents\/101101 -> 400: body\/colour$/,
      );
      expect(c.failure).toBeUndefined();
      expect(c.skipped).toBeUndefined();
    }

    const md = await admin.report('markdown');
    expect(md).toContain('✅ no contract violations');
    expect(md).toContain('### Expected violations (declared beforehand)');
    expect(md).toMatch(/\| #\d+ PATCH \/api\/v2\/documents\/101101 -> 400 \| body\/colour \| /);

    const ctrf = JSON.parse(await admin.report('ctrf')) as {
      results: { summary: { failed: number }; tests: Array<{ name: string; status: string }> };
    };
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(CTRF_SCHEMA, 'utf8')) as object);
    expect(validate(ctrf), JSON.stringify(validate.errors)).toBe(true);
    expect(ctrf.results.summary.failed).toBe(0);
    expect(
      ctrf.results.tests.filter((c) => c.name.includes('expected violation #') && c.status === 'passed'),
    ).toHaveLength(2);
  });

  it('undeclared: the per-test check throws and the gate fails with the violation a failing JUnit case', async () => {
    const { baseUrl } = await mock.session();
    const thrown = await runTest(baseUrl, false);
    expect(thrown).toBeInstanceOf(ContractViolationError);
    expect((thrown as Error).message).toContain('body/colour');
    const out = join(mkdtempSync(join(tmpdir(), 'fake-expected-')), 'junit.xml');
    const run = await reportCommand([
      '--url',
      baseUrl,
      '--format',
      'junit',
      '--out',
      out,
      '--fail-on',
      'violations',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('gate failed: --fail-on violations: 1 request broke the contract');
    const parsed = (await parseJunit(readFileSync(out, 'utf8'))) as TestSuites;
    expect(parsed.failures).toBe(1);
  });

  it('declared and never provoked: the per-test check throws naming it, and after a reset the gate still fails on it', async () => {
    const session = await mock.session();
    const admin = createAdminClient(session.baseUrl);
    const id = await admin.expectViolation({
      method: 'POST',
      path: '/api/v2/documents',
      location: 'body/0/templateUid',
    });
    const thrown = await admin.expectNoViolations().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(ContractViolationError);
    expect((thrown as ContractViolationError).unmetExpectations).toEqual([
      { id, method: 'POST', path: '/api/v2/documents', location: 'body/0/templateUid', times: 1, met: 0 },
    ]);
    expect((thrown as Error).message).toContain('expected a violation that never came: 1 declared violation');
    expect((thrown as Error).message).toContain(
      'POST /api/v2/documents at body/0/templateUid: met 0 of 1 times',
    );
    // The programmatic API and the test framework's matcher say the same.
    await expect(session.expectNoViolations()).rejects.toThrow(/expected a violation that never came/);
    const matched = await fakeMatchers.toHaveNoViolations(admin);
    expect(matched.pass).toBe(false);
    expect(matched.message()).toContain('POST /api/v2/documents at body/0/templateUid: met 0 of 1 times');
    // The next test's reset clears the declaration; the report keeps it as a failure.
    await admin.reset();
    expect(await admin.expectedViolations()).toEqual([]);
    await expect(admin.expectNoViolations()).resolves.toBeUndefined();
    const json = await reportCommand(['--url', session.baseUrl, '--format', 'json']);
    expect(json.code).toBe(1);
    expect(json.stderr).toContain(
      'gate failed: --fail-on violations: expected a violation that never came (1 declaration: POST /api/v2/documents at body/0/templateUid met 0 of 1)',
    );
    const report = JSON.parse(json.stdout) as Report;
    expect(report.summary.unmetExpectations).toBe(1);
    expect(report.unmetExpectations).toEqual([expect.objectContaining({ id, times: 1, met: 0 })]);
    const xml = await admin.report('junit');
    const parsed = (await parseJunit(xml)) as TestSuites;
    const suite = parsed.testsuite?.find((s) => s.name === 'expected violations');
    expect(suite?.testcase?.[0]?.name).toBe(
      'expected a violation that never came: POST /api/v2/documents at body/0/templateUid',
    );
    expect(suite?.testcase?.[0]?.failure).toHaveLength(1);
    expect(await admin.report('markdown')).toContain('### Expected violations that never came');
    // Withdrawn declarations are no failure; clearing the report forgets the old one.
    await admin.clearReport();
    const withdrawn = await admin.expectViolation();
    await admin.removeExpectedViolation(withdrawn);
    await admin.expectViolation({ times: 2 });
    await admin.clearExpectedViolations();
    await expect(admin.expectNoViolations()).resolves.toBeUndefined();
    expect((await reportCommand(['--url', session.baseUrl])).code).toBe(0);
  });
});

describe('declarations over the admin API', () => {
  it('match by method (any case), path prefix and location, `times` requests each, and list how often they were met', async () => {
    const session = await mock.session();
    const admin = createAdminClient(session.baseUrl);
    const token = await tokenAt(session.baseUrl);
    const created = await fetch(`${session.baseUrl}/__admin/expected-violations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'Patch', path: '/api/v2/*', location: 'body/colour', times: 2 }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // Another location: not matched.
    const other = await admin.expectViolation({ location: 'query.pageNum' });
    await sendBadPatch(session.baseUrl, token);
    expect(await admin.expectedViolations()).toEqual([
      { id, method: 'PATCH', path: '/api/v2/*', location: 'body/colour', times: 2, met: 1 },
      { id: other, location: 'query.pageNum', times: 1, met: 0 },
    ]);
    // Not met yet: listed with the violations.
    const listed = await fetch(`${session.baseUrl}/__admin/violations`).then((r) => r.json());
    expect(listed).toEqual({
      violations: [],
      unmetExpectations: [
        { id, method: 'PATCH', path: '/api/v2/*', location: 'body/colour', times: 2, met: 1 },
        { id: other, location: 'query.pageNum', times: 1, met: 0 },
      ],
    });
    await sendBadPatch(session.baseUrl, token);
    // A third one is past `times`: a violation again.
    await sendBadPatch(session.baseUrl, token);
    expect((await admin.violations()).map((v) => v.violations)).toEqual([
      [expect.objectContaining({ location: 'body/colour' })],
    ]);
    expect((await admin.violations())[0]?.violations[0]?.expected).toBeUndefined();
    await admin.removeExpectedViolation(other);
    const report = await admin.report();
    expect(report.summary).toMatchObject({
      violatingRequests: 1,
      expectedViolations: 2,
      unmetExpectations: 0,
    });
  });

  it('refuses a bad declaration with 400 naming the field, and an unknown id with 404', async () => {
    const session = await mock.session();
    const post = (body: unknown) =>
      fetch(`${session.baseUrl}/__admin/expected-violations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const [body, field] of [
      [{ times: 0 }, 'times'],
      [{ path: 'api/v2' }, 'path'],
      [{ colour: 'red' }, 'colour'],
      [{ method: 'GET POST' }, 'method'],
    ] as const) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(await res.json())).toContain(field);
    }
    const gone = await fetch(`${session.baseUrl}/__admin/expected-violations/nobody`, { method: 'DELETE' });
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { message: string }).message).toContain(
      'no expected violation with id "nobody"',
    );
    // The programmatic API checks the same way.
    expect(() => session.expectViolation({ times: 0 })).toThrow(/times/);
    expect(session.removeExpectedViolation('nobody')).toBe(false);
  });

  it('are per instance: the root and each session hold their own, and a reset or fixture load clears them', async () => {
    const a = await mock.session();
    const b = await mock.session();
    a.expectViolation({ location: 'body/colour' });
    expect(b.expectedViolations()).toEqual([]);
    expect(mock.expectedViolations()).toEqual([]);
    const token = await tokenAt(b.baseUrl);
    await sendBadPatch(b.baseUrl, token);
    expect((await b.violations()).length).toBe(1);
    expect(a.expectedViolations()[0]?.met).toBe(0);
    a.reset();
    expect(a.expectedViolations()).toEqual([]);
    mock.expectViolation({ path: '/x' });
    await mock.load(SMALL_SET);
    expect(mock.expectedViolations()).toEqual([]);
    mock.clearReport();
  });

  it('name their command in every language, as the shared table says', () => {
    const spec = loadSpec();
    const ops = new Map(
      listOperations(spec.document)
        .filter((op) => op.tags.includes(ADMIN_TAG))
        .map((op) => [op.operationId, op.raw]),
    );
    const names: Record<string, [string, string]> = {
      createExpectedViolation: ['Add-PassportalFakeExpectedViolation', 'expect_violation'],
      listExpectedViolations: ['Get-PassportalFakeExpectedViolation', 'expected_violations'],
      clearExpectedViolations: ['Clear-PassportalFakeExpectedViolation', 'clear_expected_violations'],
      deleteExpectedViolation: ['Remove-PassportalFakeExpectedViolation', 'remove_expected_violation'],
    };
    for (const [operationId, [powershell, python]] of Object.entries(names)) {
      const raw = ops.get(operationId) as Record<string, unknown> | undefined;
      expect(raw?.['x-powershell'], operationId).toEqual([powershell]);
      expect(raw?.['x-python'], operationId).toEqual([python]);
    }
  });
});
