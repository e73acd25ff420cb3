/**
 * A value the code knows is there (an entry of a list it built beside, a fact of the bundled
 * reference data), said so and checked: a missing one is a bug, thrown with what was missing rather
 * than carried on as undefined. Where a type can say it, the code says it with the type instead.
 */
export function present<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what} is missing`);
  return value;
}
