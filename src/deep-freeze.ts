/**
 * Freezes `value` and everything reachable from it, and answers it: for what one process shares
 * between its servers (the parsed spec, the default fixture set), so no server can change what
 * another sees.
 */
/** One empty list, frozen: pushing to it throws, so whoever may add to a list makes its own. */
const EMPTY: readonly never[] = Object.freeze([]);

/**
 * The shared empty list, typed as a list of `T`: for records that most often have none (a
 * request's notices, violations, behaviours), so each does not allocate one of its own.
 */
export const emptyList = <T>(): T[] => EMPTY as unknown as T[];

export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
  return value;
}
