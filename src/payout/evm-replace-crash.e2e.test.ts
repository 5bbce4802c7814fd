// Crash safety of a replaced EVM payout (issue 25): a child gateway on anvil (chain id 56 with a
// base fee, so type-2 transactions) whose payout does not confirm (mining off) replaces it after
// replace_after = "1s" and kills itself right after storing the replacement, or right after
// sending it; restarted, it goes on with the transactions it stored, and the chain carries the
// transfer exactly once: every replacement has the payout's nonce, so only one of them can land,
// and that one becomes the payout's txHash.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startAnvil, type AnvilNode } from "../testing/anvil";
import { someAddresses } from "../testing/bsc-fixture";
import { crashGateway, disposeCrashGateways, payoutSettled } from "../testing/crash";
import { eventually } from "../testing/wait";

type Obj = Record<string, any>;
const E18 = 10n ** 18n;

let node: AnvilNode;
beforeAll(async () => {
  node = await startAnvil({ baseFee: 10n ** 9n });
});
afterAll(async () => {
  await disposeCrashGateways();
  await node?.stop();
});

const toml = (url: string) => `[log]
level = "warn"
[chains.BSC]
mode = "rpc"
rpc_urls = ["${url}"]
confirmations = 3
poll_interval = "200ms"
replace_after = "1s"
[chains.TRON]
enabled = false
[chains.SOL]
enabled = false
`;

describe("a replaced EVM payout survives a crash", () => {
  test.each([["payout:after-replace-commit"], ["payout:after-replace-broadcast"]])(
    "killed at %s, restarted: paid exactly once, with one of its stored hashes",
    async (point) => {
      const c = await crashGateway({ merchantName: `evm-replace-${point.split("-").pop()}`, toml: toml(node.url) });
      const { client } = c;
      let g = await c.start(point);
      const binding = { chainCode: "BSC", tokenSymbol: "USDT" };
      const bindKey = `replace-${point}`;
      const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { ...binding, bindKey } });
      await node.mint("USDT", b.address, 50n * E18);
      await node.setBalance(b.address, 10n ** 17n);
      await node.mine(2);
      await eventually(
        async () => (await client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${bindKey}`, { query: binding })).stats.completedOrders === 1,
        40_000,
        "the deposit completed",
        50,
      );

      const [to] = someAddresses(1, point);
      await node.setAutomine(false);
      let mining: ReturnType<typeof setInterval> | undefined;
      try {
        const o = await client.request<Obj>("POST", "/openapi/payout/orders", { body: { ...binding, fromAddress: b.address, toAddress: to, amount: "20", merchantOrderNo: `REPLACE-${point}`, notifyUrl: "https://shop.example/po" } });
        expect(o.status).toBe("broadcasted");
        // Not mined: after replace_after the gateway replaces it, stores the replacement, and dies.
        await g.proc.exited;
        expect(g.proc.signalCode).toBe("SIGKILL");
        const stored = c.query<{ tx_hash: string }>("SELECT a.tx_hash FROM payout_tx_attempts a JOIN payout_orders p ON p.id = a.payout_order_id WHERE p.order_no = ?", o.orderNo);
        expect(stored).toHaveLength(1);
        expect(await node.tokenBalance("USDT", to!)).toBe(0n);

        g = await c.start();
        mining = setInterval(() => void node.mine(1).catch(() => {}), 150);
        const done = await payoutSettled(client, o.orderNo);
        expect(done).toMatchObject({ status: "confirmed", fromAddress: b.address });
        const hashes = [o.txHash, ...c.query<{ tx_hash: string }>("SELECT a.tx_hash FROM payout_tx_attempts a JOIN payout_orders p ON p.id = a.payout_order_id WHERE p.order_no = ?", o.orderNo).map((r) => r.tx_hash)];
        expect(hashes).toContain(done.txHash);
        expect(hashes).toContain(stored[0]!.tx_hash);
        const landed = [];
        for (const h of hashes) if (await node.rpc("eth_getTransactionReceipt", [h])) landed.push(h);
        expect(landed).toEqual([done.txHash]);
      } finally {
        if (mining) clearInterval(mining);
        await node.setAutomine(true);
      }
      expect(await g.kill("SIGTERM")).toBe(0);
      expect(await node.tokenBalance("USDT", to!)).toBe(20n * E18);
      expect(await node.tokenBalance("USDT", b.address)).toBe(30n * E18);
      expect(Number(BigInt(await node.rpc<string>("eth_getTransactionCount", [b.address, "latest"])))).toBe(1);
    },
    120_000,
  );
});
