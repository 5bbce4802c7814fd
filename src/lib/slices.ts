// Background work over growing tables in small slices that give the event loop
// back between them (DESIGN 11: no job holds it for more than 50 ms), so
// requests are answered while a job walks a million rows.

/** Resolves on the next event-loop turn (after pending I/O callbacks), not on a microtask. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((r) => setImmediate(r));
}

/**
 * Runs `step` until it reports done, yielding a turn after every call. `step`
 * does one bounded slice (a keyset page) and returns false when nothing is left.
 */
export async function inSlices(step: () => boolean | Promise<boolean>, opts: { stopped?: () => boolean } = {}): Promise<void> {
  for (;;) {
    if (opts.stopped?.()) return;
    if (!(await step())) return;
    await nextTurn();
  }
}
