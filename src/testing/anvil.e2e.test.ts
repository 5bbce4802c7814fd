import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { someAddresses } from "./bsc-fixture";
import { startAnvil, type AnvilNode } from "./anvil";

let node: AnvilNode;
beforeAll(async () => {
  node = await startAnvil();
});
afterAll(() => node?.stop());

describe("anvil test node", () => {
  test("runs chain 56 with the 18-decimal test token at both mainnet token addresses", async () => {
    expect(await node.rpc("eth_chainId")).toBe("0x38");
    const [a] = someAddresses(1, "harness");
    await node.mint("USDT", a, 7n);
    await node.mint("USDC", a, 9n);
    expect(await node.tokenBalance("USDT", a)).toBe(7n);
    expect(await node.tokenBalance("USDC", a)).toBe(9n);
  });

  test("snapshot/revert undoes blocks and balances; setBalance sets BNB", async () => {
    const [a] = someAddresses(1, "snap");
    const id = await node.snapshot();
    const before = await node.blockNumber();
    await node.mint("USDT", a, 5n);
    await node.setBalance(a, 123n);
    expect(BigInt(await node.rpc("eth_getBalance", [a, "latest"]))).toBe(123n);
    await node.revert(id);
    expect(await node.blockNumber()).toBe(before);
    expect(await node.tokenBalance("USDT", a)).toBe(0n);
  });

  test("reorg keeps the height and replaces the block hashes; mine adds blocks", async () => {
    await node.mine(3);
    const n = await node.blockNumber();
    const old = (await node.rpc("eth_getBlockByNumber", ["0x" + n.toString(16), false])).hash;
    await node.reorg(2);
    expect(await node.blockNumber()).toBe(n);
    expect((await node.rpc("eth_getBlockByNumber", ["0x" + n.toString(16), false])).hash).not.toBe(old);
  });

  test("stop kills the node", async () => {
    const other = await startAnvil({ tokens: false });
    await other.stop();
    await expect(fetch(other.url, { method: "POST", body: "{}" })).rejects.toThrow();
  });
});
