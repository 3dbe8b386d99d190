import type { ProbeResult } from './compare.js';
import { type RateLimitSightings, sightingsMarkdown } from './rate-limit-signals.js';

/**
 * The ledger of a check-live run, as JSON (for tools and scripts/decisions-live-column.ts) and
 * Markdown (for people), and the config-file fragment that makes the fake answer as the live
 * service did. Findings hold statuses, codes, types, counts and key names: no document text.
 */

export interface Ledger {
  tool: 'passportal-docs-fake check-live';
  date: string;
  host: string;
  /** The tenant's region, from its host name (`us-clover` for us-clover.passportalmsp.com). */
  region: string;
  fakeVersion: string;
  readOnly: boolean;
  requests: { live: number; fake: number };
  complete: boolean;
  stoppedBy?: string;
  probes: ProbeResult[];
  /** The 429s and rate-limit headers the live service sent, when it sent any. */
  rateLimits?: RateLimitSightings;
}

export const regionOf = (host: string): string => host.split('.')[0] ?? host;

/** The settings that make the fake match, from every contradicted probe a setting covers. */
export function configFragment(ledger: Ledger): Record<string, unknown> {
  const out: Record<string, unknown> = {
    $schema: './node_modules/passportal-docs-fake/spec/config.schema.json',
  };
  for (const probe of ledger.probes) {
    if (probe.outcome === 'contradicted' && probe.fix !== null) out[probe.fix.setting] = probe.fix.value;
  }
  return out;
}

const cell = (value: unknown) => `\`${JSON.stringify(value)}\``.replace(/\|/g, '\\|');

export function ledgerMarkdown(ledger: Ledger): string {
  const counts = { confirmed: 0, contradicted: 0, unknown: 0 };
  for (const p of ledger.probes) counts[p.outcome] += 1;
  const lines = [
    `# Live check of ${ledger.host}`,
    '',
    `${ledger.date}, region ${ledger.region}, passportal-docs-fake ${ledger.fakeVersion}, ` +
      `${ledger.readOnly ? 'read-only' : 'with one write (restored and verified)'}; ` +
      `${ledger.requests.live} requests to the live service.`,
    '',
    `${counts.confirmed} confirmed, ${counts.contradicted} contradicted, ${counts.unknown} could not tell.` +
      (ledger.complete ? '' : ` The run stopped early: ${ledger.stoppedBy ?? ''}`),
    '',
    '| probe | outcome | live | fake | to match |',
    '| --- | --- | --- | --- | --- |',
    ...ledger.probes.map(
      (p) =>
        `| ${p.id} | ${p.outcome} | ${cell(p.live)} | ${cell(p.fake)} | ${
          p.fix
            ? `\`"${p.fix.setting}": ${JSON.stringify(p.fix.value)}\``
            : p.noSetting
              ? 'no setting covers it'
              : ''
        } |`,
    ),
  ];
  lines.push(...sightingsMarkdown(ledger.rateLimits));
  const fixes = ledger.probes.filter((p) => p.fix !== null);
  if (fixes.length > 0) {
    lines.push('', '## Settings that make the fake match', '');
    lines.push(
      '`passportal-fake.config.json` beside this ledger holds them; merge it into your config file.',
    );
  }
  const report = ledger.probes.filter((p) => p.noSetting);
  if (report.length > 0) {
    lines.push('', '## Contradictions no setting covers', '');
    lines.push('Report each to the project as it stands here (it names no document and no key):', '');
    for (const p of report) {
      lines.push(
        `- **${p.id}** (decision "${p.decision}"): ${p.question} On ${ledger.date.slice(0, 10)}, ${ledger.host} ` +
          `answered ${cell(p.live)}; passportal-docs-fake ${ledger.fakeVersion} answers ${cell(p.fake)}.`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
