import { isDeepStrictEqual } from 'node:util';
import { type Answer, type ApiTarget, LiveStop } from './api-target.js';
import type { Finding, Probe, ProbeContext } from './probe-kit.js';
import { PROBES, takeSample } from './probes.js';

/**
 * Runs the catalogue against the live service and the fake, one probe at a time (live first),
 * and classifies each: confirmed (equal findings), contradicted, or unknown (either side could
 * not tell, or the run stopped before it).
 */

export type Outcome = 'confirmed' | 'contradicted' | 'unknown';

export interface ProbeResult {
  id: string;
  question: string;
  decision: string;
  outcome: Outcome;
  live: Finding;
  fake: Finding;
  /** The setting and value that make the fake answer as the live service did (contradicted only). */
  fix: { setting: string; value: unknown } | null;
  /** Contradicted and no setting covers it: one to report. */
  noSetting: boolean;
}

export interface RunOptions {
  writableDocumentId: number | undefined;
  /** The fake's own document for the write probe. */
  fakeWritableDocumentId?: number;
  onProbe?: (probe: Probe) => void;
}

function contextFor(api: ApiTarget, writableDocumentId: number | undefined): Omit<ProbeContext, 'sample'> {
  const answers = new Map<string, Promise<Answer>>();
  return {
    api,
    writableDocumentId,
    memo(key, send) {
      let answer = answers.get(key);
      if (answer === undefined) {
        answer = send();
        answers.set(key, answer);
      }
      return answer;
    },
  };
}

async function findingOf(probe: Probe, ctx: ProbeContext): Promise<Finding> {
  try {
    return await probe.run(ctx);
  } catch (error) {
    if (error instanceof LiveStop) throw error;
    return { unknown: `the probe failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export function classify(
  probe: Probe,
  live: Finding,
  fake: Finding,
): Omit<ProbeResult, 'id' | 'question' | 'decision'> {
  if ('unknown' in live || 'unknown' in fake) {
    return { outcome: 'unknown', live, fake, fix: null, noSetting: false };
  }
  if (isDeepStrictEqual(live, fake)) return { outcome: 'confirmed', live, fake, fix: null, noSetting: false };
  const value = probe.setting?.valueFor(live);
  const fix =
    probe.setting !== undefined && value !== undefined ? { setting: probe.setting.name, value } : null;
  return { outcome: 'contradicted', live, fake, fix, noSetting: fix === null };
}

export interface RunResult {
  results: ProbeResult[];
  /** Why the run ended early, if it did (the rest are unknown). */
  stopped: LiveStop | undefined;
}

export async function runProbes(live: ApiTarget, fake: ApiTarget, options: RunOptions): Promise<RunResult> {
  const liveBase = contextFor(live, options.writableDocumentId);
  const fakeBase = contextFor(fake, options.fakeWritableDocumentId);
  const results: ProbeResult[] = [];
  let stopped: LiveStop | undefined;
  let liveCtx: ProbeContext | undefined;
  let fakeCtx: ProbeContext | undefined;
  try {
    liveCtx = { ...liveBase, sample: await takeSample(liveBase) };
    fakeCtx = { ...fakeBase, sample: await takeSample(fakeBase) };
  } catch (error) {
    if (!(error instanceof LiveStop)) throw error;
    stopped = error;
  }
  for (const probe of PROBES) {
    const head = { id: probe.id, question: probe.question, decision: probe.decision };
    if (stopped !== undefined || liveCtx === undefined || fakeCtx === undefined) {
      const reason = { unknown: `not run: ${stopped?.message ?? 'stopped'}` };
      results.push({ ...head, outcome: 'unknown', live: reason, fake: reason, fix: null, noSetting: false });
      continue;
    }
    options.onProbe?.(probe);
    try {
      const liveFinding = await findingOf(probe, liveCtx);
      const fakeFinding = await findingOf(probe, fakeCtx);
      results.push({ ...head, ...classify(probe, liveFinding, fakeFinding) });
    } catch (error) {
      if (!(error instanceof LiveStop)) throw error;
      stopped = error;
      const reason = { unknown: `not run: ${error.message}` };
      results.push({ ...head, outcome: 'unknown', live: reason, fake: reason, fix: null, noSetting: false });
    }
  }
  return { results, stopped };
}
