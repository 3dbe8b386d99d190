import { distance } from 'fastest-levenshtein';

/**
 * The known name nearest to one that is not known, when it is near enough to be a slip of the
 * keyboard (an edit distance of at most a third of the name, at least 2; 1 for names of up to 5
 * characters, so `HOME` is never taken for `HOST`) unless `limit` says otherwise. Case is ignored.
 * Undefined when none is near.
 */
export function nearestName(
  word: string,
  candidates: Iterable<string>,
  limit = word.length <= 5 ? 1 : Math.max(2, Math.floor(word.length / 3)),
): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    // Names whose lengths differ by more than the limit are further apart than it: not compared.
    if (Math.abs(candidate.length - word.length) > limit) continue;
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}
