// Balances beside the chain's last reading; a difference is listed as a mismatch.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { seedRows } from "../testing/seed";
import { sandboxClient } from "../testing/sandbox";
import { reconcileChain } from "../payout/balances";
import { ledgerEntries } from "../db/schema";
import type { ChainAdapter } from "../chains/types";
import { balanceSheet, reconciliationMismatches, sheetTotals } from "./balances";

type Obj = Record<string, any>;
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
});
afterAll(() => gw.stop());

test("per address: ledger, reserved and available beside the on-chain reading; a difference is a listed mismatch", async () => {
  const sb = sandboxClient(gw.url);
  const m = await gw.newMerchant("bal");
  const other = await gw.newMerchant("other");
  const addr: string[] = [];
  for (const [c, key, amt] of [[m.client, "a", "70"], [m.client, "b", "30.5"], [other.client, "c", "9"]] as const) {
    const b = await c.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: key } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: amt });
    addr.push(b.address);
  }
  await sb.mine("TRON", 2);
  const tron = gw.ctx.chains.get("TRON") as ChainAdapter;

  // Before the reconciliation job ran there is no reading yet.
  expect((await balanceSheet(gw.ctx.db, { merchantId: m.id })).map((l) => [l.address, l.available, l.chainBalance, l.status])).toEqual([
    [addr[0], "70000000", null, "unchecked"],
    [addr[1], "30500000", null, "unchecked"],
  ]);
  await reconcileChain(gw.ctx, tron);
  const sheet = await balanceSheet(gw.ctx.db, { merchantId: m.id });
  expect(sheet.map((l) => [l.address, l.available, l.chainBalance, l.status])).toEqual([
    [addr[0], "70000000", "70000000", "ok"],
    [addr[1], "30500000", "30500000", "ok"],
  ]);
  expect(sheetTotals(sheet)).toEqual([{ chain: "TRON", token: "USDT", available: "100500000", ledger: "100500000", addresses: 2, mismatches: 0 }]);
  expect(await reconciliationMismatches(gw.ctx.db)).toEqual([]);

  // The ledger and the chain disagree (here: a ledger entry the chain never saw).
  const id = (gw.ctx.db.$client.query("SELECT id FROM addresses WHERE address = ?").get(addr[1]) as { id: string }).id;
  await seedRows(gw.ctx.db, (tx) => void tx.insert(ledgerEntries).values({ addressId: id, chain: "TRON", token: "USDT", kind: "adjustment", amount: "5000000", refType: "test", refId: "x", createdAt: Date.now() }).run());
  await reconcileChain(gw.ctx, tron);
  expect(await reconciliationMismatches(gw.ctx.db)).toEqual([
    expect.objectContaining({ chain: "TRON", token: "USDT", address: addr[1], merchantUid: m.uid, ledger: "35500000", chainBalance: "30500000", difference: "-5000000" }),
  ]);
  expect((await balanceSheet(gw.ctx.db, { merchantId: m.id })).find((l) => l.address === addr[1])).toMatchObject({ status: "mismatch", difference: "-5000000" });
  // A merchant's sheet never shows another merchant's addresses.
  expect((await balanceSheet(gw.ctx.db, { merchantId: other.id })).map((l) => l.address)).toEqual([addr[2]]);
});

test("ledger sums are exact beyond 64 bits and with negative entries", async () => {
  const m = await gw.newMerchant("big");
  const id = "ADBIGSUM" + m.id;
  const amounts = ["123456789012345678901234", "-5", "-1234567890123456", "999999999999", "1000000000000", "-999999999999999999999", "7"];
  await seedRows(gw.ctx.db, (tx) => {
    tx.$client.query("INSERT INTO addresses (id, merchant_id, chain, kind, derivation_index, address, created_at) VALUES (?, ?, 'BSC', 'exclusive', ?, ?, 0)").run(id, m.id, 900000 + m.id, "0xbig" + m.id);
    amounts.forEach((amount, i) =>
      tx.insert(ledgerEntries).values({ addressId: id, chain: "BSC", token: "USDT", kind: "adjustment", amount, refType: "t", refId: `big-${m.id}-${i}`, createdAt: 0 }).run(),
    );
  });
  const line = (await balanceSheet(gw.ctx.db, { merchantId: m.id }))[0]!;
  expect(BigInt(line.ledger)).toBe(amounts.reduce((s, a) => s + BigInt(a), 0n));
  expect(line.available).toBe(line.ledger);
});
