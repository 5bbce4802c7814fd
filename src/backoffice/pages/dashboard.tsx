// The dashboard: open items (both roles, scoped), volume per day, and for the
// operator the state of each chain and its gas wallet.
import { Elysia } from "elysia";
import { fromBaseUnits } from "../../lib/money";
import { type BackofficeDeps, page } from "../guard";
import { chainStatuses } from "../queries/chains";
import { openCounts, volumePerDay } from "../queries/dashboard";
import { TableWrap } from "../views/common";
import { VolumeChart } from "../views/chart";
import { Layout } from "../views/layout";
import { BalanceTotals } from "./balances";

const NATIVE: Record<string, { symbol: string; decimals: number }> = { TRON: { symbol: "TRX", decimals: 6 }, BSC: { symbol: "BNB", decimals: 18 }, SOL: { symbol: "SOL", decimals: 9 } };

export function dashboardRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-dashboard" })
    // The dashboard's script polls this to keep the counters live (progressive enhancement).
    .get(
      "/backoffice/counts.json",
      page(d, {}, (v) => new Response(JSON.stringify(openCounts(d.ctx.db, { merchantId: v.merchantId })), { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff" } })),
    )
    .get(
    "/backoffice",
    page(d, {}, async (v) => {
      const scope = { merchantId: v.merchantId };
      const c = openCounts(d.ctx.db, scope);
      const days = volumePerDay(d.ctx.db, scope, d.users.now());
      const chains = v.role === "operator" ? await chainStatuses(d.ctx) : [];
      const cards: [string, keyof typeof c, string][] = [
        ["Open orders", "openOrders", "/backoffice/payins?status=waiting_payment"],
        ["Unmatched deposits", "unmatchedDeposits", v.role === "operator" ? "/backoffice/exceptions" : "/backoffice/deposits?status=unmatched"],
        ["Frozen orders", "frozenOrders", v.role === "operator" ? "/backoffice/exceptions" : "/backoffice/payins?status=frozen_abnormal"],
        ["Failed callbacks", "failedCallbacks", "/backoffice/callbacks"],
        ["Failed payouts", "failedPayouts", "/backoffice/payouts?status=failed"],
      ];
      return (
        <Layout title="Dashboard" viewer={v} path="/backoffice">
          <section aria-label="Open items" class="cards" data-live="/backoffice/counts.json">
            {cards.map(([label, key, href]) => (
              <a class="card" href={href}>
                <div class="n" data-count={key} safe>
                  {String(c[key])}
                </div>
                <div safe>{label}</div>
              </a>
            ))}
          </section>
          <h2>Volume per day</h2>
          <VolumeChart days={days} />
          {v.role === "merchant" ? <BalanceTotals d={d} v={v} /> : null}
          {v.role === "operator" ? (
            <>
              <h2>Chains</h2>
              <TableWrap label="Chain status">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Chain</th>
                      <th scope="col">Head</th>
                      <th scope="col">Final</th>
                      <th scope="col">Scanned</th>
                      <th scope="col">Lag</th>
                      <th scope="col">RPC endpoints</th>
                      <th scope="col">Gas wallet</th>
                      <th scope="col">Gas balance</th>
                    </tr>
                  </thead>
                  <tbody>
                    {chains.map((s) => (
                      <tr>
                        <td safe>{`${s.chain} (${s.mode})`}</td>
                        <td safe>{s.head === null ? "—" : s.head.toString()}</td>
                        <td safe>{s.final === null ? "—" : s.final.toString()}</td>
                        <td safe>{s.scanned === null ? "—" : String(s.scanned)}</td>
                        <td safe>{s.lag === null ? "—" : `${s.lag} blocks`}</td>
                        <td>
                          {s.mode === "sandbox" ? (
                            "in-process sandbox"
                          ) : (
                            <ul class="plain">
                              {s.endpoints.map((e) => (
                                <li safe>{`${e.endpoint}: ${e.up ? "up" : `down${e.lastError ? ` (${e.lastError})` : ""}`}`}</li>
                              ))}
                              {s.error ? <li safe>{`head: ${s.error}`}</li> : <></>}
                            </ul>
                          )}
                        </td>
                        <td class="mono" safe>
                          {s.gasAddress}
                        </td>
                        <td safe>{s.gasBalance === null ? "—" : `${fromBaseUnits(BigInt(s.gasBalance), NATIVE[s.chain].decimals, 2)} ${NATIVE[s.chain].symbol}`}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            </>
          ) : (
            <></>
          )}
        </Layout>
      );
    }),
  );
}
