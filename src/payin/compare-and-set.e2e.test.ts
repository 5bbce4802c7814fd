// No single writer assumed (issue 37): two connections on one database (as two gateways, or a CLI
// command beside a gateway; on PostgreSQL a second pool) that read the same row and apply the same
// transition apply it once and write one callback; the second sees 0 rows changed and writes nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeDb, openDb, writeTx, type Db } from "../db/client";
import { isPg } from "../db/engine";
import { openPgDb } from "../db/tx-pg";
import { tableRows } from "../testing/engine-rows";
import { callbacks as callbackRows, orderEvents } from "../db/schema";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { applyPayinEvent } from "./service";
import { orderWithNo } from "./orders-store";
import { applyPayoutEvent } from "../payout/service";
import { payoutWithOrderNo } from "../payout/store";
import { adjustFeeBalance, getPayoutControls, setPayoutControls } from "../payout/controls";

type Obj = Record<string, any>;
let gw: TestGateway;
let other: Db;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 3 } } } });
  other = isPg(gw.ctx.db) ? openPgDb(gw.ctx.config.database.url!, 2) : openDb(gw.ctx.config.database.path);
});
afterAll(async () => {
  await closeDb(other);
  await gw.stop();
});

let n = 0;
const callbacks = async (orderNo: string, status: string) => (await tableRows(gw.ctx.db, callbackRows, { orderNo, status })).length;
const events = async (orderNo: string, to: string) => (await tableRows(gw.ctx.db, orderEvents, { orderNo, toStatus: to })).length;

test("two connections expiring one pay-in: expired once, one callback", async () => {
  const o = await gw.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `CAS-${++n}`, amount: "7.5", notifyUrl: "https://shop.example/cb" },
  });
  // Both read the order in waiting_payment, then each applies the expiry in its own transaction.
  const seenByA = (await orderWithNo(gw.ctx.db, o.orderNo))!;
  const seenByB = (await orderWithNo(other, o.orderNo))!;
  const now = Date.now();
  const a = await writeTx(gw.ctx.db, async (tx) => await applyPayinEvent(tx, seenByA, { type: "expire" }, {}, now));
  const b = await writeTx(other, async (tx) => await applyPayinEvent(tx, seenByB, { type: "expire" }, {}, now + 1));
  expect(a.status).toBe("expired");
  // The second writer's compare-and-set found the order moved: it re-read it and wrote nothing.
  expect(b).toMatchObject({ status: "expired", expiredAt: a.expiredAt });
  expect(await callbacks(o.orderNo, "expired")).toBe(1);
  expect(await events(o.orderNo, "expired")).toBe(1);
});

test("a payment and a stale expiry racing: the payment stands, no expired callback", async () => {
  const o = await gw.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `CAS-${++n}`, amount: "8.5", notifyUrl: "https://shop.example/cb" },
  });
  // The expiry job read the order before the watcher (another connection) recorded its payment.
  const staleForExpiry = (await orderWithNo(other, o.orderNo))!;
  await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "8.5" });
  expect((await orderWithNo(gw.ctx.db, o.orderNo))!.status).toBe("detected");
  const after = await writeTx(other, async (tx) => await applyPayinEvent(tx, staleForExpiry, { type: "expire" }, {}, Date.now()));
  expect(after.status).toBe("detected");
  expect((await orderWithNo(gw.ctx.db, o.orderNo))!.status).toBe("detected");
  expect(await callbacks(o.orderNo, "expired")).toBe(0);
});

test("two connections confirming one payout: confirmed once, one callback, the fee debited once", async () => {
  const m = await gw.newMerchant(`cas-${++n}`);
  await setPayoutControls(gw.ctx.db, m.id, { payoutFeeFixed: "1" }, Date.now());
  await adjustFeeBalance(gw.ctx.db, m.id, "10", { ref: `cas-${n}`, now: Date.now() });
  const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `cas-${n}` } });
  const sb = sandboxClient(gw.url);
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "50" });
  await sb.mine("TRON", 3);
  const p = await m.client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `CAS-PO-${n}`, fromAddress: b.address, toAddress: randomAddress("TRON"), amount: "5", notifyUrl: "https://shop.example/po" },
  });
  expect(p.status).toBe("broadcasted");
  const seenByA = (await payoutWithOrderNo(gw.ctx.db, p.orderNo))!;
  const seenByB = (await payoutWithOrderNo(other, p.orderNo))!;
  const now = Date.now();
  await writeTx(gw.ctx.db, async (tx) => await applyPayoutEvent(tx, seenByA, { type: "confirmed" }, {}, now));
  const second = await writeTx(other, async (tx) => await applyPayoutEvent(tx, seenByB, { type: "confirmed" }, {}, now + 1));
  expect(second.status).toBe("confirmed");
  expect(await callbacks(p.orderNo, "confirmed")).toBe(1);
  expect(await events(p.orderNo, "confirmed")).toBe(1);
  expect((await getPayoutControls(gw.ctx.db, m.id)).feeBalance).toBe("9.000000");
});

test("eight creates of one amount at once (on PostgreSQL, eight transactions on the pool): the pool grows to its size, never past it; each order on an address of its own, the rest 40105", async () => {
  const answers = await Promise.all(
    Array.from({ length: 8 }, async (_, i) =>
      await gw.client
        .request<Obj>("POST", "/openapi/payin/orders", {
          body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `CAS-same-${i}`, amount: "9.5", notifyUrl: "https://shop.example/cb" },
        })
        .catch((e: { status?: number; code?: number }) => ({ refused: `${e.status}/${e.code}` })),
    ),
  );
  const made = answers.filter((a): a is Obj => !("refused" in a));
  const size = gw.ctx.config.payin.shared_pool_size;
  expect(made.length).toBe(size);
  // Two orders waiting on one address for one amount could not be told apart: never.
  expect(new Set(made.map((o) => o.address)).size).toBe(size);
  expect(answers.filter((a) => "refused" in a).map((a) => a.refused)).toEqual(Array(8 - size).fill("409/40105"));
});
