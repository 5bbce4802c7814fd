// One LiteSVM-backed Solana node, the fault-injecting proxy in front, and an adapter on the proxy.
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, createTransferInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { createHash } from "node:crypto";
import { base58 } from "@scure/base";
import { createSolAdapter, type SolAdapter, type SolAdapterOptions } from "../chains/sol/adapter";
import { chainModule } from "../chains/registry";
import type { TokenInfo } from "../chains/types";
import { startRpcProxy, type RpcProxy } from "./rpc-proxy";
import { startSolanaRpc, SOL_MINTS, type SolanaRpcNode, type SolanaRpcNodeOptions } from "./solana-rpc";

export const SOL_TOKENS: TokenInfo[] = chainModule("SOL").defaults.tokens.map((t) => ({ ...t }));
export type SolTestToken = keyof typeof SOL_MINTS;

export interface SolFixture {
  node: SolanaRpcNode;
  proxy: RpcProxy;
  /** web3.js on the node itself (the payer's wallet side). */
  conn: Connection;
  adapter(overrides?: Partial<SolAdapterOptions>): SolAdapter;
  /** A keypair with SOL and `units` base units of `token` (default USDC) in its ATA. */
  payer(units: bigint, token?: SolTestToken): Keypair;
  /** Sends `token` (default USDC) from `payer` to each `[owner, amount]` in one transaction built with spl-token (transferChecked unless `plain`). */
  pay(payer: Keypair, to: Array<[string, bigint]>, opts?: { plain?: boolean; token?: SolTestToken }): Promise<string>;
  stop(): Promise<void>;
}

export async function startSolFixture(nodeOpts: SolanaRpcNodeOptions = {}): Promise<SolFixture> {
  const node = await startSolanaRpc(nodeOpts);
  let proxy: RpcProxy;
  try {
    proxy = await startRpcProxy(node.url);
  } catch (e) {
    await node.stop();
    throw e;
  }
  const conn = new Connection(node.url, "confirmed");
  return {
    node,
    proxy,
    conn,
    adapter: (o = {}) => createSolAdapter({ rpcUrls: [proxy.url], tokens: SOL_TOKENS, confirmations: 2, backoffBaseMs: 5, requestTimeoutMs: 2000, ...o }),
    payer(units, token = "USDC") {
      const kp = Keypair.generate();
      node.airdrop(kp.publicKey.toBase58(), 1_000_000_000n);
      if (units > 0n) node.mint(kp.publicKey.toBase58(), units, SOL_MINTS[token]);
      return kp;
    },
    async pay(payer, to, opts = {}) {
      const MINT = new PublicKey(SOL_MINTS[opts.token ?? "USDC"]);
      const src = getAssociatedTokenAddressSync(MINT, payer.publicKey);
      const ixs: TransactionInstruction[] = [];
      for (const [owner, amount] of to) {
        const o = new PublicKey(owner);
        const dst = getAssociatedTokenAddressSync(MINT, o, true);
        ixs.push(createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, dst, o, MINT));
        ixs.push(opts.plain ? createTransferInstruction(src, dst, payer.publicKey, amount) : createTransferCheckedInstruction(src, MINT, dst, payer.publicKey, amount, 6));
      }
      return conn.sendTransaction(new Transaction().add(...ixs), [payer]);
    },
    async stop() {
      await proxy.stop();
      await node.stop();
    },
  };
}

/** `n` distinct, deterministic Solana addresses (no keys: receive-only). */
export function someSolAddresses(n: number, salt = "watch"): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(base58.encode(createHash("sha256").update(`${salt}:${i}`).digest()));
  return out;
}
