// TRON energy crash safety (DESIGN 21): a child gateway in stake mode on the TRON test node
// kills itself (SIGKILL) after storing, or after sending, the energy delegation for a payout;
// restarted, it goes on and kills itself after storing, or after sending, the reclaim once the
// payout is final; restarted again, it finishes: the payout goes out once, the energy wallet
// signs exactly one stake, one delegation and one reclaim, and the whole stake is back. Each
// row takes a delegation point and a reclaim point on one gateway (two rows prove the four
// points; a gateway per point cost twice the processes). The operator side runs through the
// CLI: `energy status --json`, `energy stake`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTronChain, type TronChainFixture } from "../../testing/chain-fixture";
import { energyDelegations } from "../../db/schema";
import { crashGateway, disposeCrashGateways, killedAt, payoutSettled, rowsOf } from "../../testing/crash";
import { rpcChainToml } from "../../testing/process";
import { TRX } from "../../testing/tron-fixture";
import { eventually, exitsWithin } from "../../testing/wait";

type Obj = Record<string, any>;
let fx: TronChainFixture;
let stopBlocks: () => void;
beforeAll(async () => {
  fx = await startTronChain({ solidLag: 3, autoMine: true });
  stopBlocks = fx.autoAdvance(100);
});
afterAll(async () => {
  stopBlocks?.();
  await disposeCrashGateways();
  await fx?.stop();
});

/** [delegation point, reclaim point]: the first run dies at the one, the second at the other. */
const ROWS = [
  ["energy:after-delegate-sign-commit", "energy:after-reclaim-sign-commit"],
  ["energy:after-delegate-broadcast", "energy:after-reclaim-broadcast"],
];

describe("TRON energy: killed at each step, restarted", () => {
  test.concurrent.each(ROWS)(
    "killed at %s, then at %s: the payout is sent once, the stake is delegated once and comes back whole",
    async (point, reclaimPoint) => {
      const toml = rpcChainToml("TRON", fx.nodeUrl, { confirmations: 3, pollInterval: "200ms" }) + `[chains.TRON.energy]\nmode = "stake"\nfallback = "burn"\n`;
      const c = await crashGateway({ merchantName: "energy-crash", toml });
      const { client } = c;

      // The operator funds and stakes the energy wallet, and funds the gas wallet.
      const st0 = await c.cli("energy", "status", "--json");
      expect(st0.stderr).toBe("");
      const status0 = JSON.parse(st0.stdout) as Record<string, string>;
      expect(Object.keys(status0)).toEqual(["address", "stakedTrx", "energyAvailable", "energyDelegated", "transfersServed", "trxSaved"]);
      const wallet = status0.address!;
      await fx.sendNative(wallet, 25_000n * TRX);
      const staked = await c.cli("energy", "stake", "--trx", "20000");
      expect(staked).toMatchObject({ code: 0, stderr: "" });
      const gas = (JSON.parse((await c.cli("wallet", "gas", "--json")).stdout) as Array<{ address: string }>)[0]!.address;
      await fx.sendNative(gas, 1_000n * TRX);

      let g = await c.start(point);
      const binding = { chainCode: "TRON", tokenSymbol: "USDT" };
      const bindKey = `energy-${point}`;
      const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { ...binding, bindKey } });
      await Bun.sleep(300);
      await fx.pay(b.address, 50_000_000n);
      await eventually(async () => (await client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${bindKey}`, { query: binding })).stats.completedOrders === 1, 40_000, "the deposit completed", 50);
      const [to] = fx.receivers(1, point);
      const body = { ...binding, fromAddress: b.address, toAddress: to, amount: "20", merchantOrderNo: "ENERGY-CRASH-1", notifyUrl: "https://shop.example/po" };
      // The delegation comes before the payout's transaction: killed there, the create gets no answer.
      expect(await client.request<Obj>("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e)).toBeInstanceOf(Error);
      await killedAt(g, point);
      expect(await fx.tokenBalance(to!)).toBe(0n);

      // Restarted: the merchant retries; the payout goes out and is final, and the reclaim kills it.
      // (Its executor may get there before the retry is answered: the retry's answer is not awaited as a proof.)
      g = await c.start(reclaimPoint);
      await client.request<Obj>("POST", "/openapi/payout/orders", { body }).catch(() => undefined);
      if (!(await exitsWithin(g.proc, 120_000))) throw new Error(`not killed at ${reclaimPoint} within 120 s: ${JSON.stringify(await rowsOf(c, energyDelegations))}`);
      expect(g.proc.signalCode).toBe("SIGKILL");
      expect(await fx.tokenBalance(to!)).toBe(20_000_000n);

      g = await c.start();
      const first = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
      const o = await payoutSettled(client, first.orderNo);
      expect(o).toMatchObject({ status: "confirmed" });
      await eventually(async () => (await rowsOf(c, energyDelegations))[0]?.status === "reclaimed", 40_000, "the delegation reclaimed", 50);
      expect(await g.kill("SIGTERM")).toBe(0);

      expect(await fx.tokenBalance(to!)).toBe(20_000_000n);
      expect(await fx.sentBy(b.address)).toBe(1);
      // One stake, one delegation, one reclaim: nothing signed twice by the energy wallet.
      expect(await fx.sentBy(wallet)).toBe(3);
      expect((await rowsOf(c, energyDelegations)).map((d) => d.status)).toEqual(["reclaimed"]);
      const chain = fx.raw.node.chain;
      expect(chain.delegated(wallet, b.address)).toBe(0n);
      expect(chain.accountOf(wallet)!.frozenEnergy).toBe(20_000n * TRX);
      // The transfer took its energy from the delegation: no TRX burned for energy.
      const found = chain.find(o.txHash) as { included: { info: Obj } };
      expect(found.included.info.receipt.energy_fee).toBeUndefined();
      const st = JSON.parse((await c.cli("energy", "status", "--json")).stdout) as Record<string, string>;
      expect(st).toMatchObject({ address: wallet, stakedTrx: "20000", energyDelegated: "0", transfersServed: "1" });
      expect(Number(st.trxSaved)).toBeGreaterThan(6);
    },
    240_000,
  );
});
