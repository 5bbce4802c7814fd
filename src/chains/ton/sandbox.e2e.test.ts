// TON in sandbox mode (DESIGN 23, `make run`): a pay-in to a UQ… wallet address completes after
// one masterchain block, an exclusive address takes any amount, a payout to an address given in
// its bounceable or raw form is stored and paid in the UQ… form.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Address } from "@ton/core";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { sandboxClient } from "../../testing/sandbox";
import { eventually } from "../../testing/wait";
import { randomTonAddress } from "./address";
import { TON_USDT_MASTER } from "./index";

type Obj = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TON: { enabled: true, block_time: "0s" } } } });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw?.stop());

describe("sandbox TON", () => {
  test("a pay-in: UQ… address, Tonkeeper link, paid from a payer's wallet and completed after one masterchain block", async () => {
    const o = await gw.client.request<Obj>("POST", "/openapi/payin/orders", { body: { chainCode: "TON", tokenSymbol: "USDT", merchantOrderNo: "ton-1", amount: "3.25", notifyUrl: "https://shop.example/cb" } });
    expect(o.address).toMatch(/^UQ[A-Za-z0-9_-]{46}$/);
    expect(o.paymentUri).toBe(`ton://transfer/${o.address}?jetton=${TON_USDT_MASTER}&amount=3250000&text=${o.orderNo}`);
    // The payer's wallet may show the same account bounceable: it is the same address.
    const bounceable = Address.parse(o.address).toString({ bounceable: true, urlSafe: true });
    await sb.transfer({ chainCode: "TON", tokenSymbol: "USDT", toAddress: bounceable, amount: "3.25" });
    await sb.mine("TON", 1);
    const done = await eventually(async () => {
      const r = await gw.client.request<Obj>("GET", `/openapi/payin/orders/${o.orderNo}`);
      return r.status === "completed" ? r : null;
    }, 20_000, "TON pay-in completed");
    expect(done.paidAmount ?? done.amount).toBe("3.250000");
  });

  test("an exclusive deposit address and a payout to a bounceable or raw address, stored as UQ…", async () => {
    const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TON", tokenSymbol: "USDT", bindKey: "ton-exclusive" } });
    expect(b.address).toMatch(/^UQ/);
    await sb.transfer({ chainCode: "TON", tokenSymbol: "USDT", toAddress: b.address, amount: "50" });
    await sb.mine("TON", 1);
    for (const [i, form] of ["bounceable", "raw"].entries()) {
      const to = randomTonAddress();
      const a = Address.parse(to);
      const given = form === "raw" ? a.toRawString() : a.toString({ bounceable: true, urlSafe: true });
      const p = await eventually(
        () => gw.client.request<Obj>("POST", "/openapi/payout/orders", { body: { chainCode: "TON", tokenSymbol: "USDT", merchantOrderNo: `ton-po-${i}`, amount: "1.5", toAddress: given, notifyUrl: "https://shop.example/po" } }).catch(() => null),
        20_000,
        "a TON payout accepted once the deposit is final",
      );
      expect(p.toAddress).toBe(to);
      const confirmed = await eventually(async () => {
        await sb.mine("TON", 1);
        const r = await gw.client.request<Obj>("GET", `/openapi/payout/orders/${p.orderNo}`);
        return r.status === "confirmed" ? r : null;
      }, 30_000, "TON payout confirmed");
      expect(confirmed.txHash).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
