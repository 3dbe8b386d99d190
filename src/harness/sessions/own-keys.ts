import { randomBytes } from 'node:crypto';
import type { ApiKey, Dataset } from '../../domain/types.js';

/**
 * The API keys of a session created with keys of its own (`{"keys": "own"}`): one per
 * organization of the session's fixtures, with a key ID and secret drawn at random (256 bits
 * each), so nobody can guess them and no other instance holds them. They replace whatever keys
 * the fixture set names (the default keys are the same on every start, so every instance shares
 * them). A fixture load into the session keeps each organization's key; an organization new to
 * the session gets a fresh one, and one no longer in the set loses its key.
 */
export class OwnKeys {
  readonly #byOrganization = new Map<number, ApiKey>();
  /** Told of the keys each `apply` adds and removes, so the server's routing table follows them. */
  onChange: ((added: ApiKey[], removed: ApiKey[]) => void) | undefined = undefined;

  /** `dataset` with this session's keys in place of its own: kept per organization, fresh for new ones. */
  apply(dataset: Dataset): Dataset {
    const added: ApiKey[] = [];
    const kept = new Map<number, ApiKey>();
    for (const org of dataset.organizations) {
      let key = this.#byOrganization.get(org.id);
      if (key === undefined) {
        key = freshKey(org.id);
        added.push(key);
      }
      kept.set(org.id, key);
    }
    const removed = [...this.#byOrganization].filter(([org]) => !kept.has(org)).map(([, key]) => key);
    this.#byOrganization.clear();
    for (const [org, key] of kept) this.#byOrganization.set(org, key);
    this.onChange?.(added, removed);
    return { ...dataset, apiKeys: [...kept.values()] };
  }

  /** Keys kept from before (a state file's), one per organization. */
  static from(keys: readonly ApiKey[]): OwnKeys {
    const made = new OwnKeys();
    for (const key of keys) made.#byOrganization.set(key.organizationId, { ...key });
    return made;
  }

  /** The keys, one per organization, with their secrets. */
  list(): ApiKey[] {
    return [...this.#byOrganization.values()].map((key) => ({ ...key }));
  }
}

/** The first 4 hex digits of every own key ID this process makes: a fleet replica's ordinal. */
let keyMark: string | undefined;

/**
 * Makes every own key ID from now on start with `ordinal` as 4 decimal digits (`0002` + 60 random
 * hex digits): still 64 hex characters, and any fleet replica knows which one owns the key. One
 * process is one replica.
 */
export function markOwnKeys(ordinal: number): void {
  keyMark = String(ordinal).padStart(4, '0');
}

function freshKey(organizationId: number): ApiKey {
  // 64 hex characters, as the live service's key IDs.
  return {
    keyId:
      keyMark === undefined ? randomBytes(32).toString('hex') : keyMark + randomBytes(30).toString('hex'),
    secret: randomBytes(32).toString('base64url'),
    organizationId,
  };
}
