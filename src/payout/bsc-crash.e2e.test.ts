// Crash safety on BSC: a child gateway in rpc mode on anvil kills itself
// between signing and sending (the payout, or its gas top-up), is restarted,
// and the chain carries each transaction exactly once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { startBscFixture, someAddresses, type BscFixture } from "../testing/bsc-fixture";
import { rpcChainSetup, startGatewayProcess, type GatewayProcess, type TempSetup } from "../testing/process";

const E18 = 10n ** 18n;
type Obj = Record<string, any>;
let fx: BscFixture;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
beforeAll(async () => {
  fx = await startBscFixture();
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await fx?.stop();
});

async function start(s: TempSetup, crashAt?: string): Promise<GatewayProcess> {
  const g = await startGatewayProcess(s, { extraEnv: crashAt ? { STABLEGATE_CRASH_AT: crashAt } : {} });
  cleanups.push(() => (g.proc.exitCode === null && g.proc.signalCode === null ? g.kill("SIGKILL") : undefined));
  return g;
}
const nonce = async (address: string) => Number(BigInt(await fx.node.rpc<string>("eth_getTransactionCount", [address, "latest"])));
const gasAddress = (s: TempSetup) => {
  const db = new Database(s.dbPath, { readonly: true });
  try {
    return (db.query("SELECT address FROM addresses WHERE chain = 'BSC' AND kind = 'gas'").get() as { address: string } | null)?.address ?? null;
  } finally {
    db.close();
  }
};

describe("BSC payout crash safety", () => {
  test.each([
    ["payout:after-sign-commit", true],
    ["payout:after-topup-sign-commit", false],
  ])("killed at %s, restarted: sent exactly once", async (point, sourceHasBnb) => {
    const { s, client } = await rpcChainSetup("BSC", fx.node.url, { confirmations: 3, pollInterval: "200ms", merchantName: "bsc-crash" });
    cleanups.push(() => rmSync(s.dir, { recursive: true, force: true }));

    let g = await start(s, point);
    const bindKey = `crash-${point}`;
    const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "BSC", tokenSymbol: "USDT", bindKey } });
    await fx.node.mint("USDT", b.address, 50n * E18);
    if (sourceHasBnb) await fx.node.setBalance(b.address, E18 / 100n);
    await fx.node.mine(2);
    for (let i = 0; i < 100; i++) {
      const d = await client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${bindKey}`, { query: { chainCode: "BSC", tokenSymbol: "USDT" } });
      if (d.stats.completedOrders === 1) break;
      await Bun.sleep(100);
    }
    const [to] = someAddresses(1, point);
    const body = { chainCode: "BSC", tokenSymbol: "USDT", fromAddress: b.address, toAddress: to, amount: "20", merchantOrderNo: "BSC-CRASH-1", notifyUrl: "https://shop.example/po" };
    expect(await client.request("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e)).toBeInstanceOf(Error);
    await g.proc.exited;
    expect(g.proc.signalCode).toBe("SIGKILL");
    expect(await fx.node.tokenBalance("USDT", to)).toBe(0n);

    const gas = gasAddress(s);
    if (!sourceHasBnb) {
      // The top-up was signed and stored, then the process died: fund the gas wallet now.
      expect(gas).not.toBeNull();
      await fx.node.setBalance(gas!, E18);
    }
    g = await start(s);
    let o = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
    for (let i = 0; i < 100 && o.status !== "confirmed" && o.status !== "failed"; i++) {
      if (o.status === "broadcasted") await fx.node.mine(1);
      await Bun.sleep(100);
      o = await client.request<Obj>("GET", `/openapi/payout/orders/${o.orderNo}`);
    }
    expect(o).toMatchObject({ status: "confirmed", fromAddress: b.address });
    expect(await g.kill("SIGTERM")).toBe(0);

    expect(await fx.node.tokenBalance("USDT", to)).toBe(20n * E18);
    expect(await fx.node.tokenBalance("USDT", b.address)).toBe(30n * E18);
    expect(await nonce(b.address)).toBe(1);
    if (!sourceHasBnb) expect(await nonce(gas!)).toBe(1);
  });
});
