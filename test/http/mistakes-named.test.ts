import { describe, expect, it } from 'vitest';
import { computeHash } from '../../src/domain/tokens.js';
import { ACME_KEY, createTestServer } from '../support/test-server.js';

/**
 * The mistakes a newcomer makes in the first hour, each answered in the vendor's error shape
 * with what to do instead: a JSON token body sent as curl sends it by default, the token behind
 * a `Bearer ` prefix, a route misspelt, a details entry missing its `value`.
 */

describe('a JSON token body sent without content-type: application/json', () => {
  it('answers 400 naming the header to send, not "scope is required"', async () => {
    const server = await createTestServer();
    // What `curl -d '{"scope": ...}'` sends: JSON text, declared form-encoded.
    const res = await server.http
      .post('/api/v2/auth/client_token')
      .set('content-type', 'application/x-www-form-urlencoded')
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', computeHash(ACME_KEY.secret, 'c'))
      .send(JSON.stringify({ scope: 'docs_api', content: 'c' }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 0, status: 400 });
    expect(res.body.message).toContain('content-type: application/json');
    expect(res.body.message).not.toContain('scope');
    expect(res.body.errors).toEqual([
      { location: 'header.content-type', message: 'must be application/json for a JSON body' },
    ]);
    // The same text with the header works, and a real form still does.
    expect(
      (
        await server.http
          .post('/api/v2/auth/client_token')
          .set('content-type', 'application/json')
          .set('x-key', ACME_KEY.keyId)
          .set('x-hash', computeHash(ACME_KEY.secret, 'c'))
          .send(JSON.stringify({ scope: 'docs_api', content: 'c' }))
      ).status,
    ).toBe(200);
    const form = await server.http
      .post('/api/v2/auth/client_token')
      .type('form')
      .set('x-key', ACME_KEY.keyId)
      .set('x-hash', computeHash(ACME_KEY.secret, 'c'))
      .send({ scope: 'docs_api', content: 'c' });
    expect(form.status).toBe(200);
  });
});

describe('x-access-token: Bearer <token>', () => {
  it('answers 401 saying to send the token without the prefix, and journals a violation', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const res = await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', `Bearer ${token}`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 1006, status: 401 });
    expect(res.body.message).toContain('without the "Bearer " prefix');
    expect(res.body.errors).toEqual([
      { location: 'header.x-access-token', message: 'must be the access token alone, without "Bearer "' },
    ]);
    const [violation] = await server.mock.violations();
    expect(violation?.violations[0]?.location).toBe('header.x-access-token');
    // The token itself works once the prefix is gone.
    expect((await server.http.get('/api/v2/documents?pageNum=1').set('x-access-token', token)).status).toBe(
      200,
    );
  });
});

describe('an unknown route', () => {
  it.each([
    ['get', '/api/v2/document', 'GET /api/v2/documents'],
    ['post', '/api/v2/auth/token', 'POST /api/v2/auth/client_token'],
    ['get', '/api/v2/document/101101', 'GET /api/v2/documents/{documentId}'],
    ['get', '/__admin/violation', 'GET /__admin/violations'],
  ])('%s %s answers 404 naming the nearest route, %s', async (method, path, nearest) => {
    const server = await createTestServer();
    const res = await server.http[method as 'get' | 'post'](path).set('x-access-token', await server.token());
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 0, status: 404 });
    expect(res.body.message).toBe(
      `Route not found: ${method.toUpperCase()} ${path}; the nearest route is ${nearest}`,
    );
  });

  it("points an older client's /api path at the vendor's routes only, never the admin API's", async () => {
    const server = await createTestServer();
    const res = await server.http.get('/api/requests/5').set('x-access-token', await server.token());
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/^Route not found: GET \/api\/requests\/5/);
    expect(res.body.message).not.toContain('/__admin');
  });

  it('names no route when none is near', async () => {
    const server = await createTestServer();
    const res = await server.http.get('/wp-login.php');
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Route not found: GET /wp-login.php');
  });
});

describe('a PATCH details entry with name and description but no value', () => {
  it('is a violation naming value, not a read shape stored as sent', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const res = await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send({ city: { name: 'City', description: '' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        location: 'body/city/value',
        message:
          'is required: send {"name": "...", "description": "...", "value": {"type": "string", "text": "..."}}',
      },
    ]);
    const [entry] = await server.mock.violations();
    expect(entry?.violations[0]?.location).toBe('body/city/value');
    // Nothing was stored.
    const read = await server.http.get('/api/v2/documents/101101').set('x-access-token', token);
    expect(read.body.details.city).toBeNull();
  });

  it('names a value that is not {type, text} too', async () => {
    const server = await createTestServer();
    const res = await server.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', await server.token())
      .send({ city: { name: 'City', description: '', value: { text: 'Perth' } } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        location: 'body/city/value',
        message: 'must be an object {"type": "...", "text": "..."} of two strings',
      },
    ]);
  });
});
