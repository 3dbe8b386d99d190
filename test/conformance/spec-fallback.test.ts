/**
 * Operations in the spec without a stateful handler are answered by prism-http's mocker, after
 * the usual request validation. The test serves a copy of the spec with two extra operations.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadSpec } from '../../src/contract/spec-document.js';
import { createTestServer, type TestServer } from '../support/test-server.js';

const dir = mkdtempSync(join(tmpdir(), 'fake-fallback-'));
const specPath = join(dir, 'openapi.yaml');

/** The vendor's "add documents" call, which the fake has no handler for, and one without examples. */
function extendedSpec(): object {
  const document = structuredClone(loadSpec().document);
  const errors = {
    '400': { $ref: '#/components/responses/BadRequest' },
    '401': { $ref: '#/components/responses/InvalidToken' },
    default: { $ref: '#/components/responses/OtherError' },
  };
  (document.paths['/api/v2/documents'] as Record<string, unknown>).post = {
    tags: ['documents'],
    operationId: 'addDocuments',
    summary: 'Add documents',
    security: [{ accessToken: [] }, { apiToken: [] }],
    requestBody: { $ref: '#/components/requestBodies/Batch' },
    responses: {
      '200': {
        description: 'The documents were added.',
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/PatchResult' },
            example: { success: 'true' },
          },
        },
      },
      ...errors,
    },
  };
  document.paths['/api/v2/folders/{folderId}'] = {
    get: {
      tags: ['documents'],
      operationId: 'getFolder',
      security: [{ accessToken: [] }, { apiToken: [] }],
      parameters: [{ name: 'folderId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      responses: {
        '200': {
          description: 'A folder (no example: generated from the schema).',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['success', 'folder'],
                properties: {
                  success: { type: 'boolean', const: true },
                  folder: {
                    type: 'object',
                    required: ['id', 'name', 'tags'],
                    properties: {
                      id: { type: 'integer', minimum: 1 },
                      name: { type: 'string', minLength: 1 },
                      tags: { type: 'array', items: { type: 'string' } },
                    },
                  },
                },
              },
            },
          },
        },
        ...errors,
      },
    },
  };
  // An admin power someone described but did not build: the spec's example must not stand in for it.
  document.paths['/__admin/widgets'] = {
    get: {
      tags: ['admin'],
      operationId: 'listWidgets',
      security: [{}, { adminBearer: [] }],
      responses: {
        '200': {
          description: 'Widgets.',
          content: { 'application/json': { schema: { type: 'object' }, example: { widgets: [] } } },
        },
        default: { $ref: '#/components/responses/OtherError' },
      },
    },
  };
  return document;
}

const BATCH_ITEM = { templateUid: 'tpl-5001', title: 'Perth Office' };

describe('the spec fallback (prism-http mocker)', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    writeFileSync(specPath, stringify(extendedSpec()));
    server = await createTestServer({ specPath });
    token = await server.token();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("answers an operation without a handler from the response's example", async () => {
    const before = JSON.stringify(server.mock.root.fake.snapshot());
    const res = await server.http.post('/api/v2/documents').set('x-access-token', token).send([BATCH_ITEM]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 'true' });
    expect(res.headers['x-fake-fallback']).toBe('prism');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    // A mocked answer changes nothing.
    expect(JSON.stringify(server.mock.root.fake.snapshot())).toBe(before);
  });

  it('generates the body from the schema when the response has no example', async () => {
    const res = await server.http.get('/api/v2/folders/7').set('x-api-token', token);
    expect(res.status).toBe(200);
    expect(res.headers['x-fake-fallback']).toBe('prism');
    expect(res.body).toMatchObject({
      success: true,
      folder: { id: expect.any(Number), name: expect.any(String), tags: expect.any(Array) },
    });
  });

  it('still validates the request and the token first, in the vendor error shape', async () => {
    const noToken = await server.http.post('/api/v2/documents').send([BATCH_ITEM]);
    expect(noToken.status).toBe(401);
    expect(noToken.body).toMatchObject({ success: false, code: 1006 });
    expect(noToken.headers['x-fake-fallback']).toBeUndefined();

    const badBody = await server.http
      .post('/api/v2/documents')
      .set('x-access-token', token)
      .send([{ title: 42 }]);
    expect(badBody.status).toBe(400);
    expect(badBody.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ location: 'body/0/templateUid' })]),
    );
    expect(badBody.headers['x-fake-fallback']).toBeUndefined();

    const badPath = await server.http.get('/api/v2/folders/zero').set('x-api-token', token);
    expect(badPath.status).toBe(400);
    expect(badPath.headers['x-fake-fallback']).toBeUndefined();
  });

  it('answers JSON whatever Accept asks for', async () => {
    const res = await server.http
      .post('/api/v2/documents')
      .set('x-access-token', token)
      .set('accept', 'text/html')
      .send(BATCH_ITEM);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 'true' });
  });

  it('never answers an admin operation: without a handler it is a 404 in the vendor shape', async () => {
    const res = await server.http.get('/__admin/widgets');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 0, status: 404 });
    expect(res.body.message).toContain('listWidgets');
    expect(res.body).not.toHaveProperty('widgets');
    expect(res.headers['x-fake-fallback']).toBeUndefined();
  });

  it('leaves operations with a handler to their handler', async () => {
    const res = await server.http.get('/api/v2/documents').set('x-access-token', token);
    expect(res.status).toBe(200);
    expect(res.headers['x-fake-fallback']).toBeUndefined();
    expect(res.body.results.length).toBeGreaterThan(0);
  });
});

describe('start-up cost', () => {
  it('a server starts and answers without loading prism-http', () => {
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const { createMockServer } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/index.ts', import.meta.url)))});
      const mock = await createMockServer({ logLevel: 'silent' });
      const url = await mock.listen(0, '127.0.0.1');
      const health = await fetch(url + '/__admin/health');
      await mock.close();
      const loaded = Object.keys(require.cache).filter((k) => k.includes('prism-'));
      console.log(JSON.stringify({ status: health.status, loaded }));
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}')).toEqual({ status: 200, loaded: [] });
  });
});
