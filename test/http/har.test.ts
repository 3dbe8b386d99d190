import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import draft6 from 'ajv/dist/refs/json-schema-draft-06.json' with { type: 'json' };
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '../../src/client/admin-client.js';
import { runReportCommand } from '../../src/commands/report.js';
import { computeHash } from '../../src/domain/tokens.js';
import type { Har, MockServer, MockSession } from '../../src/index.js';
import { runCaptured } from '../support/in-process-command.js';
import { accessToken } from '../support/request-token.js';
import { ACME_KEY, createTestServer, OTHER_KEY, textEntry } from '../support/test-server.js';

/**
 * `GET /__admin/har` (docs/frontend.md): the journal as HAR 1.2, valid against the HAR 1.2 JSON
 * schema (har-schema, the schemas har-validator checks with) whatever a client sent, with no
 * key ID, secret, token, hash or admin token in it, each entry's findings in `_passportal`, its
 * timing from the journal and its bodies as kept. The same archive from the admin API, the typed
 * client, the control and `report --format har`.
 */

/** The HAR 1.2 schemas, one per object of the format (CommonJS JSON, no types of its own). */
const harSchemas = createRequire(import.meta.url)('har-schema') as Record<string, object>;

const ADMIN_TOKEN = 'admin-token-of-the-operator';

/** A validator of HAR 1.2, from the har-schema package's draft-06 schemas. */
function harValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addMetaSchema(draft6);
  addFormats.default(ajv);
  for (const schema of Object.values(harSchemas)) ajv.addSchema(schema);
  const validate = ajv.getSchema('har.json#');
  if (validate === undefined) throw new Error('har-schema has no har.json');
  return (value: unknown) =>
    validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
const harErrors = harValidator();

/** Texts a hostile client sends where it can: headers, query, path, bodies, detail keys. */
const HOSTILE = [
  'a]]>b<script>alert(1)</script>',
  'ctl\u0001\u001b\ufffe end',
  'line\r\nbreak',
  '\u00e9\u4e2d\ud83d\ude00 "quotes" \\ back',
  '{"log":{"version":"9"}}',
];

let mock: MockServer;
let session: MockSession;
let base: string;
let token: string;
let hash: string;

beforeAll(async () => {
  const t = await createTestServer({ adminToken: ADMIN_TOKEN, journalBodyBytes: 4096 });
  mock = t.mock;
  base = await mock.listen(0, '127.0.0.1');
  session = await mock.session();
  const content = 'c';
  hash = computeHash(ACME_KEY.secret, content);
  token = await accessToken(session.baseUrl, ACME_KEY);
  await fetch(`${session.baseUrl}/api/v2/documents?pageNum=1&resultsPerPage=2`, {
    headers: { 'x-access-token': token },
  });
  // A notice: pageNum left out.
  await fetch(`${session.baseUrl}/api/v2/documents?resultsPerPage=1`, {
    headers: { 'x-access-token': token },
  });
  for (const text of HOSTILE) {
    // Violations: unknown detail keys of a client's text; its text in a header and the query.
    await fetch(`${session.baseUrl}/api/v2/documents/101101?q=${encodeURIComponent(text)}`, {
      method: 'PATCH',
      headers: {
        'x-access-token': token,
        'content-type': 'application/json',
        'x-client-note': encodeURIComponent(text),
      },
      body: JSON.stringify({ [text]: textEntry('Hostile', text) }),
    });
  }
  // The client leaks every credential where it should not: in the query, a header, a body.
  await fetch(
    `${session.baseUrl}/api/v2/documents/101101?secret=${ACME_KEY.secret}&key=${ACME_KEY.keyId}&t=${token}`,
    {
      method: 'PATCH',
      headers: {
        'x-access-token': token,
        'content-type': 'application/json',
        'x-debug': `${ACME_KEY.secret} ${hash} Bearer ${ADMIN_TOKEN}`,
        authorization: `Bearer ${ADMIN_TOKEN}`,
      },
      body: JSON.stringify({
        Notes: textEntry('Notes', `${ACME_KEY.secret} ${OTHER_KEY.secret} ${ADMIN_TOKEN}`),
      }),
    },
  );
  // A body longer than the journal keeps.
  await fetch(`${session.baseUrl}/api/v2/documents/101101`, {
    method: 'PATCH',
    headers: { 'x-access-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ Notes: textEntry('Notes', 'n'.repeat(5000)) }),
  });
});
afterAll(async () => {
  await mock.close();
});

const admin = () => ({ authorization: `Bearer ${ADMIN_TOKEN}` });

async function harAt(url: string): Promise<{ har: Har; text: string }> {
  const res = await fetch(`${url}/__admin/har`, { headers: admin() });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await res.text();
  return { har: JSON.parse(text) as Har, text };
}

describe('GET /__admin/har', () => {
  it('is HAR 1.2 by its JSON schema, for hostile client text too', async () => {
    const { har } = await harAt(session.baseUrl);
    expect(harErrors(har)).toEqual([]);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator.name).toBe('passportal-docs-fake');
    const patches = har.log.entries.filter((e) => e.request.method === 'PATCH');
    expect(patches.length).toBe(HOSTILE.length + 2);
    // The client's texts reach the archive intact (they are no secrets).
    for (const text of HOSTILE) {
      const entry = patches.find((e) => e.request.queryString.some((q) => q.value === text));
      expect(entry, text).toBeDefined();
      expect(JSON.parse(entry?.request.postData?.text ?? '{}')).toHaveProperty([text]);
    }
  });

  it('has no key ID, secret, token, hash or admin token anywhere', async () => {
    const { har, text } = await harAt(session.baseUrl);
    const lower = text.toLowerCase();
    for (const secret of [ACME_KEY.keyId, ACME_KEY.secret, OTHER_KEY.secret, token, hash, ADMIN_TOKEN]) {
      expect(lower.includes(secret.toLowerCase()), `${secret} in the HAR`).toBe(false);
    }
    const leak = har.log.entries.find((e) => e.request.headers.some((h) => h.name === 'x-debug'));
    expect(leak?.request.headers.find((h) => h.name === 'x-access-token')?.value).toBe('(redacted)');
    expect(leak?.request.headers.find((h) => h.name === 'authorization')?.value).toBe('(redacted)');
    expect(leak?.request.headers.find((h) => h.name === 'x-debug')?.value).toBe(
      '(redacted) (redacted) Bearer (redacted)',
    );
    // The token call's answer keeps its shape, without the tokens.
    const tokenCall = har.log.entries.find((e) => e.request.url.endsWith('/api/v2/auth/client_token'));
    const answer = JSON.parse(tokenCall?.response.content.text ?? '{}');
    expect(answer.access_token).toBe('(redacted)');
    expect(answer.expiry_time).toBeTypeOf('number');
  });

  it('gives each entry its URL, timing, bodies as kept and findings (_passportal)', async () => {
    const { har } = await harAt(session.baseUrl);
    const journal = await session.requests();
    expect(har.log.entries.map((e) => e._passportal.requestId)).toEqual(journal.map((e) => e.id));
    for (const [i, entry] of har.log.entries.entries()) {
      const journaled = journal[i];
      expect(entry.time).toBe(journaled?.durationMs);
      expect(entry.timings.wait).toBe(journaled?.durationMs);
      expect(entry.startedDateTime).toBe(journaled?.time);
      expect(entry.response.status).toBe(journaled?.status);
      expect(entry._passportal.violations.length).toBe(journaled?.violations.length);
      expect(entry._passportal.notices.map((n) => n.code)).toEqual(journaled?.notices.map((n) => n.code));
      expect(entry.request.url.startsWith(`${session.baseUrl}/api/v2/`)).toBe(true);
    }
    const list = har.log.entries.find((e) => e.request.url.endsWith('resultsPerPage=2'));
    expect(list?.response.content.mimeType).toMatch(/^application\/json/);
    expect(JSON.parse(list?.response.content.text ?? '{}').results).toHaveLength(2);
    const noticed = har.log.entries.find((e) => e.request.url.endsWith('?resultsPerPage=1'));
    expect(noticed?._passportal.notices.map((n) => n.code)).toContain('pageNumOmitted');
    const violating = har.log.entries.filter((e) => e._passportal.violations.length > 0);
    expect(violating.length).toBeGreaterThanOrEqual(HOSTILE.length);
    expect(violating[0]?._passportal.operationId).toBe('patchDocument');
    // Longer than journalBodyBytes: the start of its text, flagged with its size.
    const long = har.log.entries.at(-1);
    expect(long?._passportal.requestBodyTruncated?.bytes).toBeGreaterThan(5000);
    expect(long?.request.bodySize).toBe(long?._passportal.requestBodyTruncated?.bytes);
    expect(long?.request.postData?.text.startsWith('{"Notes":')).toBe(true);
  });

  it('is the instance\u2019s own: the root\u2019s holds none of the session\u2019s requests', async () => {
    const { har } = await harAt(base);
    expect(harErrors(har)).toEqual([]);
    expect(har.log.entries).toEqual([]);
  });

  it('is the same archive from the control, the typed client and `report --format har`', async () => {
    const fromControl = await session.har();
    const fromClient = await createAdminClient(session.baseUrl, { adminToken: ADMIN_TOKEN }).har();
    expect(fromClient).toEqual(JSON.parse(JSON.stringify(fromControl)));
    const out = join(mkdtempSync(join(tmpdir(), 'har-')), 'session.har');
    const run = await runCaptured(() =>
      runReportCommand(['--url', session.baseUrl, '--format', 'har', '--out', out, '--fail-on', 'none'], {
        ADMIN_TOKEN,
      }),
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(fromClient);
    const refused = await runCaptured(() =>
      runReportCommand(['--url', base, '--format', 'har', '--run', 'ci'], { ADMIN_TOKEN }),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--format har with --run');
  });

  it('needs the admin token like every admin call', async () => {
    expect((await fetch(`${session.baseUrl}/__admin/har`)).status).toBe(401);
  });
});
