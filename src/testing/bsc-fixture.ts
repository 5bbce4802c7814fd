// One anvil node with the fault-injecting proxy in front and an adapter pointed at the proxy:
// BSC by default, or another product EVM chain (its chain id, tokens and profile).
import { getAddress, keccak256, toHex } from "viem";
import type { BscAdapter, BscAdapterOptions } from "../chains/bsc/adapter";
import { createEvmAdapter } from "../chains/evm/adapter";
import { chainModule } from "../chains/registry";
import type { ChainCode, TokenInfo } from "../chains/types";
import { EVM_PROFILES, shareAnvil, startAnvil, type AnvilNode, type StartAnvilOptions } from "./anvil";
import { startRpcProxy, type ProxyFaults, type RpcProxy } from "./rpc-proxy";

export const BSC_TOKENS: TokenInfo[] = chainModule("BSC").defaults.tokens.map((t) => ({ ...t }));

export interface BscFixture {
  node: AnvilNode;
  proxy: RpcProxy;
  /** An adapter on the proxy; fast backoff so fault tests stay quick. */
  adapter(overrides?: Partial<BscAdapterOptions>): BscAdapter;
  stop(): Promise<void>;
}

export async function startBscFixture(faults: ProxyFaults = {}, anvil: StartAnvilOptions = {}): Promise<BscFixture> {
  const chain: ChainCode = anvil.chain ?? "BSC";
  const tokens = chainModule(chain).defaults.tokens.map((t) => ({ ...t }));
  const node = anvil.shared ? await shareAnvil(anvil) : await startAnvil(anvil);
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
      createEvmAdapter(EVM_PROFILES[chain]!, { rpcUrls: [proxy.url], tokens, confirmations: 3, backoffBaseMs: 5, requestTimeoutMs: 2000, ...o }),
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
