// A client pinned to the vendor's host with Node's fetch API (undici's), the base URL unchanged
// and TLS verification on. The proxy comes from HTTPS_PROXY through undici's EnvHttpProxyAgent,
// the CA from NODE_EXTRA_CA_CERTS: nothing in the code names the fake.
// Gets a token, lists, reads and patches one document, reads it back; prints what it saw as JSON.
import { createHmac, randomUUID } from 'node:crypto';
import { EnvHttpProxyAgent, fetch, setGlobalDispatcher } from 'undici';

setGlobalDispatcher(new EnvHttpProxyAgent());
const { BASE_URL: base, KEY_ID, KEY_SECRET, DOCUMENT_ID, MARK } = process.env;

const content = randomUUID();
const tokenRes = await fetch(`${base}/api/v2/auth/client_token`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'x-key': KEY_ID,
    'x-hash': createHmac('sha256', KEY_SECRET).update(content).digest('hex'),
  },
  body: JSON.stringify({ scope: 'docs_api', content }),
});
const headers = { 'x-access-token': (await tokenRes.json()).access_token };
const listed = await fetch(`${base}/api/v2/documents?resultsPerPage=5`, { headers });
const read = await fetch(`${base}/api/v2/documents/${DOCUMENT_ID}`, { headers });
const patched = await fetch(`${base}/api/v2/documents/${DOCUMENT_ID}`, {
  method: 'PATCH',
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify({
    address_1: { name: 'Address 1', description: '', value: { type: 'string', text: MARK } },
  }),
});
const after = await fetch(`${base}/api/v2/documents/${DOCUMENT_ID}`, { headers });
process.stdout.write(
  JSON.stringify({
    token: tokenRes.status,
    list: [listed.status, (await listed.json()).results.length],
    read: [read.status, (await read.json()).templateUid],
    patch: [patched.status, await patched.json()],
    after: (await after.json()).details.address_1.value.text,
  }),
);
