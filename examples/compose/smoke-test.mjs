// Placeholder test run for examples/docker-compose.yml: what a suite does against the fake, in
// plain Node (no dependencies). Exit status 0 when every step passes.
//   PASSPORTAL_BASE_URL=http://127.0.0.1:4010 SUITE_FIXTURES=examples/fixtures/suite node examples/compose/smoke-test.mjs
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

const fake = (process.env.PASSPORTAL_BASE_URL ?? 'http://127.0.0.1:4010').replace(/\/$/, '');
const fixtures = process.env.SUITE_FIXTURES ?? '/suite-fixtures';
const key = JSON.parse(readFileSync(`${fixtures}/apiKeys.json`, 'utf8')).find((k) => k.organizationId === 1);

async function call(method, url, { headers = {}, body } = {}) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// 1. a session of our own: its own state, journal and clock, addressed by its base URL
const session = await call('POST', `${fake}/__admin/sessions`);
console.log(`session ${session.id} at ${session.baseUrl}`);
try {
  // 2. the client under test would do this: token, then list
  const content = randomUUID();
  const hash = createHmac('sha256', key.secret).update(content).digest('hex');
  const token = await call('POST', `${session.baseUrl}/api/v2/auth/client_token`, {
    headers: { 'x-key': key.keyId, 'x-hash': hash },
    body: { scope: 'docs_api', content },
  });
  const list = await call('GET', `${session.baseUrl}/api/v2/documents?orderBy=label&orderDir=asc`, {
    headers: { 'x-access-token': token.access_token },
  });
  console.log(`listed ${list.results.length} documents: ${list.results.map((d) => d.label).join(', ')}`);
  if (list.results.length === 0) throw new Error('no documents: are the suite fixtures mounted?');

  // 3. did the client keep to the contract?
  const { violations } = await call('GET', `${session.baseUrl}/__admin/violations`);
  if (violations.length > 0) throw new Error(`contract violations: ${JSON.stringify(violations, null, 2)}`);
  console.log('no contract violations');

  // 4. the reports a CI job keeps (docs/reports.md): JUnit XML for the test view, Markdown for a
  // summary, written to REPORTS_DIR (a volume), the verdict line printed.
  const reports = process.env.REPORTS_DIR;
  const text = async (format) => {
    const res = await fetch(`${session.baseUrl}/__admin/report?format=${format}`);
    if (!res.ok) throw new Error(`report ${format}: ${res.status}`);
    return res.text();
  };
  const markdown = await text('markdown');
  if (reports) {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    mkdirSync(reports, { recursive: true });
    writeFileSync(`${reports}/passportal-junit.xml`, await text('junit'));
    writeFileSync(`${reports}/passportal-report.md`, markdown);
    console.log(`reports written to ${reports}`);
  }
  console.log(`report: ${markdown.split('\n')[2]}`);
} finally {
  await call('DELETE', `${fake}/__admin/sessions/${session.id}`);
}
