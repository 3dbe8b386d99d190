import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { committedLedgers } from '../../scripts/live-docs.js';
import type { Ledger } from '../../src/live/ledger.js';
import { NOT_YET, probesOfRow, withLiveColumn, withProbeTable } from '../../src/live/live-docs.js';
import { PROBES } from '../../src/live/probes.js';

/**
 * The docs agree with the probe catalogue and the committed ledgers: decisions.md's live column
 * says what docs/ledgers/*.json say (nothing yet: "not yet confirmed"), live-check.md lists every
 * probe and what it sends, and every probe names a row of the decisions table.
 */

const decisions = readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8');
const liveCheck = readFileSync(new URL('../../docs/live-check.md', import.meta.url), 'utf8');
const firstCells = decisions
  .split('\n')
  .filter((l) => l.startsWith('| ') && !l.startsWith('| ---') && !l.startsWith('| gap'))
  .map((l) => l.slice(2).split(' | ')[0] ?? '');

const row = (markdown: string, start: string) =>
  markdown.split('\n').find((l) => l.startsWith(`| ${start}`)) ?? '';

describe('the live column of docs/decisions.md', () => {
  it('agrees with the committed ledgers (run `npm run generate`)', () => {
    expect(withLiveColumn(decisions, committedLedgers())).toBe(decisions);
  });

  it('says "not yet confirmed" on every probed row without a ledger, "no probe" on the others', () => {
    const bare = withLiveColumn(decisions, []);
    for (const cell of firstCells) {
      const said = probesOfRow(cell).length > 0 ? NOT_YET : 'no probe';
      expect(row(bare, cell).endsWith(`| ${said} |`), cell).toBe(true);
    }
  });

  it('shows a ledger’s outcome with its date and region, contradictions by probe', () => {
    const ledger = {
      date: '2026-11-20T10:00:00.000Z',
      region: 'us-clover',
      probes: [
        { id: 'page-size-cap', outcome: 'contradicted' },
        { id: 'token-lifetime', outcome: 'confirmed' },
        { id: 'token-expiry-type', outcome: 'confirmed' },
      ],
    } as unknown as Ledger;
    const out = withLiveColumn(decisions, [ledger]);
    expect(row(out, '`resultsPerPage`')).toMatch(
      /\| contradicted \(2026-11-20, us-clover: `page-size-cap`\) \|$/,
    );
    expect(row(out, 'token lifetime')).toMatch(/\| confirmed \(2026-11-20, us-clover\) \|$/);
    expect(row(out, 'batch atomicity')).toMatch(/\| no probe \|$/);
    expect(row(out, 'hash algorithm')).toMatch(/\| not yet confirmed \|$/);
  });

  it('has a row for every probe’s decision', () => {
    for (const probe of PROBES)
      expect(
        firstCells.some((c) => c.startsWith(probe.decision)),
        probe.id,
      ).toBe(true);
  });
});

describe('docs/live-check.md', () => {
  it('lists every probe with what it sends (run `npm run generate`)', () => {
    expect(withProbeTable(liveCheck)).toBe(liveCheck);
    for (const probe of PROBES)
      expect(liveCheck).toContain(`| \`${probe.id}\` | ${probe.question} | ${probe.sends}`);
  });
});
