import { describe, expect, test } from "bun:test";
import { newEventId, newTimedToken } from "./ids";

// Keys written on every create are time-ordered (their index grows at its right edge) and
// keep their random part: unique, and a checkout token stays unguessable.
describe.each([
  ["event id", newEventId, /^EV[0-9A-F]{12}[0-9A-F]{20}$/],
  ["checkout token", newTimedToken, /^[0-9a-f]{12}[A-Za-z0-9_-]{24}$/],
] as const)("%s", (_name, make, shape) => {
  test("sorts (as SQLite compares text) in time order, and has the expected shape", () => {
    const times = [0, 1, 999, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 2 ** 47];
    const ids = times.map((t) => make(t));
    for (const id of ids) expect(id).toMatch(shape);
    expect([...ids].sort()).toEqual(ids);
  });

  test("ids made in the same millisecond differ", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => make(1_700_000_000_000)));
    expect(ids.size).toBe(1000);
  });
});
