import type { Settings } from '../config.js';
import type { Answer, ApiTarget } from './api-target.js';

/**
 * What a probe is made of, and the small readers every probe shares. A probe asks one question
 * about one decision, sends a few requests and reduces the answers to a *finding*: a small JSON
 * value of statuses, codes, types, counts and key names, never a document's text. The same probe
 * runs against the live service and the fake; equal findings confirm the decision.
 */

/** A finding; one holding `unknown` (the reason) could not tell. */
export type Finding = Record<string, unknown>;

export interface Sample {
  /** A document the key can read. */
  documentId: number;
  /** A client other than the first row’s, when the first rows hold one. */
  clientId: number;
  /** The template of the first row. */
  templateId: number;
  /** A word (three letters or more) of some row's label, for the search probe. */
  labelWord: string | undefined;
}

export interface ProbeContext {
  api: ApiTarget;
  sample: Sample;
  /** One answer per key within a run: probes that read the same request share it. */
  memo(key: string, send: () => Promise<Answer>): Promise<Answer>;
  /** The document `--allow-writes` names (on the fake: the sample's); undefined: read-only. */
  writableDocumentId: number | undefined;
}

export interface ProbeSetting {
  /** The setting that changes this decision. */
  name: keyof Settings;
  /** The setting's value that makes the fake answer as `live` did; undefined when none does. */
  valueFor(live: Finding): unknown;
}

export interface Probe {
  id: string;
  question: string;
  /** The first cell of the decision's row in docs/decisions.md. */
  decision: string;
  /** What it sends, in words (docs/live-check.md lists it). */
  sends: string;
  /** Sends a write (only with --allow-writes, to the document it names). */
  writes?: true;
  /** No setting covers it when absent. */
  setting?: ProbeSetting;
  run(ctx: ProbeContext): Promise<Finding>;
}

export type Row = Record<string, unknown>;

export function bodyOf(answer: Answer): Row | undefined {
  const body = answer.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Row) : undefined;
}

export function rowsOf(answer: Answer): Row[] | undefined {
  const results = bodyOf(answer)?.results;
  return Array.isArray(results) ? (results as Row[]) : undefined;
}

/** The ids of a list answer, joined (undefined when the answer is not a list). */
export function idsOf(answer: Answer): string | undefined {
  return rowsOf(answer)
    ?.map((row) => String(row.id))
    .join(',');
}

/** What a JSON value is: `string`, `number`, `boolean`, `null`, `array`, `object`, or `absent`. */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** An error answer as a finding: status, vendor code and message (the service's own words). */
export function errorFinding(answer: Answer): Finding {
  const body = bodyOf(answer);
  return {
    status: answer.status,
    code: body?.code ?? null,
    message: typeof body?.message === 'string' ? body.message : null,
  };
}

/**
 * How a variant request was read, given the canonical request and the same request without the
 * parameter: as the canonical one, ignored, otherwise, or (when the parameter changes nothing
 * here) not telling.
 */
export function readAs(variant: Answer, canonical: Answer, without: Answer): string {
  if (variant.status !== 200) return `status ${variant.status}`;
  const v = idsOf(variant);
  const c = idsOf(canonical);
  const w = idsOf(without);
  if (c === w) return 'cannot tell';
  if (v === c) return 'read as the canonical parameter';
  if (v === w) return 'ignored';
  return 'other';
}

/** A finding from `readAs`, unknown when the data could not tell. */
export function readAsFinding(reading: string): Finding {
  return reading === 'cannot tell'
    ? { unknown: 'the parameter changes nothing on this tenant’s first rows' }
    : { reading };
}

/** Sorted keys of an object value. */
export const keysOf = (value: unknown): string[] =>
  value !== null && typeof value === 'object' ? Object.keys(value).sort() : [];

/** A list query of the documents: a list request, shared by every probe that sends the same one. */
export function list(ctx: ProbeContext, query: string, path = '/api/v2/documents'): Promise<Answer> {
  return ctx.memo(`GET ${path}?${query}`, () => ctx.api.send('GET', path, { query }));
}
