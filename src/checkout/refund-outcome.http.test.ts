// Issue 36, the payer's side of a "Refund all": the checkout page of the cancelled order says a
// refund is on its way and links the refund page; once sent it says so, and the refund page shows
// the transaction (hash, and the explorer link where the chain is public); a refund whose sending
// failed is never "on its way" on either page; the back-office dashboard counts failed refunds.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { resolveFrozen } from "../payin/resolve";
import { renderRefundPage } from "./refund-page";
import { addUser } from "../testing/backoffice-browser";
import { backofficeSignIn } from "../testing/backoffice-client";

type Obj = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw.stop());

let n = 0;
async function shortPaid(): Promise<Obj> {
  const o = await gw.client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `ro-${++n}`, amount: "10", notifyUrl: "https://shop.example/pi" });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "9.5" });
  await sb.mine("TRON", 3);
  const got = await gw.client.getPayinOrder(o.orderNo);
  expect(got.status).toBe("frozen_abnormal");
  return got;
}
const text = async (url: string) => (await (await fetch(url)).text()).replaceAll("&#39;", "'").replaceAll("&#x27;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
const op = { actor: "ro-op", role: "operator" } as const;
const refundLink = (html: string) => /data-testid="refund-link" href="([^"]+)"/.exec(html)?.[1] ?? null;

describe("the payer's pages of an order cancelled by Refund all", () => {
  test("on its way, linked to the refund page; once sent: refunded, and the refund page shows the transaction", async () => {
    const o = await shortPaid();
    const r = await resolveFrozen(gw.ctx, o.orderNo, "refund_all", { note: "customer wants it back", toAddress: randomAddress("TRON") }, op);
    const checkout = `${o.cashierUrl}?lang=en`;
    let html = await text(checkout);
    expect(html).toContain("Order cancelled: your refund is on its way");
    expect(html).toContain("Test Shop cancelled this order and is sending 9.50 USDT back to you.");
    const link = refundLink(html);
    expect(link).toMatch(/^\/refund\/[A-Za-z0-9_-]+$/);
    // The refund was made with the payer's address: its page shows progress, no refundUrl handed out.
    expect((await gw.client.listRefunds(o.orderNo)).refunds[0]!.refundUrl).toBeNull();
    expect(await text(`${gw.url}${link}?lang=en`)).toContain("Refund on its way");
    // Chinese too.
    expect(await text(`${o.cashierUrl}?lang=zh`)).toContain("订单已取消：退款正在退回");

    await gw.gateway.runtime.payouts.attempt(r.refund!.payout!.id);
    await sb.mine("TRON", 3);
    const [sent] = (await gw.client.listRefunds(o.orderNo)).refunds;
    expect(sent!.status).toBe("confirmed");
    html = await text(checkout);
    expect(html).toContain("Order cancelled: refunded");
    expect(html).not.toContain("your refund is on its way");
    const page = await text(`${gw.url}${refundLink(html)}?lang=en`);
    expect(page).toContain("Refund sent");
    expect(page).toContain(`data-testid="refund-tx">${sent!.txHash}<`);
    // A sandbox transaction is on no public chain: no explorer link there; on a public chain, the chain's explorer.
    expect(page).not.toContain("refund-explorer-link");
    const view = { merchantName: "Test Shop", orderNo: o.orderNo, chainCode: "TRON" as const, tokenSymbol: "USDT" as const, amount: "9.5", status: "confirmed", toAddress: sent!.toAddress, txHash: sent!.txHash };
    const pub = renderRefundPage({ refund: view, token: "t", locale: "en", nonce: "n", sandbox: false });
    expect(pub).toContain(`href="https://tronscan.org/#/transaction/${sent!.txHash}"`);
    expect(pub).toContain("View transaction on Tronscan");
  });

  test("a refund whose sending failed is not on its way: both pages say it could not be sent; the dashboard counts it", async () => {
    const o = await shortPaid();
    // The money left the receiving address on chain: the node refuses the refund for good.
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", fromAddress: o.address, toAddress: randomAddress("TRON"), amount: "9.5" });
    const who = await addUser(gw, "ro-op-user", "operator");
    const bo = await backofficeSignIn(gw.url, who);
    const counts = async () => (await (await bo.get("/backoffice/counts.json")).json()) as Obj;
    const before = (await counts()).failedRefunds;
    const r = await resolveFrozen(gw.ctx, o.orderNo, "refund_all", { note: "customer wants it back", toAddress: randomAddress("TRON") }, op);
    const failed = await gw.gateway.runtime.payouts.attempt(r.refund!.payout!.id);
    expect(failed).toMatchObject({ status: "failed" });
    const html = await text(`${o.cashierUrl}?lang=en`);
    expect(html).not.toContain("your refund is on its way");
    expect(html).toContain("Order cancelled: the refund could not be sent");
    expect(html).toContain("its refund of 9.50 USDT could not be sent: nothing was sent.");
    const page = await text(`${gw.url}${refundLink(html)}?lang=en`);
    expect(page).toContain("The refund could not be sent");
    expect(page).not.toContain("Refund on its way");
    expect((await counts()).failedRefunds).toBe(before + 1);
    const dash = await (await bo.get("/backoffice")).text();
    expect(dash).toContain("Failed refunds");
    expect(dash).toMatch(new RegExp(`data-count="failedRefunds">${before + 1}<`));
  });
});
