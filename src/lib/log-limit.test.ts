import { describe, expect, test } from "bun:test";
import { createLogger } from "./logger";
import { LogLimiter } from "./log-limit";

describe("LogLimiter", () => {
  test("one line per kind per interval; the next carries the count of suppressed ones", () => {
    const lines: Array<Record<string, unknown>> = [];
    let now = 1_000;
    const l = new LogLimiter(createLogger({ sink: (s) => lines.push(JSON.parse(s)) }), () => now, 60_000);
    for (let i = 0; i < 500; i++) l.log("error", "disk", "database write failed", { error: "database or disk is full" });
    l.log("error", "other", "something else");
    expect(lines.map((x) => [x.msg, x.suppressed])).toEqual([
      ["database write failed", undefined],
      ["something else", undefined],
    ]);
    now += 60_000;
    l.log("error", "disk", "database write failed");
    expect(lines[2]).toMatchObject({ msg: "database write failed", kind: "disk", suppressed: 499 });
    l.reset("disk");
    expect(l.log("error", "disk", "again")).toBe(true);
  });
});
