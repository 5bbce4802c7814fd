// Every status change of a pay-in or a refund (and, at their stores, of an invoice, a gas top-up and an energy delegation) is a compare-and-set on the status the transition was
// computed from (issues 36, 37: each decision is one transaction that expects a status): a row that
// moved on meanwhile is left as another writer left it, and nothing of the change is written (no
// status, no timeline entry, no callback); the funnel returns the row as it now is.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { openDb, writeTx } from "../db/client";
import { migrate } from "../db/migrate";
import { insertInvoice, invoiceById, updateInvoiceIf } from "../invoices/store";
import { insertTopup, moveTopup, topupById } from "../chains/common/store";
import { delegationById, insertDelegation, patchDelegation } from "../chains/tron/store";
import { callbacks, orderEvents, payinOrders, refunds } from "../db/schema";
import { tableRow, tableRows } from "../testing/engine-rows";
import { applyPayinEvent } from "./service";
import { applyRefundEvent } from "../payout/refund-funnel";
import { sandboxClient } from "../testing/sandbox";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

const changes = async (orderNo: string) => [(await tableRows(gw.ctx.db, callbacks, { orderNo })).length, (await tableRows(gw.ctx.db, orderEvents, { orderNo })).length];

test("a pay-in whose status moved on since it was read: the transition writes nothing and returns the row as it is", async () => {
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "cas-1", amount: "3", notifyUrl: "https://shop.example/pi" });
  const stale = (await tableRow(gw.ctx.db, payinOrders, { orderNo: o.orderNo }))!;
  await writeTx(gw.ctx.db, async (tx) => await applyPayinEvent(tx, stale, { type: "cancel" }, {}, gw.ctx.clock.now()));
  const before = await changes(o.orderNo);
  expect((await writeTx(gw.ctx.db, async (tx) => await applyPayinEvent(tx, stale, { type: "freeze" }, {}, gw.ctx.clock.now()))).status).toBe("cancelled");
  expect((await tableRow(gw.ctx.db, payinOrders, { orderNo: o.orderNo }))!.status).toBe("cancelled");
  expect(await changes(o.orderNo)).toEqual(before);
});

test("a refund whose status moved on since it was read: the transition writes nothing and returns the row as it is", async () => {
  const sb = sandboxClient(gw.url);
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "cas-2", amount: "4", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "4" });
  await sb.mine("TRON", 25);
  expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
  await gw.client.createRefund(o.orderNo, { refundNo: "cas", amount: "1" });
  const stale = (await tableRow(gw.ctx.db, refunds, { orderNo: o.orderNo }))!;
  expect(stale.status).toBe("awaiting_address");
  await writeTx(gw.ctx.db, async (tx) => await applyRefundEvent(tx, stale, { type: "address_given" }, {}, gw.ctx.clock.now()));
  const before = await changes(stale.refundRef);
  expect((await writeTx(gw.ctx.db, async (tx) => await applyRefundEvent(tx, stale, { type: "address_given" }, {}, gw.ctx.clock.now()))).status).not.toBe("awaiting_address");
  expect(await changes(stale.refundRef)).toEqual(before);
});

// The same guard on the other status funnels' writes (docs/design.md "No single writer"): a move
// from a status the row has left changes nothing and answers undefined, so the funnel
// (invoices/service.ts moveInvoice, chains/common/gas-topup.ts moveFrom, chains/tron/energy.ts
// update) re-reads the row and writes no timeline entry, callback or cost record of its own.
describe("invoices, gas top-ups and energy delegations: a status move from a status the row left writes nothing", async () => {
  const db = openDb(":memory:");
  await migrate(db);
  db.$client.run("PRAGMA foreign_keys = OFF"); // rows without their merchant and payout
  const t = 1_764_000_000_000;
  const invoice = (await writeTx(db, async (tx) => await insertInvoice(tx, {
    invoiceNo: "IV-cas", merchantId: 1, merchantOrderNo: "cas", priceAmount: "10", priceCurrency: "USD", payments: "[]", expireMinutes: 30,
    apiKeyId: "k", pageToken: "p", invoiceUrl: "https://x.example/i/p", status: "waiting_payment", expireAt: t + 1_800_000, createdAt: t, updatedAt: t,
  })))!;
  const signed = { txHash: "0x1", signedTx: "00", signedMeta: "{}", createdAt: t, updatedAt: t };
  const topup = await writeTx(db, async (tx) => await insertTopup(tx, { chain: "BSC", payoutOrderId: 1, fromAddress: "0xa", toAddress: "0xb", amount: "1", status: "signed", ...signed }));
  const delegation = await writeTx(db, async (tx) =>
    await insertDelegation(tx, { chain: "TRON", payoutOrderId: 1, owner: "Ta", receiver: "Tb", amount: "1", energy: "65000", delegateTxHash: "d1", delegateSignedTx: "00", delegateMeta: "{}", status: "signed", createdAt: t, updatedAt: t }),
  );
  test.each([
    ["invoice", (from: string, to: string) => writeTx(db, async (tx) => await updateInvoiceIf(tx, invoice.id, from, { status: to, updatedAt: t + 1 })), async () => (await invoiceById(db, invoice.id))!.status, "waiting_payment", "expired", "paid"],
    ["gas top-up", (from: string, to: string) => writeTx(db, async (tx) => await moveTopup(tx, topup.id, from as never, { status: to as never, updatedAt: t + 1 })), async () => (await topupById(db, topup.id))!.status, "signed", "broadcasted", "failed"],
    ["energy delegation", (from: string, to: string) => writeTx(db, async (tx) => await patchDelegation(tx, delegation.id, from as never, { status: to as never, updatedAt: t + 1 })), async () => (await delegationById(db, delegation.id))!.status, "signed", "broadcasted", "failed"],
  ] as const)("%s", async (_kind, move, statusNow, from, first, second) => {
    expect((await move(from, first))?.status).toBe(first);
    // A second writer that read the row in `from` too: zero rows, the first writer's change stands.
    expect(await move(from, second)).toBeUndefined();
    expect(await statusNow()).toBe(first);
  });
});
