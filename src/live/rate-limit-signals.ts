/**
 * What check-live learns, passively, of the live service's rate limits: every 429 it meets and
 * every answer carrying a rate-limit header (`Retry-After`, `X-RateLimit-*`, `RateLimit-*`, the
 * IETF draft's `RateLimit` and `RateLimit-Policy`). The live limits are not published; the ledger
 * keeps what was seen so a team can set the fake's (`POST /__admin/rate-limits`) to match. Paths
 * are kept without their query and with ids as `{id}`; header values are numbers and policies,
 * never a secret. At most `MAX_KEPT` answers are kept, every one counted.
 */

export const MAX_KEPT = 20;

const RATE_LIMIT_HEADER = /^(retry-after|x-ratelimit-[a-z-]+|ratelimit(-[a-z-]+)?)$/;

export interface RateLimitSignal {
  method: string;
  /** `/api/v2/documents/{id}`: no query, no ids. */
  path: string;
  status: number;
  headers: Record<string, string>;
}

export interface RateLimitSightings {
  /** Answers that were a 429 or carried a rate-limit header. */
  seen: number;
  /** The first of them. */
  answers: RateLimitSignal[];
}

export class RateLimitSignals {
  #seen = 0;
  readonly #answers: RateLimitSignal[] = [];

  /** Notes one answer when it says anything about rate limits. */
  note(
    method: string,
    path: string,
    status: number,
    headers: { forEach(cb: (value: string, name: string) => void): void },
  ): void {
    const kept: Record<string, string> = {};
    headers.forEach((value, name) => {
      if (RATE_LIMIT_HEADER.test(name.toLowerCase())) kept[name.toLowerCase()] = value.slice(0, 200);
    });
    if (status !== 429 && Object.keys(kept).length === 0) return;
    this.#seen += 1;
    if (this.#answers.length < MAX_KEPT)
      this.#answers.push({
        method,
        path: path.split('?')[0]?.replace(/\/\d+(?=\/|$)/g, '/{id}') ?? path,
        status,
        headers: kept,
      });
  }

  /** What the ledger keeps: undefined when nothing was seen. */
  sightings(): RateLimitSightings | undefined {
    return this.#seen === 0 ? undefined : { seen: this.#seen, answers: [...this.#answers] };
  }
}

/** The ledger's Markdown section on them. */
export function sightingsMarkdown(sightings: RateLimitSightings | undefined): string[] {
  if (!sightings) return [];
  return [
    '',
    '## Rate limits seen',
    '',
    `${sightings.seen} answer${sightings.seen === 1 ? '' : 's'} were a 429 or carried rate-limit headers` +
      ' (the fake sets its own with POST /__admin/rate-limits; see docs/trouble.md). The first:',
    '',
    '| request | status | headers |',
    '| --- | --- | --- |',
    ...sightings.answers.map(
      (a) =>
        `| ${a.method} ${a.path} | ${a.status} | ${`\`${JSON.stringify(a.headers)}\``.replace(/\|/g, '\\|')} |`,
    ),
  ];
}
