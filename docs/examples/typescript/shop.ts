// A shop's whole integration with @stablegate/sdk, runnable against a sandbox
// gateway (`make run`): take a payment, verify its callbacks, pay out.
//   npm install /path/to/stablegate/src/sdk
//   STABLEGATE_URL=http://127.0.0.1:8080 STABLEGATE_MERCHANT_UID=M… STABLEGATE_API_KEY=mch_… npm run build && npm start
import { createServer } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { ApiError, StablegateClient, verifyCallback, type PayinCallback, type PayoutCallback } from "@stablegate/sdk";

const baseUrl = process.env.STABLEGATE_URL ?? "http://127.0.0.1:8080";
const merchantUid = process.env.STABLEGATE_MERCHANT_UID ?? "";
const apiKey = process.env.STABLEGATE_API_KEY ?? "";
const client = new StablegateClient({ baseUrl, merchantUid, apiKey, retries: 2 });

// 1. The callback endpoint. Verify the raw bytes first; only then parse and act.
type Callback = PayinCallback | PayoutCallback;
const callbacks: Callback[] = [];
const waiters: Array<() => void> = [];
const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  if (!verifyCallback(raw, req.headers, apiKey)) {
    res.writeHead(401).end("bad signature");
    return;
  }
  const event = JSON.parse(raw.toString("utf8")) as Callback;
  // Update your order here, idempotently: the same callback can arrive twice.
  callbacks.push(event);
  waiters.splice(0).forEach((w) => w());
  res.writeHead(200).end("ok");
});
server.listen(0, process.env.CALLBACK_HOST ?? "127.0.0.1");
await once(server, "listening");
const notifyUrl = `http://${process.env.CALLBACK_HOST ?? "127.0.0.1"}:${(server.address() as AddressInfo).port}/stablegate/callback`;

async function callbackFor(orderNo: string, status: string, timeoutMs = 20_000): Promise<Callback> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = callbacks.find((c) => c.orderNo === orderNo && c.status === status);
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no ${status} callback for ${orderNo}`);
    await new Promise<void>((r) => {
      waiters.push(r);
      setTimeout(r, 250);
    });
  }
}

// Sandbox gateways only: stand in for the payer's wallet and the chain's blocks.
async function sandbox(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${baseUrl}/sandbox/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`sandbox ${path}: ${res.status} ${await res.text()}`);
}

const run = Date.now().toString(36);
try {
  // 2. Take a payment: send the payer to cashierUrl (or show paymentUri as a QR).
  const order = await client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `ORD-${run}`, amount: "12.5", notifyUrl });
  console.log(`pay-in ${order.orderNo}: pay ${order.amount} ${order.tokenSymbol} to ${order.address} (${order.cashierUrl})`);

  await sandbox("transfers", { chainCode: "TRON", tokenSymbol: "USDT", toAddress: order.address, amount: "12.5" });
  await sandbox("blocks", { chainCode: "TRON", count: 25 });

  const paid = (await callbackFor(order.orderNo, "completed")) as PayinCallback;
  console.log(`callback verified: ${paid.orderNo} ${paid.status} paid ${paid.paidAmount}`);
  const settled = await client.getPayinOrder(order.orderNo);
  if (settled.status !== "completed") throw new Error(`order is ${settled.status}`);

  // 3. Pay out from the address that received the money.
  const payout = await client.createPayoutOrder({
    chainCode: "TRON",
    tokenSymbol: "USDT",
    fromAddress: order.address,
    toAddress: "TLQDHv3q79uES4Re5uhcikPYB7RtyNk5Qo",
    amount: "5",
    merchantOrderNo: `PAY-${run}`,
    notifyUrl,
  });
  console.log(`payout ${payout.orderNo}: ${payout.status}`);
  await sandbox("blocks", { chainCode: "TRON", count: 25 });
  await callbackFor(payout.orderNo, "confirmed");
  const done = await client.getPayoutOrder(payout.orderNo);
  console.log(`payout ${done.orderNo}: ${done.status} tx ${done.txHash}`);
  if (done.status !== "confirmed") throw new Error(`payout is ${done.status}`);

  // 4. Refund part of the order to the payer: sent as a payout; refund callbacks follow its status.
  const refund = await client.createRefund(order.orderNo, { refundNo: `RF-${run}`, amount: "2.5", toAddress: "TLQDHv3q79uES4Re5uhcikPYB7RtyNk5Qo", notifyUrl });
  console.log(`refund ${refund.refundNo}: ${refund.amount} ${refund.status} (payout ${refund.payoutOrderNo})`);
  await sandbox("blocks", { chainCode: "TRON", count: 25 });
  const [sent] = (await client.listRefunds(order.orderNo)).refunds;
  if (sent?.status !== "confirmed") throw new Error(`refund is ${sent?.status}`);

  // 5. An invoice: a price in your currency; the payer picks the network at invoiceUrl
  //    (among `payments`, "CHAIN:TOKEN" pairs of networks the gateway runs; left out: all of them).
  const invoice = await client.createInvoice({ merchantOrderNo: `INV-${run}`, priceAmount: "19.90", priceCurrency: "USD", description: "Tea set", payments: ["TRON:USDT", "PLASMA:USDT"], notifyUrl });
  console.log(`invoice ${invoice.invoiceNo}: ${invoice.priceAmount} ${invoice.priceCurrency}, ${invoice.status} at ${invoice.invoiceUrl}`);

  // 6. Failures are ApiErrors: log code, message and requestId.
  try {
    await client.getPayinOrder("PI-no-such-order");
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    console.log(`expected failure: ${e.status} ${e.code} ${e.message} (requestId ${e.requestId})`);
  }
  console.log("OK");
} finally {
  server.close();
}
