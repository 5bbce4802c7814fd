// `make bench ARGS=rpc`, section 4b: the sweep's RPC cost (DESIGN 25), per chain on its test node
// (anvil behind the proxy, the TRON node, LiteSVM behind the proxy), counted at the node: for 10
// addresses that received 2 transfers each, an address's first sweep (nothing known, back to a
// 24 h window) and a later one (everything known, the blocks of the 5 minutes since).
import type { ChainAdapter, SweepQuery, TokenSymbol } from "../src/chains/types";

const ADDRESSES = 10;
const DAY_MS = 24 * 3600_000;

interface Chain {
  name: string;
  adapter: ChainAdapter;
  addresses: string[];
  pay(to: string, amount: bigint): Promise<unknown>;
  /** Blocks (slots) appear; the highest the sweep may report after them. */
  advance(n: number): Promise<bigint>;
  calls(): number;
  reset(): void;
  stop(): Promise<void>;
}

async function measure(c: Chain, laterBlocks: number): Promise<void> {
  for (const [i, a] of c.addresses.entries()) {
    await c.pay(a, BigInt(i + 1));
    await c.pay(a, BigInt(i + 100));
  }
  const upTo = await c.advance(8);
  const ask = (q: Omit<SweepQuery, "address">) => Promise.all(c.addresses.map((address) => c.adapter.sweep!({ address, ...q })));
  c.reset();
  const first = await ask({ after: null, since: Date.now() - DAY_MS, upTo, known: async () => false });
  const firstCalls = c.calls();
  const later = await c.advance(laterBlocks);
  c.reset();
  const next = await ask({ after: upTo, since: Date.now() - DAY_MS, upTo: later, known: async () => true });
  const nextCalls = c.calls();
  const found = (r: unknown[][]) => r.reduce((s, x) => s + x.length, 0);
  console.log(
    `  ${c.name.padEnd(5)} first sweep: ${(firstCalls / ADDRESSES).toFixed(1)} calls per address (${found(first)} transfers found); ` +
      `later sweep over ${laterBlocks} blocks: ${(nextCalls / ADDRESSES).toFixed(1)} calls per address (${found(next)} new)`,
  );
}

async function evm(): Promise<Chain> {
  const { startBscFixture, someAddresses } = await import("../src/testing/bsc-fixture");
  const fx = await startBscFixture();
  await fx.node.mint("USDT", fx.node.devAddress, 10n ** 24n);
  const adapter = fx.adapter();
  await adapter.start();
  return {
    name: "BSC",
    adapter,
    addresses: someAddresses(ADDRESSES, "bench-sweep"),
    pay: (to, amount) => fx.node.transfer("USDT" as TokenSymbol, to, amount),
    advance: async (n) => {
      await fx.node.mine(n);
      return (await adapter.head()).latest;
    },
    calls: () => fx.proxy.totalCalls(),
    reset: () => fx.proxy.resetCounts(),
    stop: () => fx.stop(),
  };
}

async function tron(): Promise<Chain> {
  const { startTronFixture } = await import("../src/testing/tron-fixture");
  const { deriveTronKey } = await import("../src/chains/tron/address");
  const fx = await startTronFixture({ solidLag: 3 });
  const adapter = fx.adapter();
  await adapter.start();
  return {
    name: "TRON",
    adapter,
    addresses: Array.from({ length: ADDRESSES }, (_, i) => deriveTronKey(new Uint8Array(32).fill(9), i).address),
    pay: async (to, amount) => {
      await fx.sendUsdt(to, amount);
      fx.node.mine(1);
    },
    advance: async (n) => {
      fx.node.mine(n);
      return (await adapter.head()).latest;
    },
    calls: () => fx.node.totalCalls(),
    reset: () => fx.node.resetCounts(),
    stop: () => fx.stop(),
  };
}

async function sol(): Promise<Chain> {
  const { startSolFixture, someSolAddresses } = await import("../src/testing/sol-fixture");
  const fx = await startSolFixture({ finalizedLag: 2 });
  const adapter = fx.adapter();
  await adapter.start();
  const payer = fx.payer(1_000_000_000n);
  return {
    name: "SOL",
    adapter,
    addresses: someSolAddresses(ADDRESSES, "bench-sweep"),
    pay: async (to, amount) => {
      await fx.pay(payer, [[to, amount]]);
      fx.node.advance(1);
    },
    advance: async (n) => {
      fx.node.advance(n);
      fx.node.finalizeAll();
      return (await adapter.head()).scanTo!;
    },
    calls: () => fx.proxy.totalCalls(),
    reset: () => fx.proxy.resetCounts(),
    stop: () => fx.stop(),
  };
}

export async function benchSweep(): Promise<void> {
  console.log(`4b. the sweep (DESIGN 25): node calls per swept address, ${ADDRESSES} addresses with 2 transfers each`);
  // A later sweep covers the blocks of sweep_every = 5 min: BSC 100 (3 s), TRON 100 (3 s), SOL 750 (0.4 s).
  for (const [start, laterBlocks] of [[evm, 100], [tron, 100], [sol, 750]] as const) {
    const c = await start();
    try {
      await measure(c, laterBlocks);
    } finally {
      await c.stop();
    }
  }
}
