import { readFileSync } from 'node:fs';
import { DEFAULT_OPTIONS, pickSettings } from '../../src/config.js';
import type { Fake } from '../../src/domain/fake.js';
import { buildDataset } from '../../src/domain/fixtures/load-fixtures.js';
import { computeHash } from '../../src/domain/tokens.js';
import { createInstance, type Instance } from '../../src/harness/instance/instance.js';
import { StateFile, type StateFileOptions } from '../../src/harness/persistence/state-file.js';
import { ACME_KEY, SMALL_SET, textEntry } from './test-server.js';

/** The small fixture set as a dataset, for state files driven without HTTP. */
export const SMALL_DATASET = buildDataset(JSON.parse(readFileSync(SMALL_SET, 'utf8')), SMALL_SET);

export const ACME = { organizationId: ACME_KEY.organizationId, keyId: ACME_KEY.keyId };

/** A root-like instance over the small set with default settings. */
export function newInstance(): Instance {
  return createInstance(undefined, SMALL_DATASET, DEFAULT_OPTIONS, pickSettings(DEFAULT_OPTIONS));
}

/** A state file opened on a new instance (restored from `path` when it exists). */
export function openState(
  path: string,
  options: StateFileOptions = {},
): { file: StateFile; fake: Fake; restored: boolean } {
  const instance = newInstance();
  const file = new StateFile(path, options);
  const restored = file.open(instance);
  return { file, fake: instance.fake, restored };
}

/** An access token from the real token call of the domain. */
export function issueToken(fake: Fake): string {
  return fake.issueToken({
    keyId: ACME_KEY.keyId,
    hash: computeHash(ACME_KEY.secret, 'c'),
    scope: 'docs_api',
    content: 'c',
  }).access_token;
}

/** Sets document 101101's name (a one-document PATCH). */
export function rename(fake: Fake, text: string, documentId = '101101'): void {
  fake.patchDocument(ACME, documentId, { name: textEntry('Name', text) });
}

/** Document 101101's name as stored. */
export function nameOf(fake: Fake, documentId = '101101'): unknown {
  const details = fake.getDocument(ACME, documentId).details as Record<string, { value?: { text?: string } }>;
  return details.name?.value?.text;
}

/** Whether `token` is accepted. */
export function accepted(fake: Fake, token: string): boolean {
  try {
    fake.authenticate(token);
    return true;
  } catch {
    return false;
  }
}
