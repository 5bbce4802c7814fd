// Rehearsing stake mode the way an operator does with `make run` (docs/payouts.md): a sandbox
// gateway process with `[chains.TRON.energy] mode = "stake"`, the energy wallet's address from
// `energy status --json`, TRX sent to it with POST /sandbox/transfers, `energy stake` by the CLI,
// then a payout over HTTP goes out on delegated energy and burns no TRX for it.
import { afterAll, expect, test } from "bun:test";
import { payoutOrders, transferCosts } from "../../db/schema";
import { crashGateway, disposeCrashGateways, rowsOf, SANDBOX_TRON_ONLY } from "../../testing/crash";
import { sandboxClient } from "../../testing/sandbox";
import { randomAddress } from "../../wallet/hd";
import { ENERGY_NEW_HOLDER } from "./resources";

type Obj = Record<string, any>;
afterAll(() => disposeCrashGateways());
// The two cases run at once: each has its own gateway process and sandbox chain, and mostly waits on it.

test.concurrent("make run rehearsal: fund the energy wallet over /sandbox, stake by the CLI, a payout takes delegated energy", async () => {
  const c = await crashGateway({ merchantName: "rehearsal", toml: SANDBOX_TRON_ONLY.replace("[chains.TRON]\n", '[chains.TRON]\nenergy = { mode = "stake", fallback = "burn" }\n') });
  const g = await c.start();
  try {
    const sb = sandboxClient(c.s.url);
    const status0 = await c.cli("energy", "status", "--json");
    expect(status0.code).toBe(0);
    const wallet = (JSON.parse(status0.stdout) as Obj).address as string;
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "TRX", toAddress: wallet, amount: "25000" });
    const staked = await c.cli("energy", "stake", "--trx", "20000");
    expect(staked.stderr).toBe("");
    expect(staked.stdout).toMatch(/^staked 20000 TRX: [0-9a-f]{64}/);
    expect(JSON.parse((await c.cli("energy", "status", "--json")).stdout)).toMatchObject({ address: wallet, stakedTrx: "20000", energyAvailable: "200000" });

    const b = await c.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "rehearsal" } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "40" });
    await sb.mine("TRON", 2);
    const o = await c.client.request<Obj>("POST", "/openapi/payout/orders", {
      body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "R-1", fromAddress: b.address, toAddress: randomAddress("TRON"), amount: "10", notifyUrl: "https://shop.example/po" },
    });
    expect(o.status).toBe("broadcasted");
    await sb.mine("TRON", 2);
    const [payout] = await rowsOf(c, payoutOrders, { orderNo: o.orderNo });
    const costs = (await rowsOf(c, transferCosts, { payoutOrderId: payout!.id })).map((x) => ({ kind: x.kind, burned: x.nativeBurned, delegated: x.energyDelegated }));
    expect(costs.find((x) => x.kind === "payout")).toEqual({ kind: "payout", burned: "0", delegated: String(ENERGY_NEW_HOLDER) });
    expect(costs.map((x) => x.kind)).toContain("delegate");
  } finally {
    await g.kill();
  }
}, 120_000);

test.concurrent("energy stake while [chains.TRON.energy] mode = \"burn\" warns that the stake will not be used (it is still made)", async () => {
  const c = await crashGateway({ merchantName: "burner", toml: SANDBOX_TRON_ONLY.replace("[chains.TRON]\n", '[chains.TRON]\nenergy = { mode = "burn" }\n') });
  const g = await c.start();
  try {
    const wallet = (JSON.parse((await c.cli("energy", "status", "--json")).stdout) as Obj).address as string;
    await sandboxClient(c.s.url).transfer({ chainCode: "TRON", tokenSymbol: "TRX", toAddress: wallet, amount: "500" });
    const staked = await c.cli("energy", "stake", "--trx", "100");
    expect(staked.code).toBe(0);
    expect(staked.stderr).toContain('warning: [chains.TRON.energy] mode = "burn"');
    expect(staked.stderr).toContain("this stake will not be used");
    expect(staked.stdout).toMatch(/^staked 100 TRX: [0-9a-f]{64}/);
    // Unstaking warns of nothing.
    expect((await c.cli("energy", "unstake", "--trx", "100")).stderr).toBe("");
  } finally {
    await g.kill();
  }
}, 120_000);
