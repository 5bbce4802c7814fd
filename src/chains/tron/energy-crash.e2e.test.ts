// TRON energy crash safety (DESIGN 21): a child gateway in stake mode on the TRON test node
// kills itself (SIGKILL) after storing, or after sending, the energy delegation for a payout,
// or its reclaim once the payout is final; restarted, it finishes: the payout goes out once,
// the energy wallet signs exactly one stake, one delegation and one reclaim, and the whole
// stake is back. The operator side runs through the CLI: `energy status --json`, `energy stake`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTronChain, type TronChainFixture } from "../../testing/chain-fixture";
import { energyDelegations } from "../../db/schema";
import { crashGateway, disposeCrashGateways, payoutSettled, rowsOf } from "../../testing/crash";
import { rpcChainToml } from "../../testing/process";
import { TRX } from "../../testing/tron-fixture";
import { eventually } from "../../testing/wait";

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

const POINTS = ["energy:after-delegate-sign-commit", "energy:after-delegate-broadcast", "energy:after-reclaim-sign-commit", "energy:after-reclaim-broadcast"];

describe("TRON energy: killed at each step, restarted", () => {
  test.concurrent.each(POINTS)(
    "killed at %s: the payout is sent once, the stake is delegated once and comes back whole",
    async (point) => {
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

      const reclaimPoint = point.includes("reclaim");
      let g = await c.start(point);
      const binding = { chainCode: "TRON", tokenSymbol: "USDT" };
      const bindKey = `energy-${point}`;
      const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { ...binding, bindKey } });
      await Bun.sleep(300);
      await fx.pay(b.address, 50_000_000n);
      await eventually(async () => (await client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${bindKey}`, { query: binding })).stats.completedOrders === 1, 40_000, "the deposit completed", 50);
      const [to] = fx.receivers(1, point);
      const body = { ...binding, fromAddress: b.address, toAddress: to, amount: "20", merchantOrderNo: "ENERGY-CRASH-1", notifyUrl: "https://shop.example/po" };
      const sent = await client.request<Obj>("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e);
      if (reclaimPoint) expect(sent).not.toBeInstanceOf(Error);
      else expect(sent).toBeInstanceOf(Error);
      await g.proc.exited;
      expect(g.proc.signalCode).toBe("SIGKILL");
      if (!reclaimPoint) expect(await fx.tokenBalance(to!)).toBe(0n);

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
    180_000,
  );
});
