// A client pinned to the vendor's host, as a migration tool or an integration's provider is: it
// builds https://us-clover.passportalmsp.com itself and cannot be given another base URL. In
// Compose the fake answers to that name (a network alias) on port 443, and this process trusts
// the fake's CA through NODE_EXTRA_CA_CERTS: TLS verification stays on. Exit status 0 on success.
//   NODE_EXTRA_CA_CERTS=/tmp/passportal-ca.pem SUITE_FIXTURES=/suite-fixtures node vendor-host-client.mjs
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';

const region = process.env.PASSPORTAL_REGION ?? 'us-clover';
const base = `https://${region}.passportalmsp.com`;
const fixtures = process.env.SUITE_FIXTURES ?? '/suite-fixtures';
const key = JSON.parse(readFileSync(`${fixtures}/apiKeys.json`, 'utf8')).find((k) => k.organizationId === 1);

const content = randomUUID();
const tokenRes = await fetch(`${base}/api/v2/auth/client_token`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'x-key': key.keyId,
    'x-hash': createHmac('sha256', key.secret).update(content).digest('hex'),
  },
  body: JSON.stringify({ scope: 'docs_api', content }),
});
if (!tokenRes.ok) throw new Error(`token: ${tokenRes.status} ${await tokenRes.text()}`);
const { access_token: token } = await tokenRes.json();
const listRes = await fetch(`${base}/api/v2/documents?resultsPerPage=5`, {
  headers: { 'x-access-token': token },
});
if (!listRes.ok) throw new Error(`list: ${listRes.status} ${await listRes.text()}`);
const { results } = await listRes.json();
console.log(`vendor host ${base} answered over verified TLS: ${results.length} documents`);
