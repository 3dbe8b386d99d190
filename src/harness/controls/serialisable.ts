/**
 * Whether `JSON.stringify` can write `value`. JSON nested thousands of levels deep parses, but
 * writing it overflows the stack: a fault body, a fixture set or a journaled body like that is
 * refused or listed as a note instead of failing later, on every read.
 */
export function serialisable(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}
