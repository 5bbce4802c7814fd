// Crash safety on TRON: a child gateway in rpc mode on the fake node kills itself between
// signing and sending (the payout, or its TRX top-up), is restarted, and the chain
// carries each transaction exactly once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { sha256 } from "@noble/hashes/sha2.js";
import { deriveTronKey } from "../chains/tron/address";
import { startTronFixture, TRX, type TronFixture } from "../testing/tron-fixture";
import { rpcChainSetup, startGatewayProcess, type GatewayProcess, type TempSetup } from "../testing/process";

type Obj = Record<string, any>;
let fx: TronFixture;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
beforeAll(async () => {
  // Blocks every 100 ms (solidified 3 behind) and one after each broadcast.
  fx = await startTronFixture({ solidLag: 3, autoMine: true, blockTimeMs: 100 });
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
const gasAddress = (s: TempSetup) => {
  const db = new Database(s.dbPath, { readonly: true });
  try {
    return (db.query("SELECT address FROM addresses WHERE chain = 'TRON' AND kind = 'gas'").get() as { address: string } | null)?.address ?? null;
  } finally {
    db.close();
  }
};
const sentBy = (owner: string) => {
  const hex = fx.node.tronWeb().address.toHex(owner).toLowerCase();
  return fx.node.chain.blocks.flatMap((b) => b.txs).filter((t) => t.tx.raw_data.contract[0].parameter.value.owner_address === hex).length;
};

describe("TRON payout crash safety", () => {
  test.each([
    ["payout:after-sign-commit", true],
    ["payout:after-topup-sign-commit", false],
  ])("killed at %s, restarted: sent exactly once", async (point, sourceHasTrx) => {
    const { s, client } = await rpcChainSetup("TRON", fx.node.url, { confirmations: 3, pollInterval: "200ms", merchantName: "tron-crash" });
    cleanups.push(() => rmSync(s.dir, { recursive: true, force: true }));

    let g = await start(s, point);
    const bindKey = `crash-${point}`;
    const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey } });
    await Bun.sleep(300); // the watcher's cursor passes the binding's creation
    await fx.sendUsdt(b.address, 50_000_000n);
    if (sourceHasTrx) await fx.sendTrx(b.address, 50n * TRX);
    for (let i = 0; i < 100; i++) {
      const d = await client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${bindKey}`, { query: { chainCode: "TRON", tokenSymbol: "USDT" } });
      if (d.stats.completedOrders === 1) break;
      await Bun.sleep(100);
    }
    const to = deriveTronKey(sha256(new TextEncoder().encode(point)), 0).address;
    const body = { chainCode: "TRON", tokenSymbol: "USDT", fromAddress: b.address, toAddress: to, amount: "20", merchantOrderNo: "TRON-CRASH-1", notifyUrl: "https://shop.example/po" };
    expect(await client.request("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e)).toBeInstanceOf(Error);
    await g.proc.exited;
    expect(g.proc.signalCode).toBe("SIGKILL");
    expect(fx.node.chain.usdt(to)).toBe(0n);

    const gas = gasAddress(s);
    if (!sourceHasTrx) {
      // The top-up was signed and stored, then the process died: fund the gas wallet now.
      expect(gas).not.toBeNull();
      await fx.sendTrx(gas!, 1000n * TRX);
    }
    g = await start(s);
    let o = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
    for (let i = 0; i < 100 && o.status !== "confirmed" && o.status !== "failed"; i++) {
      await Bun.sleep(100);
      o = await client.request<Obj>("GET", `/openapi/payout/orders/${o.orderNo}`);
    }
    expect(o).toMatchObject({ status: "confirmed", fromAddress: b.address });
    expect(await g.kill("SIGTERM")).toBe(0);

    expect(fx.node.chain.usdt(to)).toBe(20_000_000n);
    expect(fx.node.chain.usdt(b.address)).toBe(30_000_000n);
    expect(sentBy(b.address)).toBe(1);
    if (!sourceHasTrx) expect(sentBy(gas!)).toBe(1);
  }, 30_000);
});
