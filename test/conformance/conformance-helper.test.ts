/**
 * The conformance hook itself: responses that break the spec fail the request, naming the
 * operation, the location and the rule; skipped responses are the documented ones.
 */
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec-document.js';
import {
  ConformanceError,
  createConformanceChecker,
  defaultConformanceChecker,
} from '../support/conformance.js';
import { createTestServer } from '../support/test-server.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

describe('the supertest hook (every response of the suite is checked)', () => {
  it('fails a request whose answer breaks the spec, naming operation, location and rule', async () => {
    // One server's domain answers a read with a string id and an unknown template: the handler
    // passes both on, and the hook fails the request. Handler tables are shared and never changed.
    const server = await createTestServer();
    const token = await server.token();
    const fake = server.mock.root.fake;
    const getDocument = fake.getDocument.bind(fake);
    fake.getDocument = (principal, id) => {
      const read = getDocument(principal, id);
      return { ...read, id: String(read.id) as never, templateUid: 'template 5001' };
    };
    const failure = await server.http
      .get('/api/v2/documents/101101')
      .set('x-access-token', token)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(ConformanceError);
    const message = (failure as Error).message;
    expect(message).toContain('operation getDocument');
    expect(message).toMatch(/response\.body\/id: .*must be integer \(type\)/);
    expect(message).toMatch(/response\.body\/templateUid: .*must match pattern .*\(pattern\)/);
  });

  it('fails a response whose domain data breaks the spec, deep inside the body', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const fake = server.mock.root.fake;
    const listDocuments = fake.listDocuments.bind(fake);
    fake.listDocuments = (principal, query) => {
      const page = listDocuments(principal, query);
      return { ...page, rows: page.rows.map((doc, i) => (i === 1 ? { ...doc, label: 42 as never } : doc)) };
    };
    await expect(server.http.get('/api/v2/documents').set('x-access-token', token)).rejects.toThrow(
      /operation listDocuments[\s\S]*response\.body\/results\/1\/label: .*must be string \(type\)/,
    );
  });

  it('reports through end() callbacks and agents too', async () => {
    const server = await createTestServer();
    const viaEnd = await new Promise<unknown>((resolve) => {
      supertest(server.mock.app)
        .get('/__admin/health')
        .end((error) => resolve(error));
    });
    expect(viaEnd).toBeNull();
    const broken = await createTestServer();
    const fake = broken.mock.root.fake;
    const listDocuments = fake.listDocuments.bind(fake);
    fake.listDocuments = (principal, query) => {
      const page = listDocuments(principal, query);
      return {
        ...page,
        rows: page.rows.map((doc) => ({ ...doc, id: 'one' as never, label: null as never })),
      };
    };
    const token = await broken.token();
    const agent = supertest.agent(broken.mock.app);
    const error = await new Promise<unknown>((resolve) => {
      agent
        .get('/api/v2/documents')
        .set('x-access-token', token)
        .end((e) => resolve(e));
    });
    expect(error).toBeInstanceOf(ConformanceError);
    expect((error as ConformanceError).violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ location: 'response.body/results/0/id' }),
        expect.objectContaining({ location: 'response.body/results/0/label' }),
      ]),
    );
  });

  it('passes conforming answers, errors and unknown routes alike', async () => {
    const server = await createTestServer();
    await server.http.get('/api/v2/documents').expect(401);
    await server.http.get('/no/such/route').expect(404);
    await server.http.delete('/api/v2/documents/101101').expect(405);
    await server.http.get('/openapi.json').expect(200);
  });
});

describe('the checker', () => {
  it('matches method + path, after a /sessions/{id} prefix', async () => {
    const checker = await defaultConformanceChecker();
    const ok = { success: true, apiRequestUid: 'u', results: [] };
    const bad = { success: true, results: [{}] };
    for (const url of ['/api/v2/documents?pageNum=2', '/sessions/abc123/api/v2/documents']) {
      expect(
        checker.check({ method: 'GET', url, status: 200, headers: JSON_HEADERS, body: ok }),
      ).toMatchObject({ operationId: 'listDocuments', violations: [] });
      const result = checker.check({ method: 'GET', url, status: 200, headers: JSON_HEADERS, body: bad });
      expect(result.violations.map((v) => v.location)).toContain('response.body/results/0/id');
    }
    expect(
      checker.check({
        method: 'DELETE',
        url: 'http://127.0.0.1:1/sessions/s1/__admin/sessions/s2',
        status: 200,
        headers: JSON_HEADERS,
        body: { success: true },
      }),
    ).toMatchObject({ operationId: 'deleteSession', violations: [] });
  });

  it('skips the spec document, injected faults, preflights and HEAD', async () => {
    const checker = await defaultConformanceChecker();
    const garbage = { method: 'GET', status: 200, headers: JSON_HEADERS, body: { nonsense: true } };
    expect(checker.check({ ...garbage, url: '/openapi.yaml' }).skipped).toBeDefined();
    expect(
      checker.check({
        ...garbage,
        url: '/api/v2/documents',
        status: 500,
        headers: { ...JSON_HEADERS, 'x-fake-fault': 'f1' },
      }).skipped,
    ).toBe('an injected fault');
    expect(checker.check({ ...garbage, method: 'OPTIONS', url: '/api/v2/documents' }).skipped).toBeDefined();
    expect(checker.check({ ...garbage, url: '/api/v2/documents' }).violations.length).toBeGreaterThan(0);
  });

  it('fails a status the operation does not declare, and a wrong media type', async () => {
    const document = structuredClone(loadSpec().document) as OpenApiDocument;
    const op = document.paths['/__admin/health']?.get as { responses: Record<string, unknown> };
    delete op.responses.default;
    const checker = await createConformanceChecker(document);
    const result = checker.check({
      method: 'GET',
      url: '/__admin/health',
      status: 503,
      headers: JSON_HEADERS,
      body: { status: 'down' },
    });
    expect(result.violations).toEqual([
      expect.objectContaining({ location: 'response.status', message: expect.stringContaining('200') }),
    ]);
    const html = checker.check({
      method: 'GET',
      url: '/__admin/health',
      status: 200,
      headers: { 'content-type': 'text/html' },
      body: '<p>ok</p>',
    });
    expect(html.violations.map((v) => v.location)).toContain('response.header.content-type');
  });

  it('requires the vendor error shape from requests that match no operation', async () => {
    const checker = await defaultConformanceChecker();
    const result = checker.check({
      method: 'GET',
      url: '/nowhere',
      status: 200,
      headers: JSON_HEADERS,
      body: { error: 'nope' },
    });
    const locations = result.violations.map((v) => v.location);
    expect(result.operationId).toBeUndefined();
    expect(locations).toContain('response.status');
    expect(locations).toContain('response.body');
  });
});
