// The roles the operations side reads (DESIGN 22): a SQLite gateway always leads and never raises
// no_leader; no_leader fires once nobody has led for twice takeover_after.
import { describe, expect, test } from "bun:test";
import { noLeader, singleGateway } from "./cluster-role";

describe("cluster roles", () => {
  test("a gateway alone (SQLite) is the leader, and never leaderless", async () => {
    const r = singleGateway(15_000);
    expect(r.role()).toBe("leader");
    expect(r.isLeader()).toBe(true);
    expect(await r.leaderlessFor()).toBeNull();
  });

  test.each([
    [null, false, "unknown (database unreachable, or SQLite)"],
    [0, false, "a leader beats"],
    [29_999, false, "just under twice takeover_after"],
    [30_000, true, "twice takeover_after"],
    [120_000, true, "long after"],
  ] as const)("no_leader with %p ms leaderless and takeover_after 15 s: %p (%s)", (ms, fires) => {
    expect(noLeader(ms, 15_000)).toBe(fires);
  });
});
