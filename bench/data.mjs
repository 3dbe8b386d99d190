/**
 * The benchmark's data, built from the fake's own modules in dist/ so every server sees the same
 * documents: one organization (the default set's organization 1 with its clients and all 19
 * templates) holding N documents generated deterministically (json-schema-faker pools, seeded).
 *
 * - `<dir>/fixtures-<N>.json`: a single-file fixture set for the fake (`--fixtures`), no apiKeys,
 *   so organization 1 gets its deterministic default key (`defaultApiKey(1)`).
 * - `<dir>/json-server-db.json`: `{documents: [...]}` for json-server, one row per document with
 *   exactly the fields the fake returns in a list row (`toSummary`), in id order.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Catalog } from '../dist/domain/catalog.js';
import { generateDocuments } from '../dist/domain/fixtures/generate-documents.js';
import { loadFixtureSource } from '../dist/domain/fixtures/load-fixtures.js';
import { toSummary } from '../dist/domain/list-query.js';
import { computeHash, defaultApiKey } from '../dist/index.js';

export const ORGANIZATION_ID = 1;

/** The default set cut down to one organization, without documents. */
async function baseSet() {
  const { dataset } = await loadFixtureSource(undefined);
  return {
    organizations: dataset.organizations.filter((o) => o.id === ORGANIZATION_ID),
    clients: dataset.clients.filter((c) => c.organizationId === ORGANIZATION_ID),
    templates: dataset.templates,
    documents: [],
    apiKeys: [],
  };
}

/**
 * Writes the fixture files for each size (documents of a smaller size are a prefix of a larger
 * one's: same seed, same sequence) and the json-server database for `jsonServerSize`.
 */
export async function writeBenchData({ dir, sizes, jsonServerSize, seed }) {
  const base = await baseSet();
  const largest = Math.max(...sizes);
  const documents = generateDocuments(base, largest, seed);
  const files = {};
  for (const size of sizes) {
    const set = {
      organizations: base.organizations,
      clients: base.clients,
      templates: base.templates,
      documents: documents.slice(0, size),
    };
    const path = join(dir, `fixtures-${size}.json`);
    await writeFile(path, JSON.stringify(set));
    files[size] = path;
  }
  const catalog = new Catalog({ ...base, apiKeys: [] });
  const rows = documents.slice(0, jsonServerSize).map((doc) => toSummary(doc, catalog));
  const jsonServerDb = join(dir, 'json-server-db.json');
  await writeFile(jsonServerDb, JSON.stringify({ documents: rows }));
  // A document near the middle of the id range, for the read benchmark.
  const readId = documents[Math.floor(jsonServerSize / 2)].id;
  return { files, jsonServerDb, readId, templates: base.templates };
}

/** The key of the benchmark organization and the headers of a token request. */
export function tokenRequest() {
  const key = defaultApiKey(ORGANIZATION_ID);
  const content = 'passportal-docs-fake bench';
  return {
    headers: {
      'x-key': key.keyId,
      'x-hash': computeHash(key.secret, content),
      'content-type': 'application/json',
    },
    body: JSON.stringify({ scope: 'docs_api', content }),
  };
}
