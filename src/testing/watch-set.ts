import type { WatchSet } from "../chains/types";

/** A WatchSet over addresses already in their canonical (normalised) form. */
export function watchSetOf(addresses: Iterable<string>): WatchSet {
  const set = new Set(addresses);
  return { has: (a) => set.has(a), get size() { return set.size; }, addresses: () => set.values() };
}
