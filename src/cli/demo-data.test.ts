import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { callbacks } from "../db/schema";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { seedDemoData } from "./demo-data";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

test("serve --demo's data: invoices and their pay-ins in different states; callbacks held, none failing", async () => {
  const lines = await seedDemoData(gw.ctx, gw.gateway.runtime, gw.merchant.uid);
  expect(lines).toHaveLength(4);
  const got = await Promise.all(["demo-open", "demo-paid", "demo-short", "demo-waiting"].map(async (_n, i) => gw.client.getInvoice(lines[i]!.split(" ")[0]!)));
  expect(got.map((i) => [i.merchantOrderNo, i.status, i.payment?.status ?? null])).toEqual([
    ["demo-open", "open", null],
    ["demo-paid", "paid", "completed"],
    ["demo-short", "frozen_abnormal", "frozen_abnormal"],
    ["demo-waiting", "open", "waiting_payment"],
  ]);
  const states = gw.ctx.db.select({ s: callbacks.state }).from(callbacks).where(eq(callbacks.merchantId, gw.merchant.id)).all().map((r) => r.s);
  expect(new Set(states)).toEqual(new Set(["held"]));
});
