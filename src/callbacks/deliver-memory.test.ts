// An attempt leaves nothing behind: under steady load the worker makes thousands of
// attempts, and each one's signals, closures and error must be collectable once it returns
// (a leftover abort listener kept them all reachable: docs/performance.md, "memory, this session").
import { afterAll, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { startReceiver } from "../testing/receiver";
import { deliverOnce } from "./deliver";

const receiver = startReceiver();
afterAll(() => receiver.stop());

const live = (type: string) => {
  Bun.gc(true);
  return heapStats().objectTypeCounts[type] ?? 0;
};

test("1,000 attempts (failed lookups and deliveries) with a shutdown signal leave no signals or errors reachable", async () => {
  const shutdown = new AbortController();
  const base = { body: "{}", apiKey: "mch_" + "ab".repeat(32), timeoutMs: 5000, allowPrivate: true, now: () => Date.now(), signal: shutdown.signal };
  const notFound = async (host: string): Promise<string[]> => {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  };
  receiver.setScript([{ status: 200 }]);
  const signalsBefore = live("AbortSignal");
  const errorsBefore = live("Error");
  const outcomes: boolean[] = [];
  for (let i = 0; i < 1000; i++) {
    const r =
      i % 10 === 0
        ? await deliverOnce({ ...base, url: receiver.url + "/cb" })
        : await deliverOnce({ ...base, url: `https://shop${i}.example/cb`, lookup: notFound });
    outcomes.push(r.ok);
  }
  expect(outcomes.filter(Boolean).length).toBe(100);
  // fetch lets go of its signal a moment after the response (then one GC frees it).
  Bun.gc(true);
  await Bun.sleep(200);
  // Each attempt made two AbortSignals (its deadline and the combined one) and, for a failed
  // lookup, an Error: 2,000 signals and 900 errors if attempts were retained.
  expect(live("AbortSignal") - signalsBefore).toBeLessThan(50);
  expect(live("Error") - errorsBefore).toBeLessThan(50);
});
