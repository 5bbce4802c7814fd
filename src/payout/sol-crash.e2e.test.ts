// Crash safety on SOL: a child gateway in rpc mode on the LiteSVM node kills itself between
// signing (stored) and sending, is restarted, and the chain carries the transfer exactly once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { PublicKey } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { startSolFixture, someSolAddresses, type SolFixture } from "../testing/sol-fixture";
import { USDC_MINT } from "../testing/solana-rpc";
import { rpcChainSetup, runCli, startGatewayProcess, type GatewayProcess, type TempSetup } from "../testing/process";

type Obj = Record<string, any>;
let fx: SolFixture;
let stopTicker = () => {};
const cleanups: Array<() => Promise<unknown> | unknown> = [];
beforeAll(async () => {
  fx = await startSolFixture({ confirmedLag: 1, finalizedLag: 4 });
  stopTicker = fx.node.startTicker(50); // the child sees slots move on their own
});
afterAll(async () => {
  stopTicker();
  for (const c of cleanups.reverse()) await c();
  await fx?.stop();
});

async function start(s: TempSetup, crashAt?: string): Promise<GatewayProcess> {
  const g = await startGatewayProcess(s, { extraEnv: crashAt ? { STABLEGATE_CRASH_AT: crashAt } : {} });
  cleanups.push(() => (g.proc.exitCode === null && g.proc.signalCode === null ? g.kill("SIGKILL") : undefined));
  return g;
}

describe("SOL payout crash safety", () => {
  test("killed at payout:after-sign-commit, restarted: the stored transaction is sent exactly once", async () => {
    const { s, client } = await rpcChainSetup("SOL", fx.node.url, { confirmations: 4, pollInterval: "100ms", merchantName: "sol-crash" });
    cleanups.push(() => rmSync(s.dir, { recursive: true, force: true }));

    let g = await start(s, "payout:after-sign-commit");
    const bindKey = "sol-crash";
    const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "SOL", tokenSymbol: "USDC", bindKey } });
    await fx.pay(fx.payer(50_000_000n), [[b.address, 50_000_000n]]);
    for (let i = 0; i < 100; i++) {
      const d = await client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${bindKey}`, { query: { chainCode: "SOL", tokenSymbol: "USDC" } });
      if (d.stats.completedOrders === 1) break;
      await Bun.sleep(100);
    }
    // The gas wallet (index 0) pays the fees: the operator funds it (`wallet gas` shows it).
    const gas = runCli(["wallet", "gas", "--json", "--config", s.configPath], s.env);
    expect(gas.code).toBe(0);
    const gasAddress = (JSON.parse(gas.stdout) as Array<{ chainCode: string; address: string }>).find((r) => r.chainCode === "SOL")!.address;
    fx.node.airdrop(gasAddress, 1_000_000_000n);
    const [to] = someSolAddresses(1, "sol-crash-to");
    const body = { chainCode: "SOL", tokenSymbol: "USDC", fromAddress: b.address, toAddress: to, amount: "20", merchantOrderNo: "SOL-CRASH-1", notifyUrl: "https://shop.example/po" };
    expect(await client.request("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e)).toBeInstanceOf(Error);
    await g.proc.exited;
    expect(g.proc.signalCode).toBe("SIGKILL");
    expect(fx.node.tokenBalance(to)).toBe(0n);

    g = await start(s);
    let o = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
    for (let i = 0; i < 100 && o.status !== "confirmed" && o.status !== "failed"; i++) {
      await Bun.sleep(100);
      o = await client.request<Obj>("GET", `/openapi/payout/orders/${o.orderNo}`);
    }
    expect(o).toMatchObject({ status: "confirmed", fromAddress: b.address });
    expect(await g.kill("SIGTERM")).toBe(0);

    expect(fx.node.tokenBalance(to)).toBe(20_000_000n);
    expect(fx.node.tokenBalance(b.address)).toBe(30_000_000n);
    // Exactly one transaction moved tokens out of the source's token account after the deposit.
    const ata = getAssociatedTokenAddressSync(new PublicKey(USDC_MINT), new PublicKey(b.address), true);
    const sigs = await fx.conn.getSignaturesForAddress(ata, { limit: 100 }, "confirmed");
    expect(sigs.length).toBe(2);
    expect(fx.node.lamports(gasAddress)).toBe(1_000_000_000n - 10_000n - 2_039_280n);
  }, 60_000);
});
