/**
 * Writes what the probe catalogue and the committed ledgers say into the docs:
 *
 *   npx tsx scripts/live-docs.ts    docs/decisions.md's "live service" column, from
 *                                   docs/ledgers/*.json (ledger.json files check-live wrote),
 *                                   and docs/live-check.md's probe table
 *
 * To record a run: copy its ledger.json to docs/ledgers/<region>-<date>.json, run this, commit.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ledger } from '../src/live/ledger.js';
import { withLiveColumn, withProbeTable } from '../src/live/live-docs.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function committedLedgers(root = ROOT): Ledger[] {
  const dir = join(root, 'docs', 'ledgers');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Ledger);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const decisions = join(ROOT, 'docs', 'decisions.md');
  writeFileSync(decisions, withLiveColumn(readFileSync(decisions, 'utf8'), committedLedgers()));
  const liveCheck = join(ROOT, 'docs', 'live-check.md');
  writeFileSync(liveCheck, withProbeTable(readFileSync(liveCheck, 'utf8')));
}
