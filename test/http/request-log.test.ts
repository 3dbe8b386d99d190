import { Writable } from 'node:stream';
import { pino } from 'pino';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { createMockServer } from '../../src/index.js';
import { SMALL_SET } from '../support/test-server.js';

/** The structured request log: one line per request. */

function capture(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level }, stream) };
}

describe('the request log', () => {
  it('writes one line per request with method, url, status, duration and session id', async () => {
    const { lines, logger } = capture();
    const mock = await createMockServer({ fixtures: SMALL_SET, logger });
    const http = supertest(mock.app);
    await http.get('/api/v2/documents?pageNum=2');
    const created = await http.post('/__admin/sessions').send({});
    await http.get(`/sessions/${created.body.id}/api/v2/documents`);

    // The suite's conformance check fetches /openapi.json through the same app: leave it out.
    const requests = lines.filter(
      (l) => l.req !== undefined && !String((l.req as { url: string }).url).startsWith('/openapi'),
    );
    expect(requests).toHaveLength(3);
    expect(requests[0]).toMatchObject({
      level: 30,
      req: { method: 'GET', url: '/api/v2/documents?pageNum=2', id: expect.any(String) },
      res: { statusCode: 401 },
      responseTime: expect.any(Number),
      session: null,
    });
    expect(requests[1]).toMatchObject({
      req: { method: 'POST', url: '/__admin/sessions' },
      res: { statusCode: 201 },
    });
    expect(requests[2]).toMatchObject({
      req: { url: `/sessions/${created.body.id}/api/v2/documents` },
      res: { statusCode: 401 },
      session: created.body.id,
    });
    // The request id in the log is the one the client sees.
    const res = await http.get('/api/v2/documents');
    expect(lines.at(-1)?.req).toMatchObject({ id: res.headers['x-request-id'] });
  });

  it('logs health checks at debug only, and nothing below the configured level', async () => {
    const { lines, logger } = capture('warn');
    const mock = await createMockServer({ fixtures: SMALL_SET, logger });
    const http = supertest(mock.app);
    await http.get('/api/v2/documents');
    await http.get('/__admin/health');
    expect(lines.filter((l) => l.req !== undefined)).toEqual([]);

    const debug = capture('debug');
    const verbose = await createMockServer({ fixtures: SMALL_SET, logger: debug.logger });
    await supertest(verbose.app).get('/__admin/health');
    const health = debug.lines.find(
      (l) => (l.req as { url?: string } | undefined)?.url === '/__admin/health',
    );
    expect(health).toMatchObject({ level: 20, res: { statusCode: 200 } });
  });

  it("logs the inspector's live-journal polling at debug, the same read without the mark at info", async () => {
    const { lines, logger } = capture('debug');
    const mock = await createMockServer({ fixtures: SMALL_SET, logger });
    const http = supertest(mock.app);
    await http.get('/__admin/requests?limit=50').set('x-fake-inspector', 'poll').expect(200);
    await http.get('/__admin/requests?limit=20').expect(200);
    const level = (url: string) =>
      lines.find((l) => (l.req as { url?: string } | undefined)?.url === url)?.level;
    expect(level('/__admin/requests?limit=50')).toBe(20);
    expect(level('/__admin/requests?limit=20')).toBe(30);
  });
});
