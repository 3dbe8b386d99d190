import type { Ledger } from './ledger.js';
import { PROBES } from './probes.js';

/**
 * The documentation fed by the probe catalogue and the committed ledgers (`npm run generate`
 * writes it, a test keeps it current): the "live service" column of docs/decisions.md and the
 * probe table of docs/live-check.md.
 */

export const LIVE_COLUMN = 'live service';
export const NOT_YET = 'not yet confirmed';
export const NO_PROBE = 'no probe';

/** Splits a Markdown table row into its cells (a `\|` stays inside its cell). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** The probes of a decision row: those whose `decision` begins its first cell. */
export function probesOfRow(firstCell: string) {
  return PROBES.filter((p) => firstCell.startsWith(p.decision));
}

/** What the ledgers say of one row: per ledger (newest first), its outcome, date and region. */
function verdict(firstCell: string, ledgers: Ledger[]): string {
  const ids = new Set(probesOfRow(firstCell).map((p) => p.id));
  if (ids.size === 0) return NO_PROBE;
  const said: string[] = [];
  for (const ledger of [...ledgers].sort((a, b) => b.date.localeCompare(a.date))) {
    const results = ledger.probes.filter((p) => ids.has(p.id));
    if (results.length === 0) continue;
    const when = `${ledger.date.slice(0, 10)}, ${ledger.region}`;
    const against = results.filter((p) => p.outcome === 'contradicted').map((p) => `\`${p.id}\``);
    if (against.length > 0) said.push(`contradicted (${when}: ${against.join(', ')})`);
    else if (results.some((p) => p.outcome === 'confirmed')) said.push(`confirmed (${when})`);
    else said.push(`could not tell (${when})`);
  }
  return said.length > 0 ? said.join('; ') : NOT_YET;
}

/** docs/decisions.md with its table's live column (added, or rewritten) from the ledgers. */
export function withLiveColumn(markdown: string, ledgers: Ledger[]): string {
  const lines = markdown.split('\n');
  let header: number | undefined;
  return lines
    .map((line, index) => {
      if (!line.startsWith('| ')) return line;
      const row = cells(line);
      header ??= index;
      const base = row.slice(0, 3);
      const last =
        index === header ? LIVE_COLUMN : index === header + 1 ? '---' : verdict(base[0] ?? '', ledgers);
      return `| ${[...base, last].join(' | ')} |`;
    })
    .join('\n');
}

/** The probe table of docs/live-check.md. */
export function probeTable(): string {
  const rows = PROBES.map(
    (p) =>
      `| \`${p.id}\` | ${p.question} | ${p.sends}${p.writes ? ' **(a write)**' : ''} | ${p.decision} | ${
        p.setting ? `\`${p.setting.name}\`` : 'no setting covers it'
      } |`,
  );
  return [
    '| probe | question | sends | decision | setting |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

export const PROBE_TABLE_START = '<!-- probes: written by npm run generate -->';
export const PROBE_TABLE_END = '<!-- end of probes -->';

/** docs/live-check.md with its probe table rewritten between the markers. */
export function withProbeTable(markdown: string): string {
  const start = markdown.indexOf(PROBE_TABLE_START);
  const end = markdown.indexOf(PROBE_TABLE_END);
  if (start < 0 || end < start) throw new Error('docs/live-check.md has no probe table markers');
  return `${markdown.slice(0, start + PROBE_TABLE_START.length)}\n${probeTable()}\n${markdown.slice(end)}`;
}
