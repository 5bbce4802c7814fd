// The generic waits end: a check that never answers fails the wait naming what it waited for.
import { expect, test } from "bun:test";
import { eventually, settledBy } from "./wait";

test("settledBy: a value or a settled promise passes through; one unsettled at the deadline fails with the reason", async () => {
  expect(await settledBy(7, Date.now(), () => "late")).toBe(7);
  expect(await settledBy(Promise.resolve(8), Date.now() + 1_000, () => "late")).toBe(8);
  const never = new Promise<number>(() => {});
  const t0 = Date.now();
  expect(await settledBy(never, t0 + 50, () => "the node's answer").catch((e: Error) => e.message)).toBe("the node's answer");
  expect(Date.now() - t0).toBeLessThan(1_000);
});

test("eventually returns the first truthy value and fails naming `what` at its deadline", async () => {
  let n = 0;
  expect(await eventually(() => ++n >= 3 && n, 1_000, "three calls", 1)).toBe(3);
  expect(await eventually(() => false, 30, "a flag that never rises", 5).catch((e: Error) => e.message)).toBe("a flag that never rises not met within 30ms");
});
