// One sandbox transaction by hash (DESIGN 25: the payer's hash, the back office's look-up): its
// rows in the sandbox ledger, token ones as transfers, with the block's hash, time and finality.
import type { ChainHead, TokenInfo, TokenSymbol, TxLookup } from "../types";
import type { Db } from "../../db/client";
import { inclusion } from "../common/adapter-parts";
import { sandboxTransactionRows } from "./store";

/** What the lookup reads of the sandbox chain. */
export interface SandboxLookupSource {
  db: Db;
  chain: string;
  tokens: readonly TokenInfo[];
  head(): Promise<ChainHead>;
  hashOf(number: number): Promise<string>;
}

const SANDBOX_HASH = /^[0-9A-Za-z]{16,128}$/;

export async function sandboxTxLookup(s: SandboxLookupSource, hash: string): Promise<TxLookup> {
  const txHash = hash.trim();
  if (!SANDBOX_HASH.test(txHash)) return { state: "malformed" };
  const rows = await sandboxTransactionRows(s.db, s.chain, txHash);
  if (!rows.length) return { state: "not_found" };
  const first = rows[0]!.t;
  if (first.blockNumber === null) return { state: "pending", txHash };
  const blockNumber = BigInt(first.blockNumber);
  const success = first.failed === 0;
  const bySymbol = new Map(s.tokens.map((t) => [t.symbol as string, t]));
  return {
    state: "included",
    txHash,
    success,
    blockNumber,
    blockHash: await s.hashOf(first.blockNumber),
    blockTime: rows[0]!.time ?? 0,
    ...inclusion(await s.head(), blockNumber),
    transfers: success
      ? rows
          .filter(({ t }) => bySymbol.has(t.token))
          .map(({ t }) => ({ token: t.token as TokenSymbol, contract: bySymbol.get(t.token)!.contract, logIndex: t.logIndex, from: t.fromAddress, to: t.toAddress, amount: BigInt(t.amount) }))
      : [],
  };
}
