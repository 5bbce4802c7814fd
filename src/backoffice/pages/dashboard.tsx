/** @jsxImportSource @kitajs/html */
// The dashboard: open items (both roles, scoped), volume per day, and for the
// operator the state of each chain and its gas wallet.
import { Elysia } from "elysia";
import { type BackofficeDeps, page } from "../guard";
import { openCounts, volumePerDay, volumePerToken } from "../queries/dashboard";
import { countLabel } from "../queries/keyset";
import { DataTable } from "../views/common";
import { VolumeChart } from "../views/chart";
import { Layout } from "../views/layout";
import { BalanceTotals, balanceTotals } from "./balances";
import { nativeSymbol } from "../format";
import { tr, trf, trm } from "../i18n";
import { DAY_MS, detectionStats, type Percentiles } from "../../ops/detection";

/** "3 s · 12 s" (p50 · p95), or a dash without samples. */
const p50p95 = (p: Percentiles) => (p.p50 === null ? "—" : `${Math.round(p.p50)} s · ${Math.round(p.p95!)} s`);

export function dashboardRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-dashboard" })
    // The dashboard's script polls this to keep the counters live (progressive enhancement).
    .get(
      "/backoffice/counts.json",
      page(d, {}, async (v) => new Response(JSON.stringify(await openCounts(d.ctx.db, { merchantId: v.merchantId })), { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" } })),
    )
    .get(
    "/backoffice",
    page(d, {}, async (v) => {
      const scope = { merchantId: v.merchantId };
      const c = await openCounts(d.ctx.db, scope);
      const days = await volumePerDay(d.ctx.db, scope, d.users.now());
      const tokens = await volumePerToken(d.ctx.db, scope, d.users.now());
      const chains = v.role === "operator" ? await d.chainStates() : [];
      const cards: [string, keyof typeof c, string][] = [
        ["Open orders", "openOrders", "/backoffice/payins?status=waiting_payment"],
        ["Unmatched deposits", "unmatchedDeposits", v.role === "operator" ? "/backoffice/exceptions" : "/backoffice/deposits?status=unmatched"],
        ["Frozen orders", "frozenOrders", v.role === "operator" ? "/backoffice/exceptions" : "/backoffice/payins?status=frozen_abnormal"],
        ["Failed callbacks", "failedCallbacks", "/backoffice/callbacks?state=failed"],
        ["Failed payouts", "failedPayouts", "/backoffice/payouts?status=failed"],
        // A failed refund's payout is a failed payout: listed there, with its RF number as the merchant order.
        ["Failed refunds", "failedRefunds", "/backoffice/payouts?status=failed"],
      ];
      return (
        <Layout title="Dashboard" viewer={v} path="/backoffice">
          <section aria-label={tr("Open items")} class="cards" data-live="/backoffice/counts.json">
            {cards.map(([label, key, href]) => (
              <a class="card" href={href}>
                <div class="n" data-count={key} safe>
                  {countLabel(c[key])}
                </div>
                <div safe>{tr(label)}</div>
              </a>
            ))}
          </section>
          <h2>{trm("Volume per day")}</h2>
          <VolumeChart days={days} tokens={tokens} />
          {v.role === "merchant" ? <BalanceTotals totals={await balanceTotals(d, v)} display={d.ctx} /> : null}
          {v.role === "operator" ? (
            <>
              <h2>{trm("Chains")}</h2>
              <DataTable
                label="Chain status"
                head={["Chain", "Head", "Final", "Scanned", "Lag", "RPC endpoints", "Gas wallet", "Gas balance"]}
                rows={chains}
                row={(s) => (
                  <tr>
                    <td safe>{`${s.chainCode} (${tr(s.mode)})`}</td>
                    <td safe>{s.head ?? "—"}</td>
                    <td safe>{s.final ?? "—"}</td>
                    <td safe>{s.scanned ?? "—"}</td>
                    <td safe>{s.lagBlocks === null ? "—" : trf("{blocks} blocks · {seconds} s", { blocks: s.lagBlocks, seconds: s.lagSeconds })}</td>
                    <td>
                      {s.mode === "sandbox" ? (
                        tr("in-process sandbox")
                      ) : (
                        <ul class="plain">
                          {s.rpc.map((e) => (
                            <li safe>{`${e.endpoint}: ${e.up ? tr("up") : `$down${e.lastError ? ` (${e.lastError})` : ""}`}`}</li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td class="mono" safe>
                      {s.gasWallet?.address ?? "—"}
                    </td>
                    <td safe>{s.gasWallet?.balance == null ? "—" : `${s.gasWallet.balance} ${nativeSymbol(s.chainCode)}${s.gasWallet.low ? tr(" (low)") : ""}`}</td>
                  </tr>
                )}
              />
              <h2>{trm("Detection, last 24 h")}</h2>
              <p class="muted" safe>
                {tr("Credited transfers per chain, p50 · p95: block time to first seen, block time to completed, completed to the callback's 2xx. ops.detection_slo applies to the first over the last hour.")}
              </p>
              <DataTable
                label="Detection times"
                head={["Chain", "Credited", "Block → seen", "Block → completed", "Completed → callback"]}
                rows={await detectionStats(d.ctx.db, d.users.now(), DAY_MS)}
                empty="No credited transfers in the last 24 h."
                row={(s) => (
                  <tr data-chain={s.chain}>
                    <td safe>{s.chain}</td>
                    <td safe>{String(s.detection.count)}</td>
                    <td safe>{p50p95(s.detection)}</td>
                    <td safe>{p50p95(s.completion)}</td>
                    <td safe>{p50p95(s.callback)}</td>
                  </tr>
                )}
              />
            </>
          ) : (
            <></>
          )}
        </Layout>
      );
    }),
  );
}
