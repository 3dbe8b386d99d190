// Build step: parse spec/openapi.yaml once and store it as JSON beside the compiled code
// (dist/openapi.cache.json), keyed by the SHA-256 of the YAML text. See src/contract/spec-document.ts.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const yaml = readFileSync(new URL('../spec/openapi.yaml', import.meta.url), 'utf8');
const sha256 = createHash('sha256').update(yaml, 'utf8').digest('hex');
writeFileSync(
  new URL('../dist/openapi.cache.json', import.meta.url),
  JSON.stringify({ sha256, document: parse(yaml) }),
);
