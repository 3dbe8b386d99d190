/**
 * Configurable limits, each answered with a clear 4xx in the vendor's error shape: body size
 * (413), header block (431), query length (414) and batch length (400). The session cap (429) is
 * covered with the sessions.
 */
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTION_SET, type Options } from '../../src/config.js';
import { resolveOptions } from '../../src/options/resolve.js';
import { checkFetchResponse } from '../support/conformance.js';
import { spawnCli, waitForListening } from '../support/run-cli.js';
import { createTestServer, SMALL_SET, type TestServer } from '../support/test-server.js';

const entry = (text: string) => ({ name: 'Name', description: '', value: { type: 'string', text } });
const item = (title: string) => ({ templateUid: 'tpl-5001', id: 101101, title });

function expectVendorError(body: unknown, status: number, message: RegExp) {
  expect(body).toMatchObject({ success: false, code: 0, status, apiRequestUid: expect.any(String) });
  expect((body as { message: string }).message).toMatch(message);
}

/** Sends one request with raw headers (fetch would refuse some) and reads the answer. */
function rawGet(url: string, path: string, headers: Record<string, string>, method = 'GET') {
  return new Promise<{ status: number; headers: Record<string, string>; text: string }>((resolve, reject) => {
    const target = new URL(url);
    const req = request({ host: target.hostname, port: target.port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, text }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('limits set through options', () => {
  let server: TestServer;
  let token: string;
  let url: string;
  const limits: Partial<Options> = {
    bodyLimit: 2048,
    maxQueryLength: 64,
    maxHeaderSize: 2048,
    maxBatchItems: 3,
  };

  beforeAll(async () => {
    server = await createTestServer(limits);
    token = await server.token();
    url = await server.mock.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server.mock.close();
  });

  it('a body over bodyLimit is 413; one just under it is read', async () => {
    const big = { name: entry('x'.repeat(2100)) };
    const over = await server.http.patch('/api/v2/documents/101101').set('x-access-token', token).send(big);
    expect(over.status).toBe(413);
    expectVendorError(over.body, 413, /too large/);

    const under = { name: entry('x'.repeat(1800)) };
    expect(Buffer.byteLength(JSON.stringify(under))).toBeLessThan(2048);
    const ok = await server.http.patch('/api/v2/documents/101101').set('x-access-token', token).send(under);
    expect(ok.status).toBe(200);
  });

  it('the limit applies to the inflated body, so a small gzip bomb is 413 too', async () => {
    const bomb = gzipSync(Buffer.from(JSON.stringify({ name: entry(' '.repeat(1_000_000)) })));
    expect(bomb.length).toBeLessThan(2048);
    const send = (body: Buffer) =>
      fetch(`${url}/api/v2/documents/101101`, {
        method: 'PATCH',
        headers: { 'x-access-token': token, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body,
      });
    const res = await send(bomb);
    expect(res.status).toBe(413);
    expectVendorError(
      await checkFetchResponse('PATCH', `${url}/api/v2/documents/101101`, res),
      413,
      /too large/,
    );
    // A gzip body within the limit is inflated and read.
    const ok = await send(gzipSync(Buffer.from(JSON.stringify({ name: entry('zipped') }))));
    expect(ok.status).toBe(200);
    await checkFetchResponse('PATCH', `${url}/api/v2/documents/101101`, ok);
  });

  it('a form-encoded token body over the limit is 413 as well', async () => {
    const res = await server.http
      .post('/api/v2/auth/client_token')
      .set('x-key', 'k')
      .set('x-hash', 'h')
      .type('form')
      .send(`scope=docs_api&content=${'a'.repeat(3000)}`);
    expect(res.status).toBe(413);
    expectVendorError(res.body, 413, /too large/);
  });

  it('a query string over maxQueryLength is 414, naming the limit; one at the limit is read', async () => {
    const atLimit = `searchTxt=${'a'.repeat(64 - 'searchTxt='.length)}`;
    const ok = await server.http.get(`/api/v2/documents?${atLimit}`).set('x-access-token', token);
    expect(ok.status).toBe(200);
    const over = await server.http.get(`/api/v2/documents?${atLimit}a`).set('x-access-token', token);
    expect(over.status).toBe(414);
    expectVendorError(over.body, 414, /64/);
    // Unknown routes and admin calls are bounded too.
    expect((await server.http.get(`/nowhere?${atLimit}a`)).status).toBe(414);
    expect((await server.http.get(`/__admin/requests?${atLimit}a`)).status).toBe(414);
  });

  it('a header block over maxHeaderSize is 431 in the vendor shape', async () => {
    const res = await rawGet(url, '/api/v2/documents', {
      'x-access-token': token,
      'x-padding': 'p'.repeat(3000),
    });
    expect(res.status).toBe(431);
    const body = await checkFetchResponse(
      'GET',
      `${url}/api/v2/documents`,
      new Response(res.text, {
        status: res.status,
        headers: { 'content-type': res.headers['content-type'] ?? '' },
      }),
    );
    expectVendorError(body, 431, /headers too large/);
    // A HEAD request gets the status without a body, so the client can parse the answer.
    const head = await rawGet(url, '/api/v2/documents', { 'x-padding': 'p'.repeat(3000) }, 'HEAD');
    expect(head.status).toBe(431);
    expect(head.text).toBe('');
    // The server is still there for well-behaved clients.
    const next = await rawGet(url, '/__admin/health', {});
    expect(next.status).toBe(200);
  });

  it('a batch over maxBatchItems is 400 naming the limit, and changes nothing', async () => {
    const before = JSON.stringify(server.mock.root.fake.snapshot());
    for (const method of ['put', 'patch'] as const) {
      const res = await server.http[method]('/api/v2/documents')
        .set('x-access-token', token)
        .send([item('a'), item('b'), item('c'), item('d')]);
      expect(res.status).toBe(400);
      expectVendorError(res.body, 400, /4 items; at most 3/);
    }
    expect(JSON.stringify(server.mock.root.fake.snapshot())).toBe(before);
    const ok = await server.http
      .patch('/api/v2/documents')
      .set('x-access-token', token)
      .send([item('a'), item('b'), item('c')]);
    expect(ok.status).toBe(200);
  });

  it('maxBatchItems can be changed at run time through the settings', async () => {
    const set = await server.http.put('/__admin/settings').send({ maxBatchItems: 1 });
    expect(set.status).toBe(200);
    const res = await server.http
      .patch('/api/v2/documents')
      .set('x-access-token', token)
      .send([item('a'), item('b')]);
    expect(res.status).toBe(400);
    expectVendorError(res.body, 400, /2 items; at most 1/);
    await server.http.put('/__admin/settings').send({ maxBatchItems: 3 });
  });
});

describe('limit defaults', () => {
  it('are the documented ones', () => {
    expect(resolveOptions(OPTION_SET, {})).toMatchObject({
      bodyLimit: 1_048_576,
      maxQueryLength: 8192,
      maxHeaderSize: 16_384,
      maxBatchItems: 1000,
      maxSessions: 100,
    });
  });

  it('a 1 MB body and a 16 KB header block are refused by default', async () => {
    const server = await createTestServer();
    const token = await server.token();
    const url = await server.mock.listen(0, '127.0.0.1');
    try {
      const big = await server.http
        .patch('/api/v2/documents/101101')
        .set('x-access-token', token)
        .send({ name: entry('x'.repeat(1_048_576)) });
      expect(big.status).toBe(413);
      const headers = await rawGet(url, '/api/v2/documents', { 'x-padding': 'p'.repeat(17_000) });
      expect(headers.status).toBe(431);
      const query = await server.http.get(`/api/v2/documents?searchTxt=${'a'.repeat(8200)}`);
      expect(query.status).toBe(414);
    } finally {
      await server.mock.close();
    }
  });
});

describe('limits set on the command line', () => {
  it('--body-limit, --max-query-length, --max-header-size and --max-batch-items reach the server', async () => {
    const child = spawnCli([
      '--port',
      '0',
      '--fixtures',
      SMALL_SET,
      '--body-limit',
      '100',
      '--max-query-length',
      '16',
      '--max-header-size',
      '1024',
      '--max-batch-items',
      '1',
    ]);
    try {
      const url = await waitForListening(child);
      const body = await fetch(`${url}/api/v2/documents`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([item('x'.repeat(200))]),
      });
      expect(body.status).toBe(413);
      await checkFetchResponse('PATCH', `${url}/api/v2/documents`, body);
      const query = await fetch(`${url}/api/v2/documents?searchTxt=aaaaaaaaaaaaaaaaaaa`);
      expect(query.status).toBe(414);
      await checkFetchResponse('GET', `${url}/api/v2/documents`, query);
      const headers = await rawGet(url, '/api/v2/documents', { 'x-padding': 'p'.repeat(1500) });
      expect(headers.status).toBe(431);
      const settings = await fetch(`${url}/__admin/settings`);
      expect(await checkFetchResponse('GET', `${url}/__admin/settings`, settings)).toMatchObject({
        maxBatchItems: 1,
      });
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
