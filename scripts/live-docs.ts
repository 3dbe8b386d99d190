/**
 * The committed ledgers (docs/ledgers/*.json, ledger.json files check-live wrote), from which
 * `npm run generate` writes docs/decisions.md's "live service" column (docs/live-check.md's probe
 * table comes from the probe catalogue).
 *
 * To record a run: copy its ledger.json to docs/ledgers/<region>-<date>.json, run
 * `npm run generate`, commit.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ledger } from '../src/live/ledger.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function committedLedgers(root = ROOT): Ledger[] {
  const dir = join(root, 'docs', 'ledgers');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Ledger);
}
