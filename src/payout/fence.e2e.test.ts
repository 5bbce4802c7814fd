// The epoch fence on payouts (DESIGN 22, cluster/fence.ts): on PostgreSQL a payout's signed
// transaction is stored only in a transaction that holds the current leader epoch, so a gateway
// that does not lead (no epoch held, or a stale one after a takeover) stores nothing and sends
// nothing; the order waits, submitted and without an error, for the leader. SQLite has one gateway
// (the fence is a no-op there): the file runs on PostgreSQL whatever SG_TEST_DB says.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import type { SandboxChain } from "../chains/sandbox/chain";
import { payoutOrders } from "../db/schema";
import { tableRow } from "../testing/engine-rows";
import { randomAddress } from "../wallet/hd";
import { heldEpoch, holdEpoch } from "../cluster/fence";

type Obj = Record<string, any>;
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
let tron: SandboxChain;

beforeAll(async () => {
  gw = await startTestGateway({ engine: "pg", jobs: false, config: { chains: { TRON: { confirmations: 3 } } } });
  sb = sandboxClient(gw.url);
  tron = gw.ctx.chains.get("TRON") as SandboxChain;
});
afterAll(() => gw.stop());

async function funded(amount: string): Promise<string> {
  const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: `fence-${amount}` } });
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount });
  await sb.mine("TRON", 2);
  return b.address;
}
const stored = async (orderNo: string) => (await tableRow(gw.ctx.db, payoutOrders, { orderNo }))!;
const submit = (orderNo: string) => gw.client.request<Obj>("POST", `/openapi/payout/orders/${orderNo}/submit`, { body: { remark: "leader" } });

test("without the current epoch a payout's signed transaction is not stored and nothing is broadcast; with it, it is", async () => {
  const current = heldEpoch(gw.ctx.db);
  expect(current).not.toBeNull();
  const from = await funded("10");

  // No epoch held (a follower, or a leader that lost its lock): created, not signed, not sent.
  holdEpoch(gw.ctx.db, null);
  const o = await gw.client.request<Obj>("POST", "/openapi/payout/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "FENCE-1", fromAddress: from, toAddress: randomAddress("TRON"), amount: "3", notifyUrl: "https://shop.example/po" },
  });
  expect(o).toMatchObject({ status: "submitted", txHash: null, lastError: null });
  expect(await stored(o.orderNo)).toMatchObject({ status: "submitted", signedTx: null, txHash: null, lastError: null });
  expect(await tron.outgoingCount(from)).toBe(0);

  // A stale epoch (the cluster moved on after a takeover): still nothing stored or sent.
  holdEpoch(gw.ctx.db, current! - 1);
  expect(await submit(o.orderNo)).toMatchObject({ status: "submitted", txHash: null });
  expect((await stored(o.orderNo)).signedTx).toBeNull();
  expect(await tron.outgoingCount(from)).toBe(0);

  // The current epoch: stored, then broadcast, once.
  holdEpoch(gw.ctx.db, current);
  const s = await submit(o.orderNo);
  expect(s).toMatchObject({ status: "broadcasted" });
  const row = await stored(o.orderNo);
  expect(row.signedTx).not.toBeNull();
  expect(row.txHash).toBe(s.txHash);
  expect(await tron.outgoingCount(from)).toBe(1);
  await sb.mine("TRON", 3);
  expect((await stored(o.orderNo)).status).toBe("confirmed");
  expect(await tron.outgoingCount(from)).toBe(1);
});
