import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { toBaseUnits } from "../../lib/money";
import { startBscFixture, someAddresses, type BscFixture } from "../../testing/bsc-fixture";
import { watchSetOf } from "../../testing/watch-set";
import type { TokenSymbol } from "../types";

let fx: BscFixture;
beforeAll(async () => {
  fx = await startBscFixture();
  await fx.node.mint("USDT", fx.node.devAddress, toBaseUnits("1000000", 18));
  await fx.node.mint("USDC", fx.node.devAddress, toBaseUnits("1000000", 18));
});
afterAll(() => fx?.stop());

describe("BSC scan on anvil", () => {
  test("reports a transfer to a watched address with the exact amount and position, not one to an unwatched address", async () => {
    const [watched, unwatched] = someAddresses(2, "single");
    const amount = toBaseUnits("1.123456789012345678", 18);
    const hit = await fx.node.transfer("USDT", watched, amount);
    const miss = await fx.node.transfer("USDT", unwatched, amount);
    const adapter = fx.adapter();
    await adapter.start();

    const { transfers, tip } = await adapter.scan(hit.blockNumber, miss.blockNumber, watchSetOf([watched]));

    expect(transfers).toHaveLength(1);
    const t = transfers[0];
    expect(t).toMatchObject({
      chain: "BSC",
      token: "USDT",
      txHash: hit.hash,
      logIndex: hit.logIndex,
      blockNumber: hit.blockNumber,
      blockHash: hit.blockHash,
      from: fx.node.devAddress,
      to: watched,
    });
    expect(t.amount).toBe(1_123456789012345678n);
    const block = await fx.node.rpc("eth_getBlockByNumber", ["0x" + hit.blockNumber.toString(16), false]);
    expect(t.blockTime).toBe(Number(BigInt(block.timestamp)) * 1000);
    expect(tip.number).toBe(miss.blockNumber);
    expect(tip.hash).toBe(miss.blockHash);
  });

  test("head is the live block number, final trails by confirmations - 1", async () => {
    const adapter = fx.adapter({ confirmations: 3 });
    const before = await adapter.head();
    await fx.node.mine(2);
    const after = await adapter.head();
    expect(after.latest).toBe(before.latest + 2n);
    expect(after.final).toBe(after.latest - 2n);
    expect(after.time).toBeGreaterThan(0);
  });

  test("after a reorg removes the block, blockHash(n) differs from the recorded hash and the transfer is gone", async () => {
    const [watched] = someAddresses(1, "reorg");
    const adapter = fx.adapter();
    const sent = await fx.node.transfer("USDC", watched, 5n);
    const first = await adapter.scan(sent.blockNumber, sent.blockNumber, watchSetOf([watched]));
    expect(first.transfers.map((t) => t.txHash)).toEqual([sent.hash]);
    expect(await adapter.blockHash(sent.blockNumber)).toBe(first.tip.hash);

    await fx.node.reorg(1);

    const now = await adapter.blockHash(sent.blockNumber);
    expect(now).not.toBeNull();
    expect(now).not.toBe(first.tip.hash);
    const again = await adapter.scan(sent.blockNumber, sent.blockNumber, watchSetOf([watched]));
    expect(again.transfers).toEqual([]);
    expect(again.tip.hash).toBe(now!);
    expect(await adapter.blockHash((await adapter.head()).latest + 10n)).toBeNull();
  });
});

describe("BSC scan under faults and at scale", () => {
  let from: bigint;
  let to: bigint;
  const recipients = someAddresses(10, "many");
  const expected: string[] = [];

  beforeAll(async () => {
    // 200 blocks with 30 transfers to watched addresses and 10 to others, spread out.
    from = (await fx.node.blockNumber()) + 1n;
    const noise = someAddresses(10, "noise");
    for (let i = 0; i < 40; i++) {
      const token: TokenSymbol = i % 3 === 0 ? "USDC" : "USDT";
      if (i < 30) {
        const sent = await fx.node.transfer(token, recipients[i % recipients.length], BigInt(i + 1) * 10n ** 15n + 7n);
        expected.push(`${sent.hash}:${sent.logIndex}`);
      } else {
        await fx.node.transfer(token, noise[i - 30], 1n);
      }
      await fx.node.mine(3);
    }
    const last = await fx.node.blockNumber();
    await fx.node.mine(Number(from + 199n - last));
    to = from + 199n;
    expect(await fx.node.blockNumber()).toBe(to);
  });

  test("with ranges over 5 blocks refused and ~20% of calls failing, each of 30 transfers is reported exactly once", async () => {
    fx.proxy.setFaults({ maxLogRange: 5, failRate: 0.2, seed: 7 });
    try {
      const adapter = fx.adapter({ maxLogRange: 1000 });
      const { transfers, tip } = await adapter.scan(from, to, watchSetOf(recipients));
      expect(transfers.map((t) => `${t.txHash}:${t.logIndex}`).sort()).toEqual([...expected].sort());
      expect(tip.number).toBe(to);
      // The faults really happened.
      expect(fx.proxy.injected.range).toBeGreaterThan(0);
      expect(fx.proxy.injected.fail).toBeGreaterThan(0);
    } finally {
      fx.proxy.setFaults({});
    }
  });

  test("the calls for a range are the same with 10 and with 10,000 watched addresses", async () => {
    const big = [...recipients, ...someAddresses(9_990, "crowd")];
    const counts: Array<Record<string, number>> = [];
    const found: string[][] = [];
    for (const watch of [watchSetOf(recipients), watchSetOf(big)]) {
      const adapter = fx.adapter({ maxLogRange: 50 });
      fx.proxy.resetCounts();
      const { transfers } = await adapter.scan(from, to, watch);
      counts.push(Object.fromEntries(fx.proxy.calls));
      found.push(transfers.map((t) => `${t.txHash}:${t.logIndex}`));
    }
    expect(counts[0]).toEqual(counts[1]);
    expect(counts[0].eth_getLogs).toBe(4);
    expect(found[1]).toEqual(found[0]);
    expect(found[0].length).toBe(30);
  });
});
