/** @jsxImportSource @kitajs/html */
// What transactions cost on chain (DESIGN 21): the order page's list and the totals of a
// batch or a collection run, in the chain's native coin, energy and bandwidth.
import { fromBaseUnits } from "../../lib/money";
import { chainModule, hasChainModule } from "../../chains/registry";
import { nativeSymbol } from "../format";
import type { CostRow, CostTotal } from "../queries/costs";
import { DataTable } from "./common";

/** Native base units as whole coins with the symbol ("13.4 TRX"). */
export function nativeAmount(chain: string, units: bigint | string): string {
  const decimals = hasChainModule(chain) ? chainModule(chain).native.decimals : 0;
  return `${fromBaseUnits(BigInt(units), decimals, 0)} ${nativeSymbol(chain)}`.trim();
}

const KIND: Record<string, string> = { payout: "transfer", gas_topup: "gas top-up", delegate: "energy delegation", reclaim: "energy reclaim", stake: "stake", token_account: "token account" };

/** The four cost cells of a row: burned (native coin), energy delegated, energy burned, bandwidth. */
export function CostCells(p: { chain: string; native: bigint | string; energyDelegated: bigint | string; energyBurned: bigint | string; bandwidth: bigint | string }): JSX.Element {
  return (
    <>
      <td safe>{nativeAmount(p.chain, p.native)}</td>
      <td safe>{String(p.energyDelegated)}</td>
      <td safe>{String(p.energyBurned)}</td>
      <td safe>{String(p.bandwidth)}</td>
    </>
  );
}

/** One row per transaction sent for an order. */
export function CostList(p: { rows: readonly CostRow[] }): JSX.Element {
  return (
    <DataTable
      label="Network cost"
      head={["Transaction", "Kind", "Burned", "Energy delegated", "Energy burned", "Bandwidth"]}
      rows={p.rows}
      empty="Nothing recorded yet: a transaction's cost is recorded once it has landed."
      row={(r) => (
        <tr>
          <td class="mono" safe>
            {r.txHash}
          </td>
          <td safe>{KIND[r.kind] ?? r.kind}</td>
          <CostCells chain={r.chain} native={r.nativeBurned} energyDelegated={r.energyDelegated} energyBurned={r.energyBurned} bandwidth={r.bandwidth} />
        </tr>
      )}
    />
  );
}

/** Totals per chain of a set of payouts. */
export function CostTotals(p: { totals: readonly CostTotal[] }): JSX.Element {
  return (
    <DataTable
      label="Network cost"
      head={["Chain", "Transactions", "Burned", "Energy delegated", "Energy burned", "Bandwidth"]}
      rows={p.totals}
      empty="Nothing recorded yet."
      row={(t) => (
        <tr>
          <td safe>{t.chain}</td>
          <td>{t.txs}</td>
          <CostCells {...t} />
        </tr>
      )}
    />
  );
}
