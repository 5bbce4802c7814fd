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

const KIND: Record<string, string> = { payout: "transfer", gas_topup: "gas top-up", delegate: "energy delegation", reclaim: "energy reclaim", stake: "stake" };

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
          <td safe>{nativeAmount(r.chain, r.nativeBurned)}</td>
          <td safe>{r.energyDelegated}</td>
          <td safe>{r.energyBurned}</td>
          <td safe>{r.bandwidth}</td>
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
          <td safe>{nativeAmount(t.chain, t.native)}</td>
          <td safe>{t.energyDelegated.toString()}</td>
          <td safe>{t.energyBurned.toString()}</td>
          <td safe>{t.bandwidth.toString()}</td>
        </tr>
      )}
    />
  );
}
