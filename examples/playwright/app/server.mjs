// A tiny app under test: a page that lists and renames documents, and a Node backend that calls
// the Passportal Documents API (here the fake) with a key whose secret never reaches the browser.
// Three backends, one per path prefix, to show how the test's session travels:
//   /otel/...    propagates W3C baggage with OpenTelemetry's API and its W3C propagator
//   /manual/...  copies the incoming `baggage` header onto its own requests by hand
//   /broken/...  like /otel, but its rename breaks the contract (a detail key the template lacks)
// Environment: PORT, FAKE_URL (the fake's root URL), FAKE_KEY_ID and FAKE_SECRET.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { W3CBaggagePropagator } from '@opentelemetry/core';

propagation.setGlobalPropagator(new W3CBaggagePropagator());

const { PORT = '3000', FAKE_URL, FAKE_KEY_ID, FAKE_SECRET } = process.env;
if (!FAKE_URL || !FAKE_KEY_ID || !FAKE_SECRET) {
  console.error('set FAKE_URL, FAKE_KEY_ID and FAKE_SECRET');
  process.exit(2);
}

/** The headers that carry the incoming request's baggage on to the API, per backend. */
const carriers = {
  otel: (incoming) => {
    const carrier = {};
    propagation.inject(propagation.extract(ROOT_CONTEXT, incoming), carrier);
    return carrier;
  },
  manual: (incoming) => (incoming.baggage ? { baggage: incoming.baggage } : {}),
};
carriers.broken = carriers.otel;

/** A token per session (tokens are issued by the session the baggage reaches). */
const tokens = new Map();
async function tokenFor(carried) {
  const key = carried.baggage ?? '';
  const known = tokens.get(key);
  if (known) return known;
  const content = randomUUID();
  const res = await fetch(`${FAKE_URL}/api/v2/auth/client_token`, {
    method: 'POST',
    headers: {
      ...carried,
      'content-type': 'application/json',
      'x-key': FAKE_KEY_ID,
      'x-hash': createHmac('sha256', FAKE_SECRET).update(content).digest('hex'),
    },
    body: JSON.stringify({ scope: 'docs_api', content }),
  });
  if (!res.ok) throw new Error(`token call answered ${res.status}`);
  const token = (await res.json()).access_token;
  tokens.set(key, token);
  return token;
}

async function api(carried, method, path, body) {
  const res = await fetch(`${FAKE_URL}${path}`, {
    method,
    headers: {
      ...carried,
      'x-access-token': await tokenFor(carried),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Documents</title></head>
<body>
<h1>Documents</h1>
<ul id="documents"></ul>
<form id="rename"><label>Document <select id="doc"></select></label>
<label>Title <input id="title" required></label><button>Rename</button></form>
<p id="status" role="status"></p>
<script type="module">
const backend = new URLSearchParams(location.search).get('backend') ?? 'otel';
const list = document.getElementById('documents');
const select = document.getElementById('doc');
async function load() {
  const res = await fetch('/' + backend + '/documents');
  const docs = await res.json();
  list.replaceChildren(...docs.map((d) => Object.assign(document.createElement('li'), { textContent: d.label, id: 'doc-' + d.id })));
  select.replaceChildren(...docs.map((d) => Object.assign(document.createElement('option'), { value: d.id + ':' + d.templateUid, textContent: d.label })));
  document.getElementById('status').textContent = docs.length + ' documents';
}
document.getElementById('rename').addEventListener('submit', async (event) => {
  event.preventDefault();
  const [id, templateUid] = select.value.split(':');
  const res = await fetch('/' + backend + '/documents/' + id, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ templateUid, title: document.getElementById('title').value }),
  });
  document.getElementById('status').textContent = res.ok ? 'Saved.' : 'Not saved (' + res.status + ')';
  if (res.ok) await load();
});
load();
</script>
</body></html>`;

function send(res, status, body, type = 'application/json') {
  res.writeHead(status, { 'content-type': type });
  res.end(type === 'application/json' ? JSON.stringify(body) : body);
}

async function readJson(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text || '{}');
}

createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://app');
    if (url.pathname === '/') return send(res, 200, PAGE, 'text/html; charset=utf-8');
    const [, backend, resource, id] = url.pathname.split('/');
    const carry = carriers[backend];
    if (!carry || resource !== 'documents') return send(res, 404, { error: 'not found' });
    const carried = carry(req.headers);
    if (req.method === 'GET' && id === undefined) {
      const answer = await api(carried, 'GET', '/api/v2/documents?pageNum=1&resultsPerPage=10&orderBy=id');
      const rows = answer.body.results ?? [];
      return send(
        res,
        200,
        rows.map((d) => ({ id: d.id, label: d.label, templateUid: `tpl-${d.templateId}` })),
      );
    }
    if (req.method === 'PATCH' && id !== undefined) {
      const { templateUid, title } = await readJson(req);
      const item = { id: Number(id), templateUid, title };
      // The broken backend sends a detail entry under a key no template has.
      if (backend === 'broken')
        item.details = {
          colourOfTheDoor: { name: 'Colour', description: '', value: { type: 'string', text: title } },
        };
      const answer = await api(carried, 'PATCH', '/api/v2/documents', [item]);
      return send(res, answer.status === 200 ? 200 : 502, answer.body);
    }
    return send(res, 405, { error: 'method not allowed' });
  } catch (error) {
    send(res, 500, { error: String(error) });
  }
}).listen(Number(PORT), '127.0.0.1', () => console.log(`app on http://127.0.0.1:${PORT}`));
