// A client pinned to the vendor's host with axios, the base URL unchanged and TLS verification on.
// axios takes its proxy from the `https_proxy` variable (recent versions tunnel HTTPS with
// CONNECT; older ones sent absolute-form requests, `GET https://us-clover.passportalmsp.com/...`,
// which the fake serves too), the CA from NODE_EXTRA_CA_CERTS. Nothing in the code names the fake.
// Gets a token, lists, reads and patches one document, reads it back; prints what it saw as JSON.
import { createHmac, randomUUID } from 'node:crypto';
import axios from 'axios';

const { BASE_URL: base, KEY_ID, KEY_SECRET, DOCUMENT_ID, MARK } = process.env;
const api = axios.create({ baseURL: base, validateStatus: () => true });

const content = randomUUID();
const tokenRes = await api.post(
  '/api/v2/auth/client_token',
  { scope: 'docs_api', content },
  { headers: { 'x-key': KEY_ID, 'x-hash': createHmac('sha256', KEY_SECRET).update(content).digest('hex') } },
);
const headers = { 'x-access-token': tokenRes.data.access_token };
const listed = await api.get('/api/v2/documents', { params: { resultsPerPage: 5 }, headers });
const read = await api.get(`/api/v2/documents/${DOCUMENT_ID}`, { headers });
const entry = { name: 'Address 1', description: '', value: { type: 'string', text: MARK } };
const patched = await api.patch(`/api/v2/documents/${DOCUMENT_ID}`, { address_1: entry }, { headers });
const after = await api.get(`/api/v2/documents/${DOCUMENT_ID}`, { headers });
process.stdout.write(
  JSON.stringify({
    token: tokenRes.status,
    list: [listed.status, listed.data.results.length],
    read: [read.status, read.data.templateUid],
    patch: [patched.status, patched.data],
    after: after.data.details.address_1.value.text,
  }),
);
