// One anvil node with the fault-injecting proxy in front and an adapter pointed at the proxy.
import { getAddress, keccak256, toHex } from "viem";
import { createBscAdapter, type BscAdapter, type BscAdapterOptions } from "../chains/bsc/adapter";
import { chainModule } from "../chains/registry";
import type { TokenInfo } from "../chains/types";
import { startAnvil, type AnvilNode } from "./anvil";
import { startRpcProxy, type ProxyFaults, type RpcProxy } from "./rpc-proxy";

export const BSC_TOKENS: TokenInfo[] = chainModule("BSC").defaults.tokens.map((t) => ({ ...t }));

export interface BscFixture {
  node: AnvilNode;
  proxy: RpcProxy;
  /** An adapter on the proxy; fast backoff so fault tests stay quick. */
  adapter(overrides?: Partial<BscAdapterOptions>): BscAdapter;
  stop(): Promise<void>;
}

export async function startBscFixture(faults: ProxyFaults = {}): Promise<BscFixture> {
  const node = await startAnvil();
  let proxy: RpcProxy;
  try {
    proxy = await startRpcProxy(node.url, faults);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return {
    node,
    proxy,
    adapter: (o = {}) =>
      createBscAdapter({ rpcUrls: [proxy.url], tokens: BSC_TOKENS, confirmations: 3, backoffBaseMs: 5, requestTimeoutMs: 2000, ...o }),
    async stop() {
      await proxy.stop();
      await node.stop();
    },
  };
}

/** `n` distinct, deterministic checksummed addresses (no keys: receive-only). */
export function someAddresses(n: number, salt = "watch"): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(getAddress("0x" + keccak256(toHex(`${salt}:${i}`)).slice(26)));
  return out;
}
