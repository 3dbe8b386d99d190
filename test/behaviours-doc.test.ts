import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_KINDS } from '../src/errors.js';
import { BEHAVIOUR_IDS, behaviourOf, ERRORS_NOT_MET } from '../src/harness/verdicts/behaviours.js';

/**
 * docs/behaviours.md documents every behaviour of the catalogue and nothing else: a behaviour added
 * without its row (or a row left behind) fails here. The error kinds that are not behaviours are
 * listed there too, each with why, and are kinds of the error catalogue.
 */

const doc = readFileSync(new URL('../docs/behaviours.md', import.meta.url), 'utf8');

/** The ids of the table rows of the behaviour sections: `| \`id\` | likelihood | ...`. */
function documentedIds(): string[] {
  return [...doc.matchAll(/^\| `([^`]+)` \| (\d) \|/gm)].map((m) => m[1] ?? '');
}

describe('docs/behaviours.md', () => {
  it('has a row for every behaviour id and no other, each with the catalogue likelihood', () => {
    const ids = documentedIds();
    expect([...ids].sort()).toEqual([...BEHAVIOUR_IDS].sort());
    for (const m of doc.matchAll(/^\| `([^`]+)` \| (\d) \|/gm)) {
      expect(behaviourOf(m[1] ?? '')?.likelihood, m[1]).toBe(Number(m[2]));
    }
  });

  it('lists the error kinds that are not behaviours, each a kind of the error catalogue', () => {
    for (const kind of Object.keys(ERRORS_NOT_MET)) {
      expect(Object.hasOwn(ERROR_KINDS, kind), kind).toBe(true);
      expect(doc).toContain(`| \`${kind}\` |`);
      expect(BEHAVIOUR_IDS).not.toContain(`error.${kind}`);
    }
  });
});
