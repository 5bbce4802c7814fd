// Refunds and the guided resolution of frozen orders in the back office (issue 28), over plain
// HTTP: the three choices (accept as paid, refund all, refund the difference), by an operator and
// by a merchant user, each with the status and callbacks it promised, the password asked for, and
// the note in the audit log; "Refund" on a paid order and on an unmatched deposit; a merchant user
// never reaches another merchant's order or deposit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { backofficeSignIn, type BackofficeClient } from "../testing/backoffice-client";
import { randomAddress } from "../wallet/hd";
import { listAudit } from "../audit/log";
import { callbacks as callbackRows, refunds, transfers } from "../db/schema";
import { tableRow, tableRows } from "../testing/engine-rows";
import type { StablegateClient } from "../sdk/client";
import { addUser } from "../testing/backoffice-browser";

type Obj = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
let op: { bo: BackofficeClient; password: string };
let shop: { bo: BackofficeClient; password: string };
let other: Awaited<ReturnType<TestGateway["newMerchant"]>>;
let otherUser: { bo: BackofficeClient; password: string };

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
  sb = sandboxClient(gw.url);
  other = await gw.newMerchant("Other Shop");
  const sign = async (u: { username: string; password: string }) => ({ bo: await backofficeSignIn(gw.url, u), password: u.password });
  op = await sign(await addUser(gw, "refund-op", "operator"));
  shop = await sign(await addUser(gw, "refund-shop", "merchant", gw.merchant.uid));
  otherUser = await sign(await addUser(gw, "refund-other", "merchant", other.uid));
});
afterAll(() => gw.stop());

let n = 0;
/** A TRON order of `amount` paid `paid` (a frozen order when they differ), final. */
async function order(client: StablegateClient, amount: string, paid: string): Promise<Obj> {
  const o = await client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `bo-rf-${++n}`, amount, notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: paid });
  await sb.mine("TRON", 3);
  return client.getPayinOrder(o.orderNo);
}
const callbacks = async (orderNo: string) => (await tableRows(gw.ctx.db, callbackRows, { orderNo })).map((c) => ({ kind: c.kind, status: c.status }));
const refundRows = async (orderNo: string) => await tableRows(gw.ctx.db, refunds, { orderNo });
const refundCallbacks = async (orderNo: string) => (await Promise.all((await refundRows(orderNo)).map(async (r) => (await callbacks(r.refundRef)).map((c) => c.status)))).flat();

/**
 * A refund just created, before any block: `submitted` (spec 3.2), or already `broadcasted` when the
 * executor ran in between. On PostgreSQL the payout's insert wakes the leader's executor at once
 * (DESIGN 22, cluster/notify.ts), even with the jobs off; on SQLite nothing runs it until the test
 * ticks it. It cannot be further along: no block is mined until the test mines one.
 */
const JUST_CREATED = expect.stringMatching(/^(submitted|broadcasted)$/);

/** A page's text with the entities the pages write decoded. */
const body = async (r: Response) => (await r.text()).replaceAll("&#x27;", "'").replaceAll("&#39;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");

/** Posts the guided resolution, confirmed with the password; returns the response. */
function resolve(who: { bo: BackofficeClient; password: string }, orderNo: string, fields: Record<string, string>) {
  return who.bo.post(`/backoffice/orders/${orderNo}/resolve`, { ...fields, _reauth: who.password });
}

describe("a frozen order's one guided choice", () => {
  for (const [role, who] of [["operator", () => op], ["merchant user", () => shop]] as const) {
    test(`${role}: the page says why it is held and what each choice produces; the password is asked for`, async () => {
      const o = await order(gw.client, "10", "12");
      expect(o).toMatchObject({ status: "frozen_abnormal", paidAmount: "12.000000" });
      const page = await body(await who().bo.get(`/backoffice/orders/${o.orderNo}`));
      expect(page).toContain("On hold because it was paid more than the order amount.");
      expect(page).toContain("Accept as paid");
      expect(page).toContain("The order becomes completed; the merchant gets a pay-in callback with status completed.");
      expect(page).toContain("Refund all");
      expect(page).toContain("The order becomes cancelled (pay-in callback with status cancelled) and the 12.000000 USDT received goes back");
      expect(page).toContain("Refund the difference");
      expect(page).toContain("the 2.000000 USDT paid over the amount goes back");
      // Without the password: the confirmation step, nothing changed.
      const ask = await who().bo.post(`/backoffice/orders/${o.orderNo}/resolve`, { choice: "accept", note: "fine" });
      expect(await body(ask)).toContain("Confirm it is you");
      expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("frozen_abnormal");
      // Without a note: refused, nothing changed.
      const bare = await resolve(who(), o.orderNo, { choice: "accept", note: " " });
      expect(await body(bare)).toContain("Write a note");
      expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("frozen_abnormal");
    });

    test(`${role}: accept as paid — completed, its callback, the note in the audit log`, async () => {
      const o = await order(gw.client, "10", "12");
      const r = await resolve(who(), o.orderNo, { choice: "accept", note: `customer tipped (${role})` });
      expect([r.status, r.headers.get("location")]).toEqual([303, `/backoffice/orders/${o.orderNo}?done=resolved`]);
      expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
      expect((await callbacks(o.orderNo)).map((c) => c.status).slice(-1)).toEqual(["completed"]);
      expect(await refundRows(o.orderNo)).toEqual([]);
      const resolved = (await listAudit(gw.ctx.db, { target: `payin:${o.orderNo}`, action: "payin.resolve" })).entries;
      expect(resolved).toHaveLength(1);
      expect(JSON.stringify(resolved[0])).toContain(`customer tipped (${role})`);
    });

    test(`${role}: refund all — cancelled, the whole payment refunded to the payer's address, callbacks of both`, async () => {
      const o = await order(gw.client, "10", "9.5");
      const to = randomAddress("TRON");
      const r = await resolve(who(), o.orderNo, { choice: "refund_all", note: "short: customer asked for the money back", toAddress: to });
      expect(r.status).toBe(303);
      expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("cancelled");
      expect((await callbacks(o.orderNo)).map((c) => c.status).slice(-1)).toEqual(["cancelled"]);
      const [rf] = (await gw.client.listRefunds(o.orderNo)).refunds;
      expect(rf).toMatchObject({ amount: "9.500000", toAddress: to, status: JUST_CREATED });
      // The payment stays the order's: not an unmatched deposit to refund a second time.
      const t = (await tableRow(gw.ctx.db, transfers, { txHash: o.txHash }))!;
      expect(t.disposition).not.toBe("unmatched");
      await gw.gateway.runtime.payouts.tick("TRON");
      await sb.mine("TRON", 3);
      expect((await gw.client.listRefunds(o.orderNo)).refunds[0]!.status).toBe("confirmed");
      expect(await refundCallbacks(o.orderNo)).toEqual(["submitted", "broadcasted", "confirmed"]);
      // The order page lists the refund's callbacks too (with "Resend").
      const page = await body(await who().bo.get(`/backoffice/orders/${o.orderNo}`));
      const ref = (await refundRows(o.orderNo))[0]!.refundRef;
      for (const c of await tableRows(gw.ctx.db, callbackRows, { orderNo: ref })) expect(page).toContain(c.id);
    });

    test(`${role}: refund the difference — completed, the excess refunded through a link when no address is given`, async () => {
      const o = await order(gw.client, "10", "13");
      const r = await resolve(who(), o.orderNo, { choice: "refund_difference", note: "paid 3 too much", toAddress: "" });
      expect(r.status).toBe(303);
      expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("completed");
      expect((await callbacks(o.orderNo)).map((c) => c.status).slice(-1)).toEqual(["completed"]);
      const [rf] = (await gw.client.listRefunds(o.orderNo)).refunds;
      expect(rf).toMatchObject({ amount: "3.000000", status: "awaiting_address", toAddress: null });
      expect(rf!.refundUrl).toContain("/refund/");
      expect(await refundCallbacks(o.orderNo)).toEqual(["awaiting_address"]);
      const page = await body(await who().bo.get(`/backoffice/orders/${o.orderNo}`));
      expect(page).toContain(rf!.refundUrl!);
    });
  }

  test("a choice the order does not offer is refused (refund the difference on a short payment)", async () => {
    const o = await order(gw.client, "10", "9");
    // The payer's checkout says why (short), in both languages.
    expect(await body(await fetch(`${o.cashierUrl}?lang=en`))).toContain("Less than the order amount was received: 9.00 USDT of 10.00 USDT.");
    expect(await body(await fetch(`${o.cashierUrl}?lang=zh`))).toContain("收到的金额少于订单金额：收到 9.00 USDT，订单 10.00 USDT。");
    const r = await resolve(op, o.orderNo, { choice: "refund_difference", note: "x" });
    expect(await body(r)).toContain("is not a choice for order");
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("frozen_abnormal");
  });

  test("a merchant user reaches only its own frozen orders: another merchant's is not found, and not in its queue", async () => {
    const o = await order(gw.client, "10", "11");
    const r = await resolve(otherUser, o.orderNo, { choice: "accept", note: "not mine" });
    expect(r.status).toBe(404);
    expect((await gw.client.getPayinOrder(o.orderNo)).status).toBe("frozen_abnormal");
    const queue = await body(await otherUser.bo.get("/backoffice/exceptions"));
    expect(queue).not.toContain(o.orderNo);
    expect(await body(await shop.bo.get("/backoffice/exceptions"))).toContain(o.orderNo);
  });
});

describe("Refund in the back office", () => {
  test("on a paid order: to the payer's address; over the refundable amount is refused and writes nothing", async () => {
    const o = await order(gw.client, "8", "8");
    const to = randomAddress("TRON");
    const over = await shop.bo.post(`/backoffice/orders/${o.orderNo}/refund`, { amount: "8.5", toAddress: to, mode: "address", _reauth: shop.password });
    expect(await body(over)).toContain("That is more than can be refunded (8.000000 left).");
    const own = await shop.bo.post(`/backoffice/orders/${o.orderNo}/refund`, { amount: "1", toAddress: o.address, mode: "address", _reauth: shop.password });
    expect(await body(own)).toContain("one of the merchant's own");
    expect(await refundRows(o.orderNo)).toEqual([]);
    const ok = await shop.bo.post(`/backoffice/orders/${o.orderNo}/refund`, { amount: "5", toAddress: to, mode: "address", _reauth: shop.password });
    expect(ok.headers.get("location")).toBe(`/backoffice/orders/${o.orderNo}?done=refunded`);
    expect((await gw.client.listRefunds(o.orderNo)).refunds).toMatchObject([{ amount: "5.000000", toAddress: to, status: JUST_CREATED }]);
    const link = await op.bo.post(`/backoffice/orders/${o.orderNo}/refund`, { amount: "3", toAddress: "", mode: "link", _reauth: op.password });
    expect(link.status).toBe(303);
    expect((await gw.client.listRefunds(o.orderNo)).refunds.map((r) => r.status)).toEqual([JUST_CREATED, "awaiting_address"]);
    // Another merchant's user: the order does not exist for it.
    expect((await otherUser.bo.post(`/backoffice/orders/${o.orderNo}/refund`, { amount: "1", mode: "link", _reauth: otherUser.password })).status).toBe(404);
  });

  test("on an unmatched deposit (replaces Mark refunded): the merchant user refunds its own deposit; the deposit is resolved as refunded", async () => {
    const paid = await order(gw.client, "4", "4");
    const stray = await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: paid.address, amount: "0.7" });
    await sb.mine("TRON", 3);
    const t = (await tableRow(gw.ctx.db, transfers, { txHash: String(stray.txHash) }))!;
    expect(t.unmatchedReason).not.toBeNull();
    const page = await body(await shop.bo.get(`/backoffice/deposits/${t.id}`));
    expect(page).toContain("Payer's address");
    expect(page).toContain("Send a refund link");
    expect(page).not.toContain("Mark refunded");
    expect((await otherUser.bo.post(`/backoffice/deposits/${t.id}/refund`, { amount: "0.7", toAddress: t.fromAddress, mode: "address", _reauth: otherUser.password })).status).toBe(404);
    const r = await shop.bo.post(`/backoffice/deposits/${t.id}/refund`, { amount: "0.7", toAddress: t.fromAddress, mode: "address", _reauth: shop.password });
    expect(r.headers.get("location")).toBe(`/backoffice/deposits/${t.id}?done=refunded`);
    const after = (await tableRow(gw.ctx.db, transfers, { id: t.id }))!;
    const rf = (await tableRow(gw.ctx.db, refunds, { transferId: t.id }))!;
    expect(after).toMatchObject({ resolution: "refunded", resolutionRef: rf.refundRef });
    expect(rf).toMatchObject({ amount: "700000", toAddress: t.fromAddress, status: JUST_CREATED, apiKeyId: null });
    await gw.gateway.runtime.payouts.tick("TRON");
    await sb.mine("TRON", 3);
    expect((await tableRow(gw.ctx.db, refunds, { id: rf.id }))!.status).toBe("confirmed");
  });
});
