/**
 * A path as faults and the journal's filter take it: exact, or a prefix when it ends in `*`
 * (`/api/v2/documents*`). Answers the test for one pattern, made once.
 */
export function pathMatcher(pattern: string): (path: string) => boolean {
  if (!pattern.endsWith('*')) return (path) => path === pattern;
  const prefix = pattern.slice(0, -1);
  return (path) => path.startsWith(prefix);
}
