// Crash safety of a replaced EVM payout (issue 25), a row per chain (BSC, and BASE with its L1 fee
// oracle): a child gateway on anvil (the chain's id, with a base fee, so type-2 transactions)
// whose payout does not confirm (mining off) replaces it after
// replace_after = "1s" and kills itself right after storing the replacement, or right after
// sending it; restarted, it goes on with the transactions it stored, and the chain carries the
// transfer exactly once: every replacement has the payout's nonce, so only one of them can land,
// and that one becomes the payout's txHash. The same for a replaced gas top-up (the source holds
// no native coin): killed right after storing or sending the top-up's replacement, restarted,
// one of the top-up's stored hashes lands (the gas wallet sends once) and the payout goes out once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startAnvil, type AnvilNode } from "../testing/anvil";
import { chainCodes, chainModule } from "../chains/registry";
import type { ChainCode, TokenSymbol } from "../chains/types";
import { someAddresses } from "../testing/bsc-fixture";
import { gasTopupAttempts, gasTopups, payoutOrders, payoutTxAttempts } from "../db/schema";
import { crashGateway, disposeCrashGateways, killedAt, payoutSettled, rowsOf, type CrashGateway } from "../testing/crash";
import { eventually } from "../testing/wait";

type Obj = Record<string, any>;
const CHAINS: ChainCode[] = ["BSC", "BASE"];

/**
 * Three lanes, each an anvil of its own (a row turns its node's automine off, so rows sharing a
 * node take turns): BSC's payout rows, BASE's, and BSC's top-up rows. The lanes run at once (the
 * rows mostly wait for replace_after and blocks).
 */
type Lane = ChainCode | "BSC-topup";
const LANES: Array<[Lane, ChainCode]> = [["BSC", "BSC"], ["BASE", "BASE"], ["BSC-topup", "BSC"]];
const nodes = new Map<Lane, AnvilNode>();
const turns = new Map<Lane, Promise<unknown>>();

/** Runs `fn` once the rows before it in `lane` have finished. */
function inLane(lane: Lane, fn: () => Promise<void>): Promise<void> {
  const run = (turns.get(lane) ?? Promise.resolve()).then(fn, fn);
  turns.set(lane, run.catch(() => undefined));
  return run;
}

beforeAll(async () => {
  await Promise.all(LANES.map(async ([lane, chain]) => nodes.set(lane, await startAnvil({ chain, baseFee: 10n ** 9n }))));
});
afterAll(async () => {
  await disposeCrashGateways();
  for (const n of nodes.values()) await n.stop();
});
/** A row's timeout: it may wait for the other row of its lane. */
const ROW_MS = 2 * 120_000;

/** Only `chain` enabled, in rpc mode on `url`, replacing after 1 s. */
const toml = (chain: ChainCode, url: string) =>
  `[log]\nlevel = "warn"\n` +
  chainCodes()
    .map((c) => (c === chain ? `[chains.${c}]\nenabled = true\nmode = "rpc"\nrpc_urls = ["${url}"]\nconfirmations = 3\npoll_interval = "200ms"\nreplace_after = "1s"\n` : `[chains.${c}]\nenabled = false\n`))
    .join("");

/**
 * A child gateway on `chain` that kills itself at `point`, started, with a binding paid 50 USDT
 * (and `native` coin when given) whose deposit completed.
 */
async function paidSource(lane: Lane, chain: ChainCode, point: string, name: string, native?: bigint) {
  const node = nodes.get(lane)!;
  const t = chainModule(chain).defaults.tokens.find((x) => x.symbol === "USDT") ?? chainModule(chain).defaults.tokens[0]!;
  const token = t.symbol as TokenSymbol;
  const units = (whole: bigint) => whole * 10n ** BigInt(t.decimals);
  const c = await crashGateway({ merchantName: `${chain.toLowerCase()}-${name}-${point.split("-").pop()}`, toml: toml(chain, node.url) });
  const { client } = c;
  const g = await c.start(point);
  const binding = { chainCode: chain, tokenSymbol: token };
  const bindKey = `${name}-${chain}-${point}`;
  const source = (await client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { ...binding, bindKey } })).address as string;
  await node.mint(token, source, units(50n));
  if (native !== undefined) await node.setBalance(source, native);
  await node.mine(2);
  await eventually(
    async () => (await client.request<Obj>("GET", `/openapi/payin/exclusive-bindings/${bindKey}`, { query: binding })).stats.completedOrders === 1,
    40_000,
    "the deposit completed",
    50,
  );
  return { node, token, units, c, client, g, binding, source };
}

/** Which of `hashes` the chain holds a receipt for. */
async function landedOf(node: AnvilNode, hashes: string[]): Promise<string[]> {
  const landed = [];
  for (const h of hashes) if (await node.rpc("eth_getTransactionReceipt", [h])) landed.push(h);
  return landed;
}

/** The replacements stored for payout `orderNo` (their hashes, in the order stored). */
async function replacementsOf(c: CrashGateway, orderNo: string): Promise<string[]> {
  const [payout] = await rowsOf(c, payoutOrders, { orderNo });
  return (await rowsOf(c, payoutTxAttempts, { payoutOrderId: payout!.id })).map((a) => a.txHash);
}

/** The gas top-up of the payout the merchant numbered `merchantOrderNo`, and its replacements' hashes in the order stored. */
async function topupOf(c: CrashGateway, merchantOrderNo: string) {
  const [payout] = await rowsOf(c, payoutOrders, { merchantOrderNo });
  const [topup] = await rowsOf(c, gasTopups, { payoutOrderId: payout!.id });
  return { topup: topup!, replacements: (await rowsOf(c, gasTopupAttempts, { gasTopupId: topup!.id })).map((a) => a.txHash) };
}

const sentBy = async (node: AnvilNode, a: string) => Number(BigInt(await node.rpc<string>("eth_getTransactionCount", [a, "latest"])));

/** Runs `fn` with automine off (`mineSteadily`: a block every 150 ms from then on); automine is back on after. */
async function withoutAutomine(node: AnvilNode, fn: (mineSteadily: () => void) => Promise<void>): Promise<void> {
  await node.setAutomine(false);
  let mining: ReturnType<typeof setInterval> | undefined;
  try {
    await fn(() => (mining = setInterval(() => void node.mine(1).catch(() => {}), 150)));
  } finally {
    if (mining) clearInterval(mining);
    await node.setAutomine(true);
  }
}

/** The restarted gateway stops cleanly; the source paid 20 of its 50 to `to` with one transaction. */
async function expectPaidOnce(p: Awaited<ReturnType<typeof paidSource>>, g: Awaited<ReturnType<CrashGateway["start"]>>, to: string): Promise<void> {
  expect(await g.kill("SIGTERM")).toBe(0);
  expect(await p.node.tokenBalance(p.token, to)).toBe(p.units(20n));
  expect(await p.node.tokenBalance(p.token, p.source)).toBe(p.units(30n));
  expect(await sentBy(p.node, p.source)).toBe(1);
}

const ROWS = CHAINS.flatMap((chain) => ["payout:after-replace-commit", "payout:after-replace-broadcast"].map((point) => [chain, point] as const));

describe("a replaced EVM payout survives a crash", () => {
  test.concurrent.each(ROWS)(
    "%s: killed at %s, restarted: paid exactly once, with one of its stored hashes",
    (chain, point) => inLane(chain, async () => {
      const paid = await paidSource(chain, chain, point, "replace", 10n ** 17n);
      const { node, token, c, client, binding, source } = paid;
      let g = paid.g;
      const [to] = someAddresses(1, `${chain}-${point}`);
      await withoutAutomine(node, async (mineSteadily) => {
        const o = await client.request<Obj>("POST", "/openapi/payout/orders", { body: { ...binding, fromAddress: source, toAddress: to, amount: "20", merchantOrderNo: `REPLACE-${chain}-${point}`, notifyUrl: "https://shop.example/po" } });
        expect(o.status).toBe("broadcasted");
        // Not mined: after replace_after the gateway replaces it, stores the replacement, and dies.
        await killedAt(g, point);
        const stored = await replacementsOf(c, o.orderNo);
        expect(stored).toHaveLength(1);
        expect(await node.tokenBalance(token, to!)).toBe(0n);

        g = await c.start();
        mineSteadily();
        const done = await payoutSettled(client, o.orderNo);
        expect(done).toMatchObject({ status: "confirmed", fromAddress: source });
        const hashes = [o.txHash, ...(await replacementsOf(c, o.orderNo))];
        expect(hashes).toContain(done.txHash);
        expect(hashes).toContain(stored[0]!);
        expect(await landedOf(node, hashes)).toEqual([done.txHash]);
      });
      await expectPaidOnce(paid, g, to!);
    }),
    ROW_MS,
  );
});

const TOPUP_ROWS = ["payout:after-topup-replace-commit", "payout:after-topup-replace-broadcast"] as const;

describe("a replaced EVM gas top-up survives a crash", () => {
  test.concurrent.each(TOPUP_ROWS)(
    "BSC: killed at %s, restarted: the gas wallet sends once, with one of the top-up's stored hashes; paid exactly once",
    (point) => inLane("BSC-topup", async () => {
      const paid = await paidSource("BSC-topup", "BSC", point, "topup-replace");
      const { node, token, c, client, binding, source } = paid;
      let g = paid.g;
      // The source holds no native coin: the gas wallet (index 0) tops it up (`wallet gas` shows it).
      const shown = await c.cli("wallet", "gas", "--json");
      expect(shown.code).toBe(0);
      const gas = (JSON.parse(shown.stdout) as Array<{ chainCode: string; address: string }>).find((r) => r.chainCode === "BSC")!.address;
      await node.setBalance(gas, 10n ** 18n);

      const [to] = someAddresses(1, `topup-${point}`);
      const body = { ...binding, fromAddress: source, toAddress: to, amount: "20", merchantOrderNo: `TOPUP-REPLACE-${point}`, notifyUrl: "https://shop.example/po" };
      await withoutAutomine(node, async (mineSteadily) => {
        // The top-up is not mined: after replace_after the gateway replaces it, stores the replacement, and dies.
        expect(await client.request("POST", "/openapi/payout/orders", { body }).catch((e: Error) => e)).toBeInstanceOf(Error);
        await killedAt(g, point);
        const { topup: first, replacements: stored } = await topupOf(c, body.merchantOrderNo);
        expect(stored).toHaveLength(1);
        expect(await node.tokenBalance(token, to!)).toBe(0n);

        g = await c.start();
        mineSteadily();
        const again = await client.request<Obj>("POST", "/openapi/payout/orders", { body });
        const done = await payoutSettled(client, again.orderNo);
        expect(done).toMatchObject({ status: "confirmed", fromAddress: source });
        const { topup, replacements } = await topupOf(c, body.merchantOrderNo);
        const hashes = [first.txHash, ...replacements];
        expect(hashes).toContain(stored[0]!);
        expect(topup.status).toBe("confirmed");
        expect(await landedOf(node, hashes)).toEqual([topup.txHash]);
      });
      await expectPaidOnce(paid, g, to!);
      expect(await sentBy(node, gas)).toBe(1);
    }),
    ROW_MS,
  );
});
