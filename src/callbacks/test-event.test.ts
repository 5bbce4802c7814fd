// "Send test callback": the event goes through the ordinary outbox and worker,
// arrives signed with the merchant's key, and its delivery is recorded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { verifyCallback } from "../sdk";
import { updateMerchantSettings } from "../merchants/settings";
import { CLI_ACTOR } from "../audit/log";
import { eventually } from "../testing/wait";
import { NoDefaultCallbackUrl, recentTestCallbacks, sendTestCallback, TEST_CALLBACK_LIMIT, TestCallbackLimit } from "./test-event";
import { listCallbackRows, releaseHeldCallbacks } from "./store";

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

test("without a default callback URL there is nothing to send to", async () => {
  await expect((async () => await sendTestCallback(deps(), g.merchant.id))()).rejects.toThrow(NoDefaultCallbackUrl);
});

test("the test callback arrives signed, verifies with the SDK, and its delivery is shown", async () => {
  await updateMerchantSettings({ db: g.ctx.db, now: () => Date.now(), allowPrivateTargets: true, releaseHeldCallbacks }, g.merchant.uid, { defaultNotifyUrl: rx.url + "/hook" }, CLI_ACTOR);
  const eventId = await sendTestCallback(deps(), g.merchant.id);
  const [req] = await rx.waitFor((r) => r.length >= 1, 10_000);
  expect(req!.path).toBe("/hook");
  expect(verifyCallback(req!.raw, req!.headers, g.merchant.apiKey)).toBe(true);
  expect(verifyCallback(req!.raw, req!.headers, "mch_" + "0".repeat(64))).toBe(false);
  expect(JSON.parse(req!.text)).toMatchObject({ merchantUid: g.merchant.uid, businessType: "test", status: "test", eventId });

  // The delivery's outcome is written just after the receiver answered.
  const shown = await eventually(async () => {
    const list = await recentTestCallbacks(g.ctx.db, g.merchant.id);
    return list[0]?.state === "delivered" && list;
  }, 5000, "delivery recorded");
  expect(shown[0]).toMatchObject({ id: eventId, state: "delivered", attempts: 1, url: rx.url + "/hook" });
  expect(shown[0]!.attemptRows).toHaveLength(1);
  expect(shown[0]!.attemptRows[0]).toMatchObject({ httpStatus: 200 });
});

test("at most 5 test callbacks a minute per merchant (DESIGN 10); another merchant is not held back", async () => {
  const other = await g.newMerchant("test-limit");
  const quiet = await g.newMerchant("test-limit-2");
  for (const m of [other, quiet]) await updateMerchantSettings({ db: g.ctx.db, now: () => Date.now(), allowPrivateTargets: true, releaseHeldCallbacks }, m.uid, { defaultNotifyUrl: rx.url + "/limit" }, CLI_ACTOR);
  let t = Date.parse("2026-11-24T09:00:00Z");
  const at = () => ({ db: g.ctx.db, now: () => t });
  for (let i = 0; i < TEST_CALLBACK_LIMIT.perWindow; i++) {
    await sendTestCallback(at(), other.id);
    t += 1000;
  }
  await expect((async () => await sendTestCallback(at(), other.id))()).rejects.toThrow(TestCallbackLimit);
  expect(await sendTestCallback(at(), quiet.id)).toBeString();
  const before = (await listCallbackRows(g.ctx.db, { merchantId: other.id, limit: 100 })).length;
  expect(before).toBe(TEST_CALLBACK_LIMIT.perWindow);
  // A minute after the first one, one more is allowed.
  t = Date.parse("2026-11-24T09:01:00.001Z");
  expect(await sendTestCallback(at(), other.id)).toBeString();
  await expect((async () => await sendTestCallback(at(), other.id))()).rejects.toThrow(TestCallbackLimit);
});
