// Saves the fake's CA certificate (GET /__admin/tls/ca.pem, public: never the key) to a file, for
// a client that is then started trusting it (NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, ...).
//   PASSPORTAL_BASE_URL=http://passportal:4010 node fetch-ca.mjs /tmp/passportal-ca.pem
import { writeFileSync } from 'node:fs';

const fake = (process.env.PASSPORTAL_BASE_URL ?? 'http://127.0.0.1:4010').replace(/\/$/, '');
const target = process.argv[2] ?? 'passportal-ca.pem';
const res = await fetch(`${fake}/__admin/tls/ca.pem`);
if (!res.ok) throw new Error(`GET ${fake}/__admin/tls/ca.pem: ${res.status} ${await res.text()}`);
writeFileSync(target, await res.text());
console.log(`CA certificate saved to ${target}`);
