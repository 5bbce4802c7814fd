// The Solana node as the adapter's parts see it: the configured mints (with their token
// program, learnt at start-up), the JSON-RPC client with failover, associated token accounts
// (cached: their derivation hashes until it finds an off-curve point) and the rent of one.
import { Keypair, PublicKey } from "@solana/web3.js";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from "@solana/spl-token";
import type { TokenInfo, TokenSymbol } from "../types";
import { isSolAddress, normalizeSolAddress, solKeypairBytes } from "./address";
import { assertDecimals, assertKeyFor } from "../common/adapter-parts";
import { RpcClient, RpcError, type RpcLogger } from "./rpc";
import type { SolAdapterOptions } from "./types";

/** Lamports per signature (the base fee; priority fees are not used). */
export const LAMPORTS_PER_SIGNATURE = 5000n;
const TOKEN_ACCOUNT_SIZE = 165;

/** Only finalized slots are reported, and they cannot be reorganised: a slot's "hash" is its name. */
export const slotName = (n: bigint) => `slot:${n}`;

export interface TokenState extends TokenInfo {
  mintKey: PublicKey;
  programId: PublicKey;
}

export interface SolNode {
  opts: SolAdapterOptions;
  tokens: TokenState[];
  rpc: RpcClient;
  log?: RpcLogger;
  /** Signatures per getSignaturesForAddress page. */
  pageLimit: number;
  /** The token of `symbol`; throws when it is not configured. */
  token(symbol: TokenSymbol): TokenState;
  /** `owner`'s associated token account of `t`. */
  ataOf(owner: string, t: TokenState): string;
  /** Lamports a new token account needs to be rent-exempt (asked once). */
  tokenRent(): Promise<bigint>;
  /** Checks every mint and learns its token program (ATAs are derived anew after). */
  checkMints(): Promise<void>;
}

export function connectSolNode(opts: SolAdapterOptions): SolNode {
  const tokens: TokenState[] = opts.tokens.map((t) => {
    if (t.chain !== "SOL") throw new Error(`token ${t.chain} ${t.symbol} given to the SOL adapter`);
    if (!isSolAddress(t.contract)) throw new Error(`SOL ${t.symbol} mint is not an address: ${t.contract}`);
    return { ...t, contract: normalizeSolAddress(t.contract), mintKey: new PublicKey(t.contract), programId: TOKEN_PROGRAM_ID };
  });
  const bySymbol = new Map(tokens.map((t) => [t.symbol, t]));
  const rpc = new RpcClient({
    urls: opts.rpcUrls,
    timeoutMs: opts.requestTimeoutMs,
    backoffBaseMs: opts.backoffBaseMs,
    attempts: opts.rpcAttempts ?? Math.max(4, 2 * opts.rpcUrls.length),
    logger: opts.logger,
    clock: opts.clock,
  });
  // owner → ATA per token (derivation hashes until it finds an off-curve point: cache it).
  const atas = new Map<string, string>();
  let rentForTokenAccount: bigint | null = null;
  return {
    opts,
    tokens,
    rpc,
    log: opts.logger,
    pageLimit: Math.min(1000, Math.max(1, opts.pageLimit ?? 1000)),
    token(symbol) {
      const t = bySymbol.get(symbol);
      if (!t) throw new Error(`SOL ${symbol} is not configured`);
      return t;
    },
    ataOf(owner, t) {
      const key = `${t.symbol}:${owner}`;
      let a = atas.get(key);
      if (!a) {
        a = getAssociatedTokenAddressSync(t.mintKey, new PublicKey(owner), true, t.programId).toBase58();
        atas.set(key, a);
      }
      return a;
    },
    async tokenRent() {
      rentForTokenAccount ??= BigInt(await rpc.request<number>("getMinimumBalanceForRentExemption", [TOKEN_ACCOUNT_SIZE]));
      return rentForTokenAccount;
    },
    async checkMints() {
      for (const t of tokens) {
        const info = await rpc.request<{ value: { owner: string; data: { parsed?: { type?: string; info?: { decimals?: number } } } | unknown } | null }>("getAccountInfo", [
          t.contract,
          { encoding: "jsonParsed", commitment: "finalized" },
        ]);
        const v = info.value;
        const owner = v?.owner;
        if (!v || (owner !== TOKEN_PROGRAM_ID.toBase58() && owner !== TOKEN_2022_PROGRAM_ID.toBase58())) {
          throw new Error(`SOL ${t.symbol}: no token mint at ${t.contract}`);
        }
        const parsed = (v.data as { parsed?: { type?: string; info?: { decimals?: number } } }).parsed;
        if (parsed?.type !== "mint" || typeof parsed.info?.decimals !== "number") throw new Error(`SOL ${t.symbol}: ${t.contract} is not a mint`);
        assertDecimals("SOL", t, parsed.info.decimals);
        t.programId = new PublicKey(owner);
        atas.clear();
      }
      opts.logger?.info({ msg: "sol adapter started", tokens: tokens.map((t) => t.symbol) });
    },
  };
}

/** The keypair of `privateKey`; throws when it is not `expect`'s key. */
export function keypair(privateKey: Uint8Array, expect?: string): Keypair {
  const kp = Keypair.fromSecretKey(solKeypairBytes(privateKey));
  assertKeyFor(expect === undefined ? undefined : normalizeSolAddress(expect), kp.publicKey.toBase58());
  return kp;
}

/** The answers of a batch, or the first error among them thrown. */
export function throwIfError<T>(answers: Array<unknown | RpcError>): T[] {
  for (const a of answers) if (a instanceof RpcError) throw a;
  return answers as T[];
}
