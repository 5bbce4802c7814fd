import { describe, expect, test } from "bun:test";
import { derivedOrderNo, newEventId, newOrderNo, newTimedToken, orderEventId } from "./ids";

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

describe("stable ids of what a rescan after a restore makes again", () => {
  test("an order's eventId is the same for the same (merchant, kind, order, status, occurrence), starts with the order's time, and differs otherwise", () => {
    const e = { merchantId: 1, kind: "payin", orderNo: "PI202611240812345670000123", status: "completed", occurrence: 0, fallbackMs: 5 };
    const id = orderEventId(e);
    expect(orderEventId({ ...e })).toBe(id);
    expect(id).toMatch(/^EV[0-9A-F]{32}$/);
    // Fixed: a callback written again after a restore must carry the id the merchant already has.
    expect(id).toBe("EV01A20C9D238792AC87713CE6A247A170");
    expect(id.slice(2, 14)).toBe(Date.UTC(2026, 10, 24, 8, 12, 34, 567).toString(16).padStart(12, "0").toUpperCase());
    for (const other of [{ merchantId: 2 }, { kind: "payout" }, { orderNo: "PI202611240812345670000124" }, { status: "expired" }, { occurrence: 1 }]) {
      expect(orderEventId({ ...e, ...other })).not.toBe(id);
    }
  });

  test("a deposit's order number is derived from its transfer: same transfer, same number; another attempt, another number", () => {
    const a = derivedOrderNo("PI", Date.UTC(2026, 10, 24), "TRON:abc:0");
    expect(a).toMatch(/^PI20261124000000000\d{7}$/);
    expect(derivedOrderNo("PI", Date.UTC(2026, 10, 24), "TRON:abc:0")).toBe(a);
    expect(derivedOrderNo("PI", Date.UTC(2026, 10, 24), "TRON:abc:1")).not.toBe(a);
    expect(derivedOrderNo("PI", Date.UTC(2026, 10, 24), "TRON:abc:0", 1)).not.toBe(a);
    expect(a).toHaveLength(newOrderNo("PI", Date.UTC(2026, 10, 24)).length);
  });
});
