import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME_KEY, createTestServer, type TestServer } from '../support/test-server.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('pages for people: landing page, docs, inspector', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer();
  });
  afterAll(async () => server.mock.close());

  it('shows a browser a landing page naming the fake, its version, fixtures, keys and links', async () => {
    const res = await server.http.get('/').set('accept', HTML);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toContain('Passportal Documents API fake');
    expect(res.text).toMatch(/v\d+\.\d+\.\d+/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.text).toContain('small-set.json');
    expect(res.text).toContain(ACME_KEY.keyId);
    expect(res.text).toContain(ACME_KEY.secret);
    for (const link of ['href="docs"', 'href="__admin/ui"', 'href="openapi.yaml"'])
      expect(res.text).toContain(link);
  });

  it('answers other clients at / with a JSON summary that is not an error', async () => {
    const res = await server.http.get('/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Passportal Documents API fake',
      documents: expect.any(Number),
      links: { docs: '/docs', inspector: '/__admin/ui', openapi: '/openapi.yaml' },
    });
    expect(res.body.apiKeys).toBeUndefined();
  });

  it('journals none of the pages, their assets or the icon', async () => {
    await server.mock.clearRequests();
    await server.http.get('/').set('accept', HTML);
    await server.http.get('/favicon.ico');
    await server.http.get('/docs');
    await server.http.get('/docs/swagger-ui/swagger-ui.css');
    await server.http.get('/__admin/ui');
    await server.http.get('/__admin/ui/assets/inspector.js');
    expect(await server.mock.requests()).toEqual([]);
    expect(await server.mock.violations()).toEqual([]);
  });

  it('serves the docs page with Swagger UI from the package', async () => {
    const page = await server.http.get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('docs/swagger-ui/swagger-ui-bundle.js');
    const bundle = await server.http.get('/docs/swagger-ui/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toContain('javascript');
    expect((await server.http.get('/docs/assets/docs.js')).status).toBe(200);
  });

  it('serves the inspector at the root and per session, without the admin token', async () => {
    const root = await server.http.get('/__admin/ui');
    expect(root.status).toBe(200);
    expect(root.text).toContain('ui/assets/inspector.js');
    // Never framed by another site's page: it drives the admin API.
    expect(root.headers['x-frame-options']).toBe('DENY');
    expect(root.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const session = await server.mock.session();
    try {
      const page = await server.http.get(`/sessions/${session.id}/__admin/ui`);
      expect(page.status).toBe(200);
      const script = await server.http.get(`/sessions/${session.id}/__admin/ui/assets/inspector.js`);
      expect(script.status).toBe(200);
    } finally {
      session.delete();
    }
  });

  it('sends a browser opening /__admin or /__admin/journal to the inspector', async () => {
    for (const path of ['/__admin', '/__admin/journal']) {
      const res = await server.http.get(path).set('accept', HTML);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('/__admin/ui');
    }
    // A client that is not a browser keeps the API's answer.
    expect((await server.http.get('/__admin')).status).toBe(404);
  });

  it('shows the YAML spec to a browser as text and keeps application/yaml for others', async () => {
    expect((await server.http.get('/openapi.yaml').set('accept', HTML)).headers['content-type']).toContain(
      'text/plain',
    );
    expect((await server.http.get('/openapi.yaml')).headers['content-type']).toContain('application/yaml');
  });

  it('answers a missing asset, a path out of the folder and a wrong method in the vendor error shape', async () => {
    for (const path of [
      '/__admin/ui/assets/missing.js',
      '/__admin/ui/assets/..%2F..%2Fpackage.json',
      '/__admin/ui/.hidden',
      '/docs/swagger-ui/../../package.json',
      '/docs/assets/nothing.js',
      '/docs/swagger-ui/index.html',
      '/docs/swagger-ui/swagger-initializer.js',
    ]) {
      const res = await server.http.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toMatchObject({ success: false, status: 404, code: 0 });
    }
    const post = await server.http.post('/__admin/ui').send({});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(post.body).toMatchObject({ success: false, status: 405 });
  });
});

describe('pages with an admin token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer({ adminToken: 'letmein' });
  });
  afterAll(async () => server.mock.close());

  it('serves the inspector’s files without the token and keeps the data behind it', async () => {
    expect((await server.http.get('/__admin/ui')).status).toBe(200);
    expect((await server.http.get('/__admin/ui/assets/inspector.js')).status).toBe(200);
    expect((await server.http.get('/__admin/state')).status).toBe(401);
    expect((await server.http.get('/__admin/state').set('authorization', 'Bearer letmein')).status).toBe(200);
  });
});
