// Balances per gateway address and token. The ledger holds what is final on
// chain (deposits when final, payouts when confirmed); available = ledger
// minus what unfinished payouts reserve. A job compares the ledger with the
// chain's own balance and reports differences; it never rewrites the ledger.
import type { Db } from "../db/client";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import { type DbOrTx, writeTx } from "../db/client";
import { inSlices } from "../lib/slices";
import type { ChainAdapter, TokenSymbol } from "../chains/types";
import type { AddressRow } from "../wallet/addresses";
import { BALANCE_MISMATCH } from "./state";
import { forEachSeq, mapSeq } from "../lib/async-seq";
import { balanceCheckOf, type BalanceRow, fundedAddressRows, inflightOut, ledgerBalance, pendingIn, reconcilePage, reservedBalance, saveBalanceCheck } from "./balances-store";

export { ledgerBalance, ledgerSum, merchantAddresses, openDiscrepancies, reservedBalance, unfinishedFrom } from "./balances-store";

export interface AddressBalance {
  ledger: bigint;
  reserved: bigint;
  available: bigint;
}

export async function addressBalance(db: DbOrTx, addressId: string, token: string): Promise<AddressBalance> {
  const ledger = await ledgerBalance(db, addressId, token);
  const reserved = await reservedBalance(db, addressId, token);
  return { ledger, reserved, available: ledger - reserved };
}

/**
 * The merchant's live addresses on a chain that hold a ledger balance in the token,
 * with their balances: rows of address_balances (address_balances_merchant), so the
 * cost follows how many addresses the merchant has, never their history.
 */
export async function fundedAddresses(db: DbOrTx, merchantId: number, chain: string, token: string): Promise<Array<{ address: AddressRow } & AddressBalance>> {
  const rows = await fundedAddressRows(db, merchantId, chain, token);
  // Derivation order, as the merchant's address list (ties between equal balances go to the older address).
  rows.sort((a, b) => a.derivationIndex - b.derivationIndex);
  return await mapSeq(rows, async (address) => ({ address, ...await addressBalance(db, address.id, token) }));
}

// ---- reconciliation ----

export interface Discrepancy {
  addressId: string;
  address: string;
  token: string;
  ledger: bigint;
  chain: bigint;
  difference: bigint;
}

/**
 * Compares every address of the chain that has ledger entries with the chain.
 * In-flight movements make a range acceptable: broadcast payouts may already
 * have left, deposits that are not final yet may already be there.
 */
/** What a reconciliation run reads and writes through. */
export interface ReconcileDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
}

/** Balance rows per slice of a reconcile run (each is one chain read and a few seeks; a slice holds the loop a few ms, DESIGN 11). */
export const RECONCILE_SLICE = 16;

export async function reconcileChain(ctx: ReconcileDeps, adapter: ChainAdapter): Promise<Discrepancy[]> {
  const out: Discrepancy[] = [];
  // Keyset pages over the chain's balance rows (address_balances_chain), a turn given back between
  // pages: in sandbox mode tokenBalance answers without I/O, so nothing else would ever yield.
  let after = { addressId: "", token: "" };
  await inSlices(async () => {
    const page = await reconcilePage(ctx.db, adapter.chain, after.addressId, after.token, RECONCILE_SLICE);
    // Chain reads first (I/O, awaited), then the slice's comparisons and writes in one transaction:
    // one commit per slice, not one fsync per address.
    const onChain: bigint[] = [];
    for (const p of page) onChain.push(await adapter.tokenBalance(p.address, p.token as TokenSymbol));
    await writeTx(ctx.db, async () => await forEachSeq(page, async (p, i) => await reconcileOne(ctx, adapter, p, onChain[i]!, out)));
    if (page.length) after = page[page.length - 1]!;
    return page.length === RECONCILE_SLICE;
  });
  return out;
}

async function reconcileOne(ctx: ReconcileDeps, adapter: ChainAdapter, p: BalanceRow, onChain: bigint, out: Discrepancy[]): Promise<void> {
  const now = ctx.clock.now();
  // Read after the chain answered: an entry written meanwhile is counted (in-flight ranges cover the rest).
  const ledger = await ledgerBalance(ctx.db, p.addressId, p.token);
  const out_ = await inflightOut(ctx.db, p.addressId, p.token);
  const in_ = await pendingIn(ctx.db, p.addressId, p.token);
  const ok = onChain >= ledger - out_ && onChain <= ledger + in_;
  const difference = ok ? 0n : onChain - ledger;
  const prev = await balanceCheckOf(ctx.db, p.addressId, p.token);
  const row = {
    addressId: p.addressId,
    token: p.token,
    chain: adapter.chain,
    ledgerBalance: ledger.toString(),
    chainBalance: onChain.toString(),
    difference: difference.toString(),
    status: ok ? ("ok" as const) : BALANCE_MISMATCH,
    mismatchSince: ok ? null : (prev?.mismatchSince ?? now),
    checkedAt: now,
  };
  await saveBalanceCheck(ctx.db, row);
  if (!ok) {
    out.push({ addressId: p.addressId, address: p.address, token: p.token, ledger, chain: onChain, difference });
    if (prev?.status !== BALANCE_MISMATCH || prev.difference !== row.difference) {
      ctx.logger.warn("ledger and chain balance differ", { chain: adapter.chain, address: p.address, token: p.token, ledger: ledger.toString(), onChain: onChain.toString() });
    }
  }
}
