import { describe, expect, it } from 'vitest';
import { createTestServer, issueToken, type TestServer } from '../support/test-server.js';

/** Fault and latency injection: POST/GET/DELETE /__admin/faults and the latencyMs setting. */

async function addFault(server: TestServer, fault: object, prefix = ''): Promise<string> {
  const res = await server.http.post(`${prefix}/__admin/faults`).send(fault);
  expect(res.status).toBe(201);
  expect(res.body.id).toEqual(expect.any(String));
  return res.body.id;
}

describe('a fault with status and body', () => {
  it('answers matching requests directly with them, and the journal shows it', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const body = { success: false, message: 'down for maintenance', code: 0, status: 503 };
    const id = await addFault(server, { method: 'GET', path: '/api/v2/documents', status: 503, body });

    const res = await server.http.get('/api/v2/documents').set('x-access-token', token);
    expect(res.status).toBe(503);
    expect(res.body).toEqual(body);
    expect(res.headers['x-fake-fault']).toBe(id);
    const other = await server.http.get('/api/v2/documents/101101').set('x-access-token', token);
    expect(other.status).toBe(200);

    const [entry] = (await server.http.get('/__admin/requests?status=503')).body.requests;
    expect(entry).toMatchObject({
      path: '/api/v2/documents',
      status: 503,
      fault: id,
      response: body,
      violations: [],
    });
  });

  it('without body answers the vendor error shape for that status', async () => {
    const server = await createTestServer();
    await addFault(server, { status: 500 });
    const res = await server.http.get('/api/v2/documents');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false, status: 500, code: 0, message: expect.any(String) });
    expect(res.body.apiRequestUid).toBe(res.headers['x-request-id']);
  });

  it('without body honours errorSuccess as every other error does', async () => {
    const server = await createTestServer({ errorSuccess: 'string' });
    await addFault(server, { status: 503 });
    const res = await server.http.get('/api/v2/documents');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: 'false',
      message: 'Service Unavailable (injected fault)',
      code: 0,
      status: 503,
      apiRequestUid: res.headers['x-request-id'],
    });
    // The same setting, changed at run time, applies to the next fault.
    await server.http.put('/__admin/settings').send({ errorSuccess: 'boolean' }).expect(200);
    await addFault(server, { status: 502 });
    expect((await server.http.get('/api/v2/documents')).body.success).toBe(false);
  });
});

describe('matching', () => {
  it('times: 1 fires exactly once, even for concurrent requests, and is then removed', async () => {
    const server = await createTestServer();
    const token = await server.token();
    await addFault(server, { path: '/api/v2/documents', status: 500, times: 1 });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => server.http.get('/api/v2/documents').set('x-access-token', token)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 500]);
    expect((await server.http.get('/__admin/faults')).body.faults).toEqual([]);
  });

  it('times: 2 fires twice; the listing counts what is left', async () => {
    const server = await createTestServer();
    const id = await addFault(server, { path: '/api/v2/auth/client_token', status: 502, times: 2 });
    expect((await server.http.post('/api/v2/auth/client_token')).status).toBe(502);
    expect((await server.http.get('/__admin/faults')).body.faults).toEqual([
      { id, path: '/api/v2/auth/client_token', status: 502, times: 1, hits: 1 },
    ]);
    expect((await server.http.post('/api/v2/auth/client_token')).status).toBe(502);
    expect((await server.http.post('/api/v2/auth/client_token')).status).not.toBe(502);
  });

  it('a path ending in * matches as a prefix; the method is case-insensitive', async () => {
    const server = await createTestServer();
    const token = await server.token();
    await addFault(server, { method: 'get', path: '/api/v2/documents*', status: 418 });
    expect((await server.http.get('/api/v2/documents').set('x-access-token', token)).status).toBe(418);
    expect((await server.http.get('/api/v2/documents/101101').set('x-access-token', token)).status).toBe(418);
    const patch = await server.http.patch('/api/v2/documents/101101').set('x-access-token', token).send({});
    expect(patch.status).not.toBe(418);
    expect((await server.http.post('/api/v2/auth/client_token')).status).not.toBe(418);
  });

  it('matches the path relative to the instance, so the same fault works inside a session', async () => {
    const server = await createTestServer();
    const created = await server.http.post('/__admin/sessions').send({});
    const prefix = `/sessions/${created.body.id}`;
    const token = await issueToken(server.http, prefix);
    await addFault(server, { path: '/api/v2/documents*', status: 503 }, prefix);
    expect((await server.http.get(`${prefix}/api/v2/documents`).set('x-access-token', token)).status).toBe(
      503,
    );
    const rootToken = await server.token();
    expect((await server.http.get('/api/v2/documents').set('x-access-token', rootToken)).status).toBe(200);
  });

  it('never applies to /__admin, even a fault matching everything', async () => {
    const server = await createTestServer();
    await addFault(server, { status: 500 });
    await addFault(server, { path: '/__admin*', status: 500 });
    expect((await server.http.get('/__admin/health')).status).toBe(200);
    expect((await server.http.get('/__admin/state')).status).toBe(200);
    expect((await server.http.get('/__admin/faults')).body.faults).toHaveLength(2);
  });
});

describe('delay and drop', () => {
  it('delayMs waits, then the request goes on as usual', async () => {
    const server = await createTestServer();
    const token = await server.token();
    await addFault(server, { path: '/api/v2/documents', delayMs: 150 });
    const started = Date.now();
    const res = await server.http.get('/api/v2/documents').set('x-access-token', token);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(4);
  });

  it('delayMs with status waits, then answers the status', async () => {
    const server = await createTestServer();
    await addFault(server, { delayMs: 100, status: 504 });
    const started = Date.now();
    const res = await server.http.get('/api/v2/documents');
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(res.status).toBe(504);
  });

  it('drop closes the connection without a response, and the journal says so', async () => {
    const server = await createTestServer();
    const url = await server.mock.listen(0, '127.0.0.1');
    try {
      await addFault(server, { path: '/api/v2/documents', drop: true, times: 1 });
      await expect(fetch(`${url}/api/v2/documents`)).rejects.toThrow();
      const next = await fetch(`${url}/api/v2/documents`);
      expect(next.status).toBe(401);
      const [dropped] = await server.mock.requests();
      expect(dropped).toMatchObject({ path: '/api/v2/documents', dropped: true });
      expect(dropped?.status).toBeUndefined();
    } finally {
      await server.mock.close();
    }
  });
});

describe('listing and removing', () => {
  it('GET lists, DELETE /{id} removes one, DELETE removes all', async () => {
    const server = await createTestServer();
    const a = await addFault(server, { path: '/api/v2/documents', status: 500 });
    const b = await addFault(server, { method: 'POST', delayMs: 10 });
    expect((await server.http.get('/__admin/faults')).body.faults).toEqual([
      { id: a, path: '/api/v2/documents', status: 500, hits: 0 },
      { id: b, method: 'POST', delayMs: 10, hits: 0 },
    ]);
    expect((await server.http.delete(`/__admin/faults/${a}`)).body).toEqual({ success: true });
    expect((await server.http.get('/api/v2/documents')).status).toBe(401);
    const missing = await server.http.delete(`/__admin/faults/${a}`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain(a);
    await server.http.delete('/__admin/faults').expect(200);
    expect((await server.http.get('/__admin/faults')).body.faults).toEqual([]);
  });

  it.each([
    ['nothing to do', {}, 'body'],
    ['body without status', { body: { x: 1 } }, 'body/body'],
    ['drop with status', { drop: true, status: 500 }, 'body/drop'],
    ['a relative path', { path: 'api/v2/documents', status: 500 }, 'body/path'],
    ['* in the middle', { path: '/api/*/documents', status: 500 }, 'body/path'],
    ['a status out of range', { status: 99 }, 'body/status'],
    ['a negative delay', { delayMs: -5 }, 'body/delayMs'],
    ['zero times', { status: 500, times: 0 }, 'body/times'],
    ['an odd method', { method: 'GE T', status: 500 }, 'body/method'],
    [
      'a body nested too deeply to send',
      `{"status":500,"body":${'['.repeat(20_000)}${']'.repeat(20_000)}}`,
      'body/body',
    ],
  ])('rejects %s with 400 naming the field, adding nothing', async (_name, fault, location) => {
    const server = await createTestServer();
    // A string is sent as raw JSON text (the deep one would overflow the client's serialiser).
    const res = await server.http.post('/__admin/faults').set('content-type', 'application/json').send(fault);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, status: 400 });
    expect(JSON.stringify(res.body.errors)).toContain(location);
    expect((await server.http.get('/__admin/faults')).body.faults).toEqual([]);
  });
});

describe('latency (settings.latencyMs)', () => {
  it('delays every API request of the instance, not the admin API', async () => {
    const server = await createTestServer();
    await server.http.put('/__admin/settings').send({ latencyMs: 120 }).expect(200);
    const started = Date.now();
    const res = await server.http.get('/api/v2/documents');
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    expect(res.status).toBe(401);
    // A session keeps its own settings: no latency there.
    const created = await server.http.post('/__admin/sessions').send({});
    expect((await server.http.get(`/sessions/${created.body.id}/__admin/settings`)).body.latencyMs).toBe(0);
  });
});
