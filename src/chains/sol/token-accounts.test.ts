// Solana receiving addresses get their USDC token account from the gas wallet, on the LiteSVM
// node behind JSON-RPC: before anyone pays, rent recorded, nothing done twice.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { startSolFixture, type SolFixture } from "../../testing/sol-fixture";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { addressBook, gasWallet, findAddress } from "../../wallet/addresses";
import type { SolAdapter } from "./adapter";
import { provisionSolTokenAccounts, solTokenAccountOf, solTokenAccountSpend } from "./token-accounts";

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
const accountExists = async (owner: string) => (await fx.conn.getAccountInfo(new PublicKey(sol.tokenAccountOf(owner, "USDC")), "confirmed")) !== null;
let n = 0;
const order = () =>
  gw.client.request<Obj>("POST", "/openapi/payin/orders", {
    body: { chainCode: "SOL", tokenSymbol: "USDC", merchantOrderNo: `ata-${++n}`, amount: "5", notifyUrl: "https://shop.example/cb" },
  });
const rowOf = (address: string) => solTokenAccountOf(gw.ctx, findAddress(gw.ctx.db, "SOL", address)!.id)!;

async function untilFinal(address: string) {
  for (let i = 0; i < 10 && !["created", "existed"].includes(rowOf(address).status); i++) {
    fx.node.advance(2);
    await run();
  }
  return rowOf(address);
}

describe("token accounts of Solana receiving addresses", () => {
  test("an empty gas wallet: the address waits (signed, stored), nothing is lost; funded, the account is created and its rent recorded", async () => {
    const o = await order();
    expect(await accountExists(o.address)).toBe(false);
    await run();
    let row = rowOf(o.address);
    expect(row.status).toBe("signed");
    expect(row.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(row.lastError).toContain("lamports");
    const firstTx = row.txHash;

    const gas = gasWallet(gw.ctx.db, sol, gw.ctx.seed, Date.now());
    fx.node.airdrop(gas.address, 1_000_000_000n);
    await run();
    row = rowOf(o.address);
    expect(row.status).toBe("broadcasted");
    expect(row.txHash).toBe(firstTx); // the stored transaction, not a new one
    row = await untilFinal(o.address);
    expect(row).toMatchObject({ status: "created", rentLamports: String(RENT), feeLamports: String(FEE), lastError: null });
    expect(await accountExists(o.address)).toBe(true);
    expect(fx.node.lamports(gas.address)).toBe(1_000_000_000n - RENT - FEE);
    expect(fx.node.lamports(o.address)).toBe(0n); // the receiving wallet itself holds nothing
    expect(solTokenAccountSpend(gw.ctx)).toEqual({ accounts: 1, rentLamports: RENT, feeLamports: FEE });

    // Done is done: later runs spend nothing more.
    await run();
    fx.node.advance(3);
    await run();
    expect(fx.node.lamports(gas.address)).toBe(1_000_000_000n - RENT - FEE);

    // A payer that does not create accounts (plain transfer to the existing ATA) pays, and it is detected.
    await fx.pay(fx.payer(5_000_000n), [[o.address, 5_000_000n]], { plain: true });
    fx.node.advance(5);
    await gw.gateway.runtime.afterChainChange("SOL");
    const q = await gw.client.request<Obj>("GET", `/openapi/payin/orders/${o.orderNo}`);
    expect(["detected", "confirming", "completed"]).toContain(q.status);
    expect(q.paidAmount).toBe("5.000000");
  });

  test("an account someone else already made is left alone: existed, no rent spent", async () => {
    const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey: "ata-existing" } });
    await fx.pay(fx.payer(1n), [[b.address, 1n]]); // the payer's wallet creates the ATA
    fx.node.advance(2);
    const gas = gasWallet(gw.ctx.db, sol, gw.ctx.seed, Date.now());
    const before = fx.node.lamports(gas.address);
    await run();
    expect(rowOf(b.address)).toMatchObject({ status: "existed", rentLamports: "0", txHash: null });
    expect(fx.node.lamports(gas.address)).toBe(before);
  });

  test("a blockhash that expires unlanded is signed again, once it can no longer land", async () => {
    const o = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey: "ata-dropped" } });
    fx.node.setFaults({ dropNextSends: 1000 });
    await run();
    const first = rowOf(o.address);
    expect(first.status).toBe("broadcasted");
    fx.node.advance(2);
    await run();
    expect(rowOf(o.address)).toMatchObject({ status: "broadcasted", txHash: first.txHash }); // rebroadcast, not re-signed
    // Past lastValidBlockHeight the stored transaction is dead: a new one is made and lands.
    fx.node.advance(400);
    await run();
    expect(rowOf(o.address)).toMatchObject({ status: "pending", lastError: expect.stringContaining("expired") });
    fx.node.setFaults({});
    const row = await untilFinal(o.address);
    expect(row.status).toBe("created");
    expect(row.attempts).toBe(2);
    expect(row.txHash).not.toBe(first.txHash);
    expect(await accountExists(o.address)).toBe(true);
  });
});
