// End to end with the pay-in flow: an order paid on the sandbox chain calls
// the merchant back, in order, signed with the order's key.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { verifyCallbackSignature } from "../auth/signing";
import { verifyCallback } from "../sdk/callback";
import { Value } from "@sinclair/typebox/value";
import { PayinCallbackPayload } from "../payin/schemas";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { startReceiver } from "../testing/receiver";

let gw: TestGateway;
const rx = startReceiver([{ status: 200 }]);

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TRON: { confirmations: 2 } }, callbacks: { retry_delays: ["300ms", "600ms"] } } });
});
afterAll(async () => {
  await gw.stop();
  await rx.stop();
});

test("a paid order's callbacks arrive in order, signed, with spec 6.3 fields", async () => {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.request<Record<string, any>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "E2E-1", amount: "25", notifyUrl: rx.url + "/payin" },
  });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "25" });
  await sb.mine("TRON", 1);
  const reqs = await rx.waitFor((r) => r.some((x) => JSON.parse(x.text).status === "completed"), 10_000);
  const bodies = reqs.map((r) => JSON.parse(r.text));
  const statuses = bodies.map((b) => b.status);
  // Arrival order follows the order's life: never "completed" before "detected".
  const rank = ["waiting_payment", "detected", "confirming", "completed"];
  expect(statuses).toContain("detected");
  expect(statuses.map((s) => rank.indexOf(s))).toEqual(statuses.map((s) => rank.indexOf(s)).toSorted((a, b) => a - b));
  expect(statuses.at(-1)).toBe("completed");
  for (const r of reqs) {
    const h = r.headers;
    expect(r.path).toBe("/payin");
    expect(verifyCallbackSignature(gw.merchant.apiKey, h["x-callback-timestamp"], h["x-callback-nonce"], r.raw, h["x-callback-signature"])).toBe(true);
    // The merchant client's verifier, and an HMAC computed independently over the raw bytes.
    expect(verifyCallback(r.raw, h, gw.merchant.apiKey)).toBe(true);
    const independent = createHmac("sha256", gw.merchant.apiKey)
      .update(Buffer.concat([Buffer.from(`${h["x-callback-timestamp"]}.${h["x-callback-nonce"]}.`), Buffer.from(r.raw)]))
      .digest("hex");
    expect(h["x-callback-signature"]).toBe(independent);
    expect(h["x-callback-signature-algorithm"]).toBe("HMAC-SHA256");
    expect(h["x-callback-signature-version"]).toBe("v1");
    // A body re-serialized after receipt must fail.
    expect(verifyCallback(JSON.stringify(JSON.parse(r.text), null, 2), h, gw.merchant.apiKey)).toBe(false);
  }
  // Every body is what the OpenAPI document promises.
  for (const b of bodies) expect([...Value.Errors(PayinCallbackPayload, b)].map((e) => e.path)).toEqual([]);
  const done = bodies.at(-1);
  expect(done).toMatchObject({ merchantUid: gw.merchant.uid, orderNo: o.orderNo, merchantOrderNo: "E2E-1", chainCode: "TRON", tokenSymbol: "USDT" });
  expect(typeof done.paidAmount).toBe("string");
  expect(done.eventId).toMatch(/^EV/);
  expect(new Set(bodies.map((b) => b.eventId)).size).toBe(bodies.length);
});

test("an order created after `key rotate`, even by a request signed with the old key, calls back signed with the new key", async () => {
  const { rotateKey } = await import("../merchants/service");
  const { StablegateClient } = await import("../sdk/client");
  const m = await gw.newMerchant("rotating");
  const before = await m.client.request<Record<string, any>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "ROT-1", amount: "3", notifyUrl: rx.url + "/rot" },
  });
  const { apiKey: newKey } = await rotateKey({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => gw.ctx.clock.now() }, m.uid, 60_000);
  // The old key still signs requests during the grace period.
  const after = await m.client.request<Record<string, any>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "ROT-2", amount: "4", notifyUrl: rx.url + "/rot" },
  });
  const fresh = new StablegateClient({ baseUrl: gw.url, merchantUid: m.uid, apiKey: newKey });
  expect((await fresh.request<Record<string, any>>("GET", `/openapi/payin/orders/${after.orderNo}`)).orderNo).toBe(after.orderNo);
  const reqs = await rx.waitFor((r) => [before.orderNo, after.orderNo].every((no) => r.some((x) => x.text.includes(no))), 10_000);
  const signedWith = (orderNo: string) => {
    const r = reqs.find((x) => x.text.includes(orderNo))!;
    return { old: verifyCallback(r.raw, r.headers, m.apiKey), new: verifyCallback(r.raw, r.headers, newKey) };
  };
  expect(signedWith(before.orderNo)).toEqual({ old: true, new: false });
  expect(signedWith(after.orderNo)).toEqual({ old: false, new: true });
});
