import { ApiError, type Violation } from '../errors.js';
import { type FaultInput, problemsOf } from './faults.js';
import { pathMatcher } from './path-pattern.js';
import type { RateLimitInput } from './rate-limits.js';

/**
 * A scenario of the user's own, as data: `{name, steps: [...]}`. Each step is one of
 *
 *   {kind: "fault", fault: {...as POST /__admin/faults}}
 *   {kind: "rateLimit", rateLimit: {...as POST /__admin/rate-limits}}
 *   {kind: "clock", advanceSeconds: n} or {kind: "clock", now: unixSeconds}
 *   {kind: "patchDocument", documentId, label?, description?, details?}  (another user's change)
 *
 * with an optional `when`: `{afterRequests: n}` (once n API requests of the instance were seen
 * since the scenario was applied) and/or `{onRequest: {method?, path?}}` (on a request that
 * matches); a step applies once, on the arrival of the first request that meets its `when`
 * (before the request is served, so a fault or limit it adds applies to that request), or at
 * once without one. Every step is checked before any applies; each error names its step
 * (`body/steps/2/fault/status`).
 */

export const STEP_KINDS = ['fault', 'rateLimit', 'clock', 'patchDocument'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export interface StepWhen {
  afterRequests?: number;
  onRequest?: { method?: string; path?: string };
}

export type ScenarioStep =
  | { kind: 'fault'; fault: FaultInput; when?: StepWhen }
  | { kind: 'rateLimit'; rateLimit: RateLimitInput; when?: StepWhen }
  | { kind: 'clock'; advanceSeconds?: number; now?: number; when?: StepWhen }
  | {
      kind: 'patchDocument';
      documentId: number;
      label?: string;
      description?: string;
      details?: Record<string, string | null>;
      when?: StepWhen;
    };

/** The spec's checks of a fault and a rate limit (as their admin calls check them). */
export interface StepChecks {
  faultInput(value: unknown): FaultInput;
  rateLimitInput(value: unknown): RateLimitInput;
}

/** Longest path a `when.onRequest` matches (as the spec bounds a fault's or a limit's `path`). */
const MAX_PATH_LENGTH = 2048;

/** The clock's reach: the end of year 9999, in seconds. */
const MAX_SECONDS = 253_402_300_799;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** Checks a whole list of steps; throws `invalidBody` listing every problem, each at its step. */
export function parseSteps(value: unknown, location: string, checks: StepChecks): ScenarioStep[] {
  const problems: Violation[] = [];
  const steps: ScenarioStep[] = [];
  if (!Array.isArray(value) || value.length === 0 || value.length > 100) {
    throw new ApiError('invalidBody', `invalid scenario: ${location} must be a list of 1 to 100 steps`, [
      { location, message: 'must be a list of 1 to 100 steps' },
    ]);
  }
  value.forEach((raw, i) => {
    const at = `${location}/${i}`;
    const step = parseStep(raw, at, checks, problems);
    if (step) steps.push(step);
  });
  const [first] = problems;
  if (first)
    throw new ApiError('invalidBody', `invalid scenario: ${first.location} ${first.message}`, problems);
  return steps;
}

const STEP_KEYS: Record<StepKind, readonly string[]> = {
  fault: ['kind', 'fault', 'when'],
  rateLimit: ['kind', 'rateLimit', 'when'],
  clock: ['kind', 'advanceSeconds', 'now', 'when'],
  patchDocument: ['kind', 'documentId', 'label', 'description', 'details', 'when'],
};

function parseStep(
  raw: unknown,
  at: string,
  checks: StepChecks,
  problems: Violation[],
): ScenarioStep | undefined {
  if (!isObject(raw)) {
    problems.push({ location: at, message: 'must be an object with a kind' });
    return undefined;
  }
  const kind = raw.kind as StepKind;
  if (!STEP_KINDS.includes(kind)) {
    problems.push({ location: `${at}/kind`, message: `must be one of ${STEP_KINDS.join(', ')}` });
    return undefined;
  }
  const before = problems.length;
  for (const key of Object.keys(raw))
    if (!STEP_KEYS[kind].includes(key))
      problems.push({ location: `${at}/${key}`, message: `is not a field of a ${kind} step` });
  const when = raw.when === undefined ? undefined : parseWhen(raw.when, `${at}/when`, problems);
  let step: ScenarioStep | undefined;
  switch (kind) {
    case 'fault': {
      const fault = checked(() => checks.faultInput(raw.fault), `${at}/fault`, problems) as FaultInput;
      // What the fault list would refuse on adding it, found now so nothing is half-applied.
      if (fault)
        for (const p of problemsOf(fault))
          problems.push({ ...p, location: `${at}/fault${p.location.slice(4)}` });
      step = { kind, fault };
      break;
    }
    case 'rateLimit':
      step = {
        kind,
        rateLimit: checked(
          () => checks.rateLimitInput(raw.rateLimit),
          `${at}/rateLimit`,
          problems,
        ) as RateLimitInput,
      };
      break;
    case 'clock': {
      const { advanceSeconds, now } = raw;
      if ((advanceSeconds === undefined) === (now === undefined))
        problems.push({ location: at, message: 'needs advanceSeconds or now (one of them)' });
      else if (
        advanceSeconds !== undefined &&
        (typeof advanceSeconds !== 'number' ||
          !Number.isFinite(advanceSeconds) ||
          Math.abs(advanceSeconds) > MAX_SECONDS)
      )
        problems.push({
          location: `${at}/advanceSeconds`,
          message: `must be a number of seconds from -${MAX_SECONDS} to ${MAX_SECONDS}`,
        });
      else if (now !== undefined && (!isCount(now) || now > MAX_SECONDS))
        problems.push({
          location: `${at}/now`,
          message: `must be Unix seconds (an integer from 0 to ${MAX_SECONDS})`,
        });
      step = { kind, advanceSeconds: advanceSeconds as number | undefined, now: now as number | undefined };
      break;
    }
    case 'patchDocument':
      step = parsePatch(raw, at, problems);
      break;
  }
  if (problems.length > before || !step) return undefined;
  return when ? { ...step, when } : step;
}

function parsePatch(raw: Record<string, unknown>, at: string, problems: Violation[]): ScenarioStep {
  const { documentId, label, description, details } = raw;
  if (!Number.isSafeInteger(documentId) || (documentId as number) < 1)
    problems.push({ location: `${at}/documentId`, message: 'must be a document id (an integer >= 1)' });
  for (const [key, value] of [
    ['label', label],
    ['description', description],
  ] as const)
    if (value !== undefined && (typeof value !== 'string' || value.length > 1000))
      problems.push({ location: `${at}/${key}`, message: 'must be a string of at most 1000 characters' });
  if (details !== undefined) {
    if (!isObject(details))
      problems.push({ location: `${at}/details`, message: 'must be an object of field values' });
    else
      for (const [key, value] of Object.entries(details))
        if (value !== null && (typeof value !== 'string' || value.length > 10_000))
          problems.push({
            location: `${at}/details/${key}`,
            message: 'must be a string (at most 10,000 characters) or null',
          });
  }
  if (label === undefined && description === undefined && details === undefined)
    problems.push({ location: at, message: 'needs label, description or details' });
  return {
    kind: 'patchDocument',
    documentId: documentId as number,
    label: label as string | undefined,
    description: description as string | undefined,
    details: details as Record<string, string | null> | undefined,
  };
}

function parseWhen(raw: unknown, at: string, problems: Violation[]): StepWhen | undefined {
  if (!isObject(raw)) {
    problems.push({ location: at, message: 'must be an object: {afterRequests?, onRequest?}' });
    return undefined;
  }
  const when: StepWhen = {};
  for (const key of Object.keys(raw))
    if (key !== 'afterRequests' && key !== 'onRequest')
      problems.push({
        location: `${at}/${key}`,
        message: 'is not a field of when (afterRequests, onRequest)',
      });
  if (raw.afterRequests !== undefined) {
    if (!isCount(raw.afterRequests) || raw.afterRequests > 1_000_000)
      problems.push({ location: `${at}/afterRequests`, message: 'must be an integer from 0 to 1000000' });
    else when.afterRequests = raw.afterRequests;
  }
  const on = raw.onRequest;
  if (on !== undefined) {
    if (!isObject(on))
      problems.push({ location: `${at}/onRequest`, message: 'must be an object: {method?, path?}' });
    else {
      for (const key of Object.keys(on))
        if (key !== 'method' && key !== 'path')
          problems.push({
            location: `${at}/onRequest/${key}`,
            message: 'is not a field of onRequest (method, path)',
          });
      if (
        on.method !== undefined &&
        (typeof on.method !== 'string' || on.method.length > 32 || !/^[A-Za-z]+$/.test(on.method))
      )
        problems.push({ location: `${at}/onRequest/method`, message: 'must be an HTTP method' });
      if (
        on.path !== undefined &&
        (typeof on.path !== 'string' || on.path.length > MAX_PATH_LENGTH || !/^\/[^*]*[*]?$/.test(on.path))
      )
        problems.push({
          location: `${at}/onRequest/path`,
          message: `must be a path starting with / (at most ${MAX_PATH_LENGTH} characters), a prefix when it ends in *`,
        });
      when.onRequest = { method: on.method as string | undefined, path: on.path as string | undefined };
    }
  }
  return when;
}

/** Runs a spec check, moving its problems under `at` (the check names them from `body`). */
function checked(check: () => unknown, at: string, problems: Violation[]): unknown {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const moved = (error.errors ?? [{ location: 'body', message: error.message }]).map((v) => ({
      ...v,
      location: v.location.startsWith('body') ? `${at}${v.location.slice(4)}` : `${at}/${v.location}`,
    }));
    problems.push(...moved);
    return undefined;
  }
}

/** Whether a request meets a step's `onRequest` (always, without one). */
export function meetsRequest(when: StepWhen | undefined, method: string, path: string): boolean {
  const on = when?.onRequest;
  if (!on) return true;
  if (on.method !== undefined && on.method.toUpperCase() !== method.toUpperCase()) return false;
  return on.path === undefined || pathMatcher(on.path)(path);
}

/** The admin API's own checks of a fault and a rate limit, from the spec's compiled validators. */
export function stepChecksOf(validators: {
  jsonBody(operationId: string): (body: unknown) => unknown;
}): StepChecks {
  return {
    faultInput: validators.jsonBody('createFault') as StepChecks['faultInput'],
    rateLimitInput: validators.jsonBody('createRateLimit') as StepChecks['rateLimitInput'],
  };
}
