// "Send test callback": the event goes through the ordinary outbox and worker,
// arrives signed with the merchant's key, and its delivery is recorded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { verifyCallback } from "../sdk";
import { updateMerchantSettings } from "../merchants/settings";
import { CLI_ACTOR } from "../audit/log";
import { eventually } from "../testing/callbacks";
import { NoDefaultCallbackUrl, recentTestCallbacks, sendTestCallback } from "./test-event";

let g: TestGateway;
let rx: Receiver;
beforeAll(async () => {
  g = await startTestGateway();
  rx = startReceiver();
});
afterAll(async () => {
  await rx?.stop();
  await g?.stop();
});

const deps = () => ({ db: g.ctx.db, now: () => g.ctx.clock.now() });

test("without a default callback URL there is nothing to send to", () => {
  expect(() => sendTestCallback(deps(), g.merchant.id)).toThrow(NoDefaultCallbackUrl);
});

test("the test callback arrives signed, verifies with the SDK, and its delivery is shown", async () => {
  updateMerchantSettings({ db: g.ctx.db, now: () => Date.now(), allowPrivateTargets: true }, g.merchant.uid, { defaultNotifyUrl: rx.url + "/hook" }, CLI_ACTOR);
  const eventId = sendTestCallback(deps(), g.merchant.id);
  const [req] = await rx.waitFor((r) => r.length >= 1, 10_000);
  expect(req!.path).toBe("/hook");
  expect(verifyCallback(req!.raw, req!.headers, g.merchant.apiKey)).toBe(true);
  expect(verifyCallback(req!.raw, req!.headers, "mch_" + "0".repeat(64))).toBe(false);
  expect(JSON.parse(req!.text)).toMatchObject({ merchantUid: g.merchant.uid, businessType: "test", status: "test", eventId });

  // The delivery's outcome is written just after the receiver answered.
  const shown = await eventually(() => {
    const list = recentTestCallbacks(g.ctx.db, g.merchant.id);
    return list[0]?.state === "delivered" && list;
  }, 5000, "delivery recorded");
  expect(shown[0]).toMatchObject({ id: eventId, state: "delivered", attempts: 1, url: rx.url + "/hook" });
  expect(shown[0]!.attemptRows).toHaveLength(1);
  expect(shown[0]!.attemptRows[0]).toMatchObject({ httpStatus: 200 });
});
