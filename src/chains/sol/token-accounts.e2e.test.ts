// Solana receiving addresses get their token accounts (USDC and USDT) from the gas wallet, on
// the LiteSVM node behind JSON-RPC: before anyone pays, rent recorded (and in the fee ledger),
// nothing done twice; an address made before a token was added gets that token's account.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { startSolFixture, type SolFixture } from "../../testing/sol-fixture";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { addressBook, gasWallet, findAddress } from "../../wallet/addresses";
import type { SolAdapter } from "./adapter";
import { mintSet, provisionSolTokenAccounts, requeueForMints, solTokenAccountOf, solTokenAccountSpend } from "./token-accounts";
import { solTokenAccounts, transferCosts } from "../../db/schema";
import { tableRow, updateRows } from "../../testing/engine-rows";
import { TEST_ENGINE } from "../../testing/engines";
import { heldEpoch, holdEpoch } from "../../cluster/fence";

type Obj = Record<string, any>;
const RENT = 2_039_280n;
const FEE = 5_000n;
let fx: SolFixture;
let gw: TestGateway;
let sol: SolAdapter;

beforeAll(async () => {
  fx = await startSolFixture({ confirmedLag: 1, finalizedLag: 4 });
  gw = await startTestGateway({ jobs: false, config: { sandbox: { allow_mixed: true }, chains: { SOL: { mode: "rpc", rpc_urls: [fx.proxy.url], confirmations: 4 } } } });
  sol = gw.ctx.chains.get("SOL") as SolAdapter;
});
afterAll(async () => {
  await gw?.stop();
  await fx?.stop();
});

const run = () => provisionSolTokenAccounts(gw.ctx, sol, addressBook);
const accountExists = async (owner: string, token: "USDC" | "USDT" = "USDC") => (await fx.conn.getAccountInfo(new PublicKey(sol.tokenAccountOf(owner, token)), "confirmed")) !== null;
const costOfTx = async (txHash: string) => await tableRow(gw.ctx.db, transferCosts, { txHash });
let n = 0;
const order = () =>
  gw.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "SOL", tokenSymbol: "USDC", merchantOrderNo: `ata-${++n}`, amount: "5", notifyUrl: "https://shop.example/cb" },
  });
const rowOf = async (address: string) => (await solTokenAccountOf(gw.ctx, (await findAddress(gw.ctx.db, "SOL", address))!.id))!;

async function untilFinal(address: string) {
  for (let i = 0; i < 10 && !["created", "existed"].includes((await rowOf(address)).status); i++) {
    fx.node.advance(2);
    await run();
  }
  return await rowOf(address);
}

describe("token accounts of Solana receiving addresses", () => {
  test("an empty gas wallet: the address waits (signed, stored), nothing is lost; funded, the account is created and its rent recorded", async () => {
    const o = await order();
    expect(await accountExists(o.address)).toBe(false);
    await run();
    let row = await rowOf(o.address);
    expect(row.status).toBe("signed");
    expect(row.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(row.lastError).toContain("lamports");
    const firstTx = row.txHash;

    const gas = await gasWallet(gw.ctx.db, sol, gw.ctx.seed, Date.now());
    fx.node.airdrop(gas.address, 1_000_000_000n);
    await run();
    row = await rowOf(o.address);
    expect(row.status).toBe("broadcasted");
    expect(row.txHash).toBe(firstTx); // the stored transaction, not a new one
    row = await untilFinal(o.address);
    // One transaction creates both accounts (USDC and USDT): two rents, one fee.
    expect(row).toMatchObject({ status: "created", rentLamports: String(2n * RENT), feeLamports: String(FEE), mints: mintSet(sol), lastError: null });
    expect(await accountExists(o.address, "USDC")).toBe(true);
    expect(await accountExists(o.address, "USDT")).toBe(true);
    expect(fx.node.lamports(gas.address)).toBe(1_000_000_000n - 2n * RENT - FEE);
    expect(fx.node.lamports(o.address)).toBe(0n); // the receiving wallet itself holds nothing
    expect(await solTokenAccountSpend(gw.ctx)).toEqual({ accounts: 1, rentLamports: 2n * RENT, feeLamports: FEE });
    // Its cost is recorded (DESIGN 21): exactly what the gas wallet spent.
    expect(await costOfTx(firstTx!)).toMatchObject({ chain: "SOL", kind: "token_account", nativeBurned: String(2n * RENT + FEE), payoutOrderId: null });

    // Done is done: later runs spend nothing more.
    await run();
    fx.node.advance(3);
    await run();
    expect(fx.node.lamports(gas.address)).toBe(1_000_000_000n - 2n * RENT - FEE);

    // A payer that does not create accounts (plain transfer to the existing ATA) pays, and it is detected.
    await fx.pay(fx.payer(5_000_000n), [[o.address, 5_000_000n]], { plain: true });
    fx.node.advance(5);
    await gw.gateway.runtime.afterChainChange("SOL");
    const q = await gw.client.request<Obj>("GET", `/openapi/payin/orders/${o.orderNo}`);
    expect(["detected", "confirming", "completed"]).toContain(q.status);
    expect(q.paidAmount).toBe("5.000000");
  });

  test("accounts someone else already made are left alone: existed, no rent spent", async () => {
    const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey: "ata-existing" } });
    // The payers' wallets create both ATAs.
    await fx.pay(fx.payer(1n), [[b.address, 1n]]);
    await fx.pay(fx.payer(1n, "USDT"), [[b.address, 1n]], { token: "USDT" });
    fx.node.advance(2);
    const gas = await gasWallet(gw.ctx.db, sol, gw.ctx.seed, Date.now());
    const before = fx.node.lamports(gas.address);
    await run();
    expect(await rowOf(b.address)).toMatchObject({ status: "existed", rentLamports: "0", txHash: null, mints: mintSet(sol) });
    expect(fx.node.lamports(gas.address)).toBe(before);
  });

  test("only the missing account is made: a payer created the USDC one, the gas wallet pays the USDT one's rent", async () => {
    const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDT", bindKey: "ata-half" } });
    await fx.pay(fx.payer(1n), [[b.address, 1n]]);
    fx.node.advance(2);
    const gas = await gasWallet(gw.ctx.db, sol, gw.ctx.seed, Date.now());
    const before = fx.node.lamports(gas.address);
    await run();
    const row = await untilFinal(b.address);
    expect(row).toMatchObject({ status: "created", rentLamports: String(RENT), feeLamports: String(FEE) });
    expect(await accountExists(b.address, "USDT")).toBe(true);
    expect(before - fx.node.lamports(gas.address)).toBe(RENT + FEE);
    expect(await costOfTx(row.txHash!)).toMatchObject({ kind: "token_account", nativeBurned: String(RENT + FEE) });
  });

  test("an address finished before USDT was added (mints unrecorded) is queued again once and gets its USDT account; the rents add up", async () => {
    const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey: "ata-upgrade" } });
    await fx.pay(fx.payer(1n), [[b.address, 1n]]);
    fx.node.advance(2);
    await run();
    // As an older version left it: USDC only, created by the gateway, no mints recorded.
    await updateRows(gw.ctx.db, solTokenAccounts, { status: "created", rentLamports: String(RENT), feeLamports: String(FEE), mints: null, txHash: null }, "owner", b.address);
    // USDT's account does not exist yet: the test removes it as if it was never made.
    if (await accountExists(b.address, "USDT")) fx.node.svm.setAccount(new PublicKey(sol.tokenAccountOf(b.address, "USDT")), { lamports: 0, data: new Uint8Array(), owner: PublicKey.default, executable: false });
    expect(await accountExists(b.address, "USDT")).toBe(false);
    // A new process checks finished rows against the configured mints once.
    expect(await requeueForMints(gw.ctx, sol, { again: true })).toBe(1);
    expect(await requeueForMints(gw.ctx, sol)).toBe(0);
    const row = await untilFinal(b.address);
    expect(row).toMatchObject({ status: "created", rentLamports: String(2n * RENT), feeLamports: String(2n * FEE), mints: mintSet(sol) });
    expect(await accountExists(b.address, "USDT")).toBe(true);
    expect(await costOfTx(row.txHash!)).toMatchObject({ kind: "token_account", nativeBurned: String(RENT + FEE) });
  });

  test("a blockhash that expires unlanded is signed again, once it can no longer land", async () => {
    const o = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey: "ata-dropped" } });
    fx.node.setFaults({ dropNextSends: 1000 });
    await run();
    const first = await rowOf(o.address);
    expect(first.status).toBe("broadcasted");
    fx.node.advance(2);
    await run();
    expect(await rowOf(o.address)).toMatchObject({ status: "broadcasted", txHash: first.txHash }); // rebroadcast, not re-signed
    // Past lastValidBlockHeight the stored transaction is dead: a new one is made and lands.
    fx.node.advance(400);
    await run();
    expect(await rowOf(o.address)).toMatchObject({ status: "pending", lastError: expect.stringContaining("expired") });
    fx.node.setFaults({});
    const row = await untilFinal(o.address);
    expect(row.status).toBe("created");
    expect(row.attempts).toBe(2);
    expect(row.txHash).not.toBe(first.txHash);
    expect(await accountExists(o.address)).toBe(true);
  });

  // The epoch fence (DESIGN 22, cluster/fence.ts): only PostgreSQL has more than one gateway.
  test.skipIf(TEST_ENGINE !== "pg")("a gateway without the current leader epoch stores no signed creation and sends nothing; with it, it does", async () => {
    const current = heldEpoch(gw.ctx.db);
    expect(current).not.toBeNull();
    const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey: "ata-fenced" } });
    for (const held of [null, current! - 1]) {
      holdEpoch(gw.ctx.db, held);
      try {
        await run();
      } finally {
        holdEpoch(gw.ctx.db, current);
      }
      expect(await rowOf(b.address)).toMatchObject({ status: "pending", txHash: null, signedTx: null, attempts: 0 });
      expect(await accountExists(b.address)).toBe(false);
    }
    expect((await untilFinal(b.address)).status).toBe("created");
    expect(await accountExists(b.address)).toBe(true);
  });
});
