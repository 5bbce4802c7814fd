// Catch-up figures for an EVM adapter against a local anvil (prints, asserts nothing):
// blocks/s scanning 500 blocks, by watch-set size and provider range cap, plus the cost of
// one eth_getLogs with N addresses in the topic-2 filter (why topicFilterLimit is 500).
// `bun scripts/bench-bsc-scan.ts [CHAIN]`: BSC by default, or another product EVM chain
// (anvil with its chain id and tokens; `make bench` runs BSC and BASE).
import { createEvmAdapter } from "../src/chains/evm/adapter";
import { chainModule, hasChainModule } from "../src/chains/registry";
import { toBaseUnits } from "../src/lib/money";
import { someAddresses } from "../src/testing/bsc-fixture";
import { EVM_PROFILES, startAnvil } from "../src/testing/anvil";
import { startRpcProxy } from "../src/testing/rpc-proxy";
import { watchSetOf } from "../src/testing/watch-set";

const BLOCKS = 500;
const CHAIN = process.argv[2] ?? "BSC";
if (!hasChainModule(CHAIN) || !EVM_PROFILES[CHAIN]) throw new Error(`not a product EVM chain: ${CHAIN}`);
const PROFILE = EVM_PROFILES[CHAIN]!;
const TOKENS = chainModule(CHAIN).defaults.tokens.map((t) => ({ ...t }));
const node = await startAnvil({ chain: CHAIN });
const proxy = await startRpcProxy(node.url);
try {
  const recipients = someAddresses(50, "bench");
  for (const t of TOKENS) await node.mint(t.symbol, node.devAddress, toBaseUnits("1000000", t.decimals));
  const from = (await node.blockNumber()) + 1n;
  for (let i = 0; i < 100; i++) {
    await node.transfer(TOKENS[i % TOKENS.length]!.symbol, recipients[i % 10], BigInt(i + 1));
    await node.mine(3);
  }
  await node.mine(Number(from + BigInt(BLOCKS) - 1n - (await node.blockNumber())));
  const to = from + BigInt(BLOCKS) - 1n;
  const crowd = [...recipients, ...someAddresses(100_000 - recipients.length, "crowd")];

  console.log(`${CHAIN} scan catch-up (chain id ${PROFILE.chainId}, ${TOKENS.map((t) => t.symbol).join("+")}), ${BLOCKS} blocks with 100 transfers, anvil via proxy on 127.0.0.1`);
  const rows: Array<[string, number, number]> = [
    ["10 watched, range cap 1000", 10, 1000],
    ["100k watched, range cap 1000", 100_000, 1000],
    ["10 watched, range cap 5 (public-endpoint-like)", 10, 5],
    ["100k watched, range cap 5", 100_000, 5],
  ];
  for (const [label, n, cap] of rows) {
    const watch = watchSetOf(n === 10 ? recipients.slice(0, 10) : crowd);
    proxy.setFaults(cap < 1000 ? { maxLogRange: cap } : {});
    proxy.resetCounts();
    const adapter = createEvmAdapter(PROFILE, { rpcUrls: [proxy.url], tokens: TOKENS, confirmations: 3, maxLogRange: cap < 1000 ? 1000 : cap });
    // The first scan learns the cap; measure the second, as a running watcher would see it.
    await adapter.scan(from, to, watch);
    proxy.resetCounts();
    const t0 = performance.now();
    const { transfers } = await adapter.scan(from, to, watch);
    const s = (performance.now() - t0) / 1000;
    console.log(
      `  ${label.padEnd(48)} ${(BLOCKS / s).toFixed(0).padStart(7)} blocks/s  ${((proxy.totalCalls()) / BLOCKS).toFixed(2)} calls/block  ${String(transfers.length).padStart(3)} transfers  ` +
        `${proxy.totalCalls()} calls (${[...proxy.calls].map(([m, c]) => `${m} ${c}`).join(", ")})`,
    );
  }

  console.log("one eth_getLogs over 500 blocks, N addresses in topic 2 (median of 5):");
  for (const n of [0, 10, 500, 2000, 10_000]) {
    const topics = n === 0 ? ["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"] : [
      "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", null,
      crowd.slice(0, n).map((a) => "0x" + "0".repeat(24) + a.slice(2).toLowerCase()),
    ];
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getLogs", params: [{ fromBlock: "0x" + from.toString(16), toBlock: "0x" + to.toString(16), address: TOKENS.map((t) => t.contract), topics }] });
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await (await fetch(node.url, { method: "POST", headers: { "content-type": "application/json" }, body })).json();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`  ${String(n).padStart(6)} addresses: ${times[2].toFixed(1)} ms, request ${(body.length / 1024).toFixed(0)} KiB`);
  }
} finally {
  await proxy.stop();
  await node.stop();
}
