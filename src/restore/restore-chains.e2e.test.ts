// Restore and retry on every chain (DESIGN 16): a child gateway in rpc mode on the chain's test
// node takes a backup, pays a payout out (sent and final), is stopped and restored from the
// backup, and the merchant retries the same payout create. The restored database does not know
// the first payout, so the retry is a new order, but the source's chain shows a transfer the
// database never recorded: the payout is held (submitted, lastError names the hold), the
// exception is listed and alerted, and nothing is sent twice. After `restore ack` the held
// payout goes out (the operator confirmed), as docs/operations.md says. On PostgreSQL the backup
// is a pg_dump archive and the restore pg_restore into a new empty database the config then names
// (DESIGN 22; crash.ts `restore`).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { chainFixtures, solSuiteCase, startEvmChain, startTonChain, startTronChain, type ChainFixture, type ChainSuiteCase, type SolChainFixture } from "../testing/chain-fixture";
import { alerts, auditLog, callbacks, payinOrders, payoutOrders, transfers } from "../db/schema";
import { crashGateway, disposeCrashGateways, rowsOf, solTokenAccountMade, type CrashGateway } from "../testing/crash";
import { eventually } from "../testing/wait";
import type { SolTestToken } from "../testing/sol-fixture";
import type { ChainCode } from "../chains/types";

type Obj = Record<string, any>;

interface RestoreCase extends ChainSuiteCase {
  /** Native coin for a source that pays its own fees (0: the gas wallet pays every fee). */
  sourceNative: bigint;
  /** The gas wallet pays every fee (SOL: fee payer): funded before paying out. */
  gasFunding?: bigint;
  settleMs?: number;
  afterBinding?(c: CrashGateway, address: string): Promise<void>;
  /** Before a payment made long after the previous one (SOL: web3.js would reuse an expired blockhash). */
  beforeLatePay?(fx: ChainFixture): void;
  /** What the unrecorded transfer row carries: BSC knows it by nonce (and finds its hash in the logs). */
  nonce?: number;
}

const CASES: RestoreCase[] = [
  // BSC, and BASE for the EVM networks of DESIGN 17 (an OP-stack fee on top of the same
  // restore path): ETH, POLYGON and ARBITRUM share every line of it with these two, and five
  // child gateways on anvil at once took ~75 s each on CI's two cores. Their rows run in the
  // watch, payout and crash suites (issue 25's acceptance).
  ...(["BSC", "BASE"] as const).map((chain) => evmCase(chain, false)),
  // DESIGN 23's networks: a row each, taking turns on two anvil processes (each under its own
  // chain id) beside the rows above, so the child gateways at once stay as few as before.
  ...(["OPTIMISM", "AVALANCHE", "XLAYER", "PLASMA"] as const).map((chain) => evmCase(chain, true)),
  { chain: "TRON", start: () => startTronChain({ solidLag: 3, autoMine: true }), confirmations: 3, pollInterval: "200ms", blockMs: 100, sourceNative: 50_000_000n, settleMs: 300 },
  solCase("USDC"),
  solCase("USDT"),
  // DESIGN 23: the wallet's messages after the backup's masterchain block, read from toncenter's index.
  { chain: "TON", start: () => startTonChain(), confirmations: 2, pollInterval: "200ms", blockMs: 200, sourceNative: 100_000_000n, settleMs: 300 },
];

/** An EVM row; `shared`: its node is an anvil process lent to it for its run (chainFixtures `use`). */
function evmCase(chain: ChainCode, shared: boolean): RestoreCase {
  return { chain, shared, start: () => startEvmChain(chain, { shared }), confirmations: 3, pollInterval: "200ms", blockMs: 100, sourceNative: 10n ** 16n, nonce: 0 };
}

const fixtures = chainFixtures(CASES);
beforeAll(() => fixtures.start());
afterAll(() => fixtures.stop(disposeCrashGateways));

/** A row: backup, a payout sent, restore, the merchant's retry held until `restore ack`, then sent once. */
const restoreRow = (_chain: string, k: RestoreCase) =>
  fixtures.use(k, async (fx) => {
      const units = (whole: bigint) => whole * 10n ** BigInt(fx.decimals);
      const c = await crashGateway({ merchantName: `${k.chain.toLowerCase()}-restore`, rpc: { chain: fx.chain, url: fx.nodeUrl, confirmations: k.confirmations, pollInterval: k.pollInterval } });
      const { client } = c;
      let g = await c.start();
      if (k.gasFunding) {
        const shown = await c.cli("wallet", "gas", "--json");
        expect(shown.code).toBe(0);
        const gas = (JSON.parse(shown.stdout) as Array<{ chainCode: string; address: string }>).find((r) => r.chainCode === fx.chain)!.address;
        await fx.sendNative(gas, k.gasFunding);
      }
      const binding = { chainCode: fx.chain, tokenSymbol: fx.token };
      const b = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { ...binding, bindKey: "restore-1" } });
      const source = b.address as string;
      if (k.settleMs) await Bun.sleep(k.settleMs);
      await k.afterBinding?.(c, source);
      await fx.pay(source, units(50n));
      if (k.sourceNative > 0n) await fx.sendNative(source, k.sourceNative);
      await eventually(
        async () => (await client.request<Obj>("GET", "/openapi/payin/exclusive-bindings/restore-1", { query: binding })).stats.completedOrders === 1,
        40_000,
        "the deposit completed",
        50,
      );

      // The backup, taken while serving.
      // On PostgreSQL a pg_dump archive, restored by pg_restore (DESIGN 22); on SQLite a copy of the file.
      const backup = join(c.s.dir, c.s.dbUrl ? "before-payout.dump" : "before-payout.db");
      const made = await c.cli("backup", "--out", backup);
      expect(made.code).toBe(0);

      // Paid after the backup: the restored database finds it again by rescanning from the backup's cursor.
      k.beforeLatePay?.(fx);
      await fx.pay(source, units(5n));
      await eventually(
        async () => (await client.request<Obj>("GET", "/openapi/payin/exclusive-bindings/restore-1", { query: binding })).stats.completedOrders === 2,
        40_000,
        "the deposit paid after the backup completed",
        50,
      );
      // A binding made after the backup: the restored database does not know its address.
      const lost = (await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { ...binding, bindKey: "after-backup" } })).address as string;
      const lateOrder = (await rowsOf(c, payinOrders, { amount: units(5n).toString() })).find((o) => o.bindingId !== null)!.orderNo;
      const eventsOf = async (orderNo: string) => (await rowsOf(c, callbacks, { orderNo })).map((e) => ({ id: e.id, status: e.status }));
      const lateEvents = await eventsOf(lateOrder);
      expect(lateEvents.map((e) => e.status)).toContain("completed");

      const [to] = fx.receivers(1, `restore-${k.chain}`);
      const body = { ...binding, fromAddress: source, toAddress: to, amount: "20", merchantOrderNo: `${k.chain}-RESTORE-1`, notifyUrl: "https://shop.example/po" };
      const first = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
      const settled = async (orderNo: string) =>
        eventually(
          async () => {
            const x = await client.request<Obj>("GET", `/openapi/payout/orders/${orderNo}`);
            return x.status === "confirmed" || x.status === "failed" ? x : null;
          },
          40_000,
          `payout ${orderNo} settled`,
          50,
        );
      expect(await settled(first.orderNo)).toMatchObject({ status: "confirmed" });
      const firstTx = (await rowsOf(c, payoutOrders, { orderNo: first.orderNo }))[0]!.txHash;
      expect(await g.kill("SIGTERM")).toBe(0);
      expect(await fx.tokenBalance(to!)).toBe(units(20n));
      expect(await fx.sentBy(source)).toBe(1);

      // A small gap: the skipped indexes are derived and watched in the background, a slice at a time.
      appendFileSync(c.s.configPath, "\n[restore]\nindex_gap = 20\n");
      const restored = await c.restore(backup);
      expect(restored.stderr).toBe("");
      expect(restored.code).toBe(0);
      g = await c.start();
      // The rescan makes the same order under the same number, and its callbacks under the same eventIds.
      await eventually(async () => (await eventsOf(lateOrder)).some((e) => e.status === "completed"), 40_000, "the late deposit found again by the rescan", 50);
      // (A rescan of final blocks may skip an intermediate status, e.g. TRON's confirming: never a new id.)
      const again = await eventsOf(lateOrder);
      for (const e of again) expect(lateEvents).toContainEqual(e);
      expect(again.find((e) => e.status === "completed")).toEqual(lateEvents.find((e) => e.status === "completed"));

      // The index the lost binding took is skipped and still watched: a payment to it is an unmatched deposit, not lost.
      const again2 = await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { ...binding, bindKey: "after-backup" } });
      expect(again2.address).not.toBe(lost);
      k.beforeLatePay?.(fx);
      await fx.pay(lost, units(1n));
      await eventually(
        async () => (await rowsOf(c, transfers, { toAddress: lost }))[0]?.unmatchedReason === "restore_gap",
        40_000,
        "a payment to an address handed out after the backup recorded as an unmatched deposit",
        50,
      );

      // The merchant retries: the restored database has never seen this merchantOrderNo.
      const retry = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
      expect(retry.orderNo).not.toBe(first.orderNo);
      const row = await eventually(
        async () => (await rowsOf(c, payoutOrders, { orderNo: retry.orderNo })).find((p) => p.lastError?.startsWith("held after restore")),
        30_000,
        "the retried payout held",
        50,
      );
      expect(row).toMatchObject({ status: "submitted", signedTx: null });
      expect(row.lastError).toContain(`restore ack ${fx.chain} ${source}`);

      const listed = await c.cli("restore", "list", "--json");
      expect(listed.code).toBe(0);
      const unrecorded = JSON.parse(listed.stdout) as Obj[];
      expect(unrecorded).toHaveLength(1);
      expect(unrecorded[0]).toMatchObject({ chainCode: fx.chain, address: source, txHash: firstTx, asset: fx.token, amount: units(20n).toString(), toAddress: to });
      if (k.nonce !== undefined) expect(unrecorded[0]!.nonce).toBe(k.nonce);
      // Waited for in the database (a CLI process per poll cost a bun start each), then listed by the CLI.
      await eventually(async () => (await rowsOf(c, alerts, { condition: "unrecorded_outgoing", subject: fx.chain, status: "firing" })).length > 0, 30_000, "alert unrecorded_outgoing", 50);
      const firing = JSON.parse((await c.cli("alerts", "list", "--firing", "--json")).stdout) as Obj[];
      expect(firing.filter((a) => a.condition === "unrecorded_outgoing").map((a) => a.subject)).toEqual([fx.chain]);
      // Held: payout runs come and go, nothing is sent.
      await Bun.sleep(1500);
      expect(await fx.sentBy(source)).toBe(1);
      expect(await fx.tokenBalance(to!)).toBe(units(20n));
      expect((await client.request<Obj>("GET", `/openapi/payout/orders/${retry.orderNo}`)).status).toBe("submitted");

      // The operator checks the transfer and acknowledges: the held payout goes out, once.
      const ack = await c.cli("restore", "ack", fx.chain, source);
      expect(ack.stderr).toBe("");
      expect(ack.code).toBe(0);
      expect(ack.stdout).toContain(retry.orderNo);
      expect(await settled(retry.orderNo)).toMatchObject({ status: "confirmed" });
      expect(await g.kill("SIGTERM")).toBe(0);
      expect(await fx.sentBy(source)).toBe(2);
      expect(await fx.tokenBalance(to!)).toBe(units(40n));
      expect(await fx.tokenBalance(source)).toBe(units(15n));
      expect((await rowsOf(c, auditLog, { action: "restore.ack" })).map((a) => ({ action: a.action, actor: a.actor }))).toEqual([{ action: "restore.ack", actor: "cli" }]);
  });
const ROW_MS = 180_000;
const rows = (shared: boolean) => CASES.filter((k) => !!k.shared === shared).map((k) => [k.name ?? k.chain, k] as const);

describe("restore, then the merchant retries a payout, on every chain", () => {
  const name = "%s: held until acknowledged, never sent twice before; sent once after restore ack";
  test.concurrent.each(rows(false))(name, restoreRow, ROW_MS);
  // The shared rows take turns on two anvil processes (two lanes), beside the others.
  test.concurrent.each(rows(true))(name, restoreRow, fixtures.timeout({ shared: true }, ROW_MS));
});

/** The SOL row of one SPL token (USDC, USDT): the same restore on its own node. */
function solCase(token: SolTestToken): RestoreCase {
  return {
    ...solSuiteCase(token),
    sourceNative: 0n,
    gasFunding: 1_000_000_000n,
    beforeLatePay(fx) {
      // web3.js keeps a blockhash 30 s; the test node's slots pass faster than that.
      ((fx as SolChainFixture).raw.conn as unknown as { _blockhashInfo: { lastFetch: number } })._blockhashInfo.lastFetch = 0;
    },
    async afterBinding(c, address) {
      await solTokenAccountMade(c, address);
    },
  };
}
