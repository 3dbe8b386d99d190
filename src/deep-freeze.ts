/**
 * Freezes `value` and everything reachable from it, and answers it: for what one process shares
 * between its servers (the parsed spec, the default fixture set), so no server can change what
 * another sees.
 */
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
