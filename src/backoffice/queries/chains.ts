// Chain status for the operator: node head and finality, how far the watcher
// has scanned, the lag, the configured RPC endpoints (redacted), the gas wallet.
import type { AppContext } from "../../app/context";
import type { ChainAdapter, ChainCode } from "../../chains/types";
import { writeTx } from "../../db/client";
import { redactUrl } from "../../lib/redact-url";
import { gasWallet } from "../../wallet/addresses";
import { cursorOf } from "./dashboard";

export interface ChainStatus {
  chain: ChainCode;
  mode: string;
  head: bigint | null;
  final: bigint | null;
  scanned: number | null;
  lag: bigint | null;
  /** Error of the head call (the node is unreachable or failing). */
  error: string | null;
  /** Per endpoint (scheme and host only) as the failover client sees it. */
  endpoints: { endpoint: string; up: boolean; lastError: string | null }[];
  gasAddress: string;
  /** Native base units; null when unknown (sandbox, or the adapter has no balance call). */
  gasBalance: string | null;
}

type Snapshot = { url: string; healthy?: boolean; up?: boolean; lastError?: string | null };

/** The failover RPC client's per-URL health when the adapter exposes it, else the configured URLs. */
function endpointsOf(a: ChainAdapter, configured: string[]): ChainStatus["endpoints"] {
  const rpc = (a as unknown as { rpc?: { healthSnapshot?: () => Snapshot[] } }).rpc;
  if (rpc && typeof rpc.healthSnapshot === "function") {
    return rpc.healthSnapshot().map((h) => ({ endpoint: h.url.replace(/\/….*$/, ""), up: h.healthy ?? h.up ?? true, lastError: h.lastError ?? null }));
  }
  return configured.map((u) => ({ endpoint: redactUrl(u).replace(/\/….*$/, ""), up: true, lastError: null }));
}

const withTimeout = <T,>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);

export async function chainStatuses(ctx: AppContext): Promise<ChainStatus[]> {
  return Promise.all(
    [...ctx.chains.values()].map(async (a) => {
      const cursor = cursorOf(ctx.db, a.chain);
      const gas = writeTx(ctx.db, (tx) => gasWallet(tx, a, ctx.seed, ctx.clock.now()));
      let head: bigint | null = null;
      let final: bigint | null = null;
      let error: string | null = null;
      try {
        const h = await withTimeout(a.head(), 3000);
        head = h.latest;
        final = h.final;
      } catch (e) {
        error = String((e as Error)?.message ?? e).slice(0, 200);
      }
      let gasBalance: string | null = null;
      const native = (a as unknown as { nativeBalance?: (addr: string) => Promise<bigint> }).nativeBalance;
      if (native && a.mode !== "sandbox") {
        try {
          gasBalance = (await withTimeout(native.call(a, gas.address), 3000)).toString();
        } catch {
          gasBalance = null;
        }
      }
      return {
        chain: a.chain,
        mode: a.mode,
        head,
        final,
        scanned: cursor?.blockNumber ?? null,
        lag: head !== null && cursor ? head - BigInt(cursor.blockNumber) : null,
        error,
        endpoints: endpointsOf(a, ctx.config.chains[a.chain].rpc_urls ?? []),
        gasAddress: gas.address,
        gasBalance,
      };
    }),
  );
}
