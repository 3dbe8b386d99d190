import { describe, expect, it } from 'vitest';
import { createTestServer } from '../support/test-server.js';

describe('two createMockServer instances in one process', () => {
  it('share no state, tokens or settings', async () => {
    const a = await createTestServer();
    const b = await createTestServer();
    const tokenA = await a.token();
    const patch = {
      name: { name: 'Name', description: '', value: { type: 'string', text: 'Renamed in A' } },
    };
    const written = await a.http.patch('/api/v2/documents/101101').set('x-access-token', tokenA).send(patch);
    expect(written.status).toBe(200);

    const tokenB = await b.token();
    const readB = await b.http.get('/api/v2/documents/101101').set('x-access-token', tokenB);
    expect(readB.body.details.name.value.text).toBe('Dundee Office');
    const readA = await a.http.get('/api/v2/documents/101101').set('x-access-token', tokenA);
    expect(readA.body.details.name.value.text).toBe('Renamed in A');

    const crossed = await b.http.get('/api/v2/documents/101101').set('x-access-token', tokenA);
    expect(crossed.status).toBe(401);

    a.mock.root.fake.settings.successLiterals = 'boolean';
    expect(b.mock.root.fake.settings.successLiterals).toBe('contract');
  });

  it('listen on port 0 gives distinct URLs and close() stops them', async () => {
    const a = await createTestServer();
    const b = await createTestServer();
    const urlA = await a.mock.listen(0, '127.0.0.1');
    const urlB = await b.mock.listen(0, '127.0.0.1');
    expect(urlA).not.toBe(urlB);
    expect((await fetch(`${urlA}/__admin/health`)).status).toBe(200);
    await a.mock.close();
    await expect(fetch(`${urlA}/__admin/health`)).rejects.toThrow();
    expect((await fetch(`${urlB}/__admin/health`)).status).toBe(200);
    await b.mock.close();
  });
});
