import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runReportCommand } from '../../src/commands/report.js';
import { createTestServer, type TestServer, textEntry } from '../support/test-server.js';

/**
 * What the fake says reads as plain words: a bad document id says what an id is (no regular
 * expression), a mistyped detail key gets the key meant, counts agree with their nouns, and the
 * report says that requests a reset cleared from the journal still count.
 */

let t: TestServer;
let token: string;
beforeAll(async () => {
  t = await createTestServer();
  token = await t.token();
});
afterAll(() => t.mock.close());

describe('messages in plain words', () => {
  it('a bad document id says what an id is, without a regular expression', async () => {
    const res = await t.http.get('/api/v2/documents/abc').set('x-access-token', token);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('invalid id');
    expect(res.body.errors).toEqual([
      {
        location: 'path.documentId',
        message: 'needs to be a document id, a positive whole number of up to 16 digits (such as 101101)',
      },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/\^|\[0-9\]|\{0,/);
  });

  it('a mistyped detail key (adress_1) gets "did you mean address_1"', async () => {
    const res = await t.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send({ adress_1: textEntry('Address 1', '2 Riverside Dr') });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('unknown detail keys "adress_1"');
    expect(res.body.message).toContain('did you mean "address_1"?');
    expect(res.body.errors[0]).toEqual({
      location: 'body/adress_1',
      message:
        'unknown detail key "adress_1": not a field of the template and not stored on the document; did you mean "address_1"?',
    });
    // A key like no field gets no guess.
    const far = await t.http
      .patch('/api/v2/documents/101101')
      .set('x-access-token', token)
      .send({ colour: textEntry('Colour', 'red') });
    expect(far.body.message).not.toContain('did you mean');
  });

  it('the report command counts in the singular for one request, and says cleared requests still count', async () => {
    await t.mock.clearReport();
    t.mock.reset();
    await t.http.get('/api/v2/documents?pageNum=0').set('x-access-token', token);
    t.mock.reset();
    const url = await t.mock.listen(0, '127.0.0.1');
    let stderr = '';
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr += String(chunk);
      return true;
    });
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await runReportCommand(['--url', url, '--format', 'markdown'], {})).toBe(1);
    } finally {
      err.mockRestore();
      out.mockRestore();
    }
    expect(stderr).toContain('1 violating request, ');
    expect(stderr).toContain('--fail-on violations: 1 request broke the contract');
    const markdown = await t.mock.report('markdown');
    expect(markdown).toContain('❌ 1 request broke the contract');
    expect(markdown).toContain(
      'though the journal (cleared by resets, bounded in size) no longer shows 1 of them',
    );
    expect(markdown).not.toContain('no longer holds');
  });
});
