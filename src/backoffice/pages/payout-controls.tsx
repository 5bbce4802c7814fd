// Operator: a merchant's payout switch, limits and fees, and its fee balance
// (top-ups and adjustments with their journal). Every change is audited.
// Reached from the merchants page (`/backoffice/merchants/:uid/payouts`).
import { Elysia } from "elysia";
import { action, actorOf, type BackofficeDeps, page, redirect, str, type Viewer } from "../guard";
import { NotFound } from "../errors";
import { Csrf, Notice, TableWrap, Time } from "../views/common";
import { Layout } from "../views/layout";
import { findMerchantByUid, type Merchant } from "../../merchants/service";
import { ControlsError, getPayoutControls } from "../../payout/controls";
import { feeHistory, topUpFeeBalance, updatePayoutControls } from "../../payout/controls-admin";
import { fromBaseUnits } from "../../lib/money";
import { ReauthField, reauthOk } from "./reauth";

const path = (uid: string) => `/backoffice/merchants/${encodeURIComponent(uid)}/payouts`;
const NOTICES: Record<string, string> = { controls: "Payout controls saved.", fee: "Fee balance updated." };

function merchantOr404(d: BackofficeDeps, uid: string): Merchant {
  const m = findMerchantByUid(d.ctx.db, uid);
  if (!m) throw new NotFound("There is no such merchant.");
  return m;
}

function ControlsPage(p: { d: BackofficeDeps; v: Viewer; m: Merchant; notice?: string; error?: string }): string {
  const { d, v, m } = p;
  const c = getPayoutControls(d.ctx.db, m.id);
  const history = feeHistory(d.ctx.db, m.uid);
  return (
    <Layout title={`Payout controls · ${m.name}`} viewer={v} path="/backoffice/merchants">
      <Notice text={p.notice} />
      <Notice kind="error" text={p.error} />
      <p class="muted">
        Merchant <span class="mono" safe>{m.uid}</span>. Limits and fees are in the stablecoin unit (USDT/USDC alike); an empty limit means none.
      </p>
      <form method="post" action={`${path(m.uid)}/controls`} class="stack">
        <Csrf viewer={v} />
        <label class="inline" for="enabled">
          <input id="enabled" name="payoutsEnabled" type="checkbox" value="on" checked={c.payoutsEnabled} /> Payouts enabled
        </label>
        <label for="per-tx">Per-payout limit</label>
        <input id="per-tx" name="payoutLimitPerTx" inputmode="decimal" value={c.payoutLimitPerTx ?? ""} />
        <label for="daily">Daily limit</label>
        <input id="daily" name="payoutLimitDaily" inputmode="decimal" value={c.payoutLimitDaily ?? ""} />
        <label for="fee-fixed">Fixed fee per payout</label>
        <input id="fee-fixed" name="payoutFeeFixed" inputmode="decimal" value={c.payoutFeeFixed} />
        <label for="fee-rate">Fee rate (fraction, e.g. 0.001 = 0.1 %)</label>
        <input id="fee-rate" name="payoutFeeRate" inputmode="decimal" value={c.payoutFeeRate} />
        <button type="submit">Save payout controls</button>
      </form>
      <h2>Fee balance</h2>
      <p>
        Balance: <strong data-testid="fee-balance" safe>{c.feeBalance}</strong>
      </p>
      <form method="post" action={`${path(m.uid)}/fee`} class="stack">
        <Csrf viewer={v} />
        <label for="amount">Top-up amount</label>
        <input id="amount" name="amount" inputmode="decimal" required aria-describedby="amount-help" />
        <p id="amount-help" class="muted">
          A negative amount (e.g. -5) is a correcting debit; it may not eat into fees reserved by unfinished payouts.
        </p>
        <label for="note">Note</label>
        <input id="note" name="note" maxlength="200" />
        <ReauthField viewer={v} />
        <button type="submit">Top up fee balance</button>
      </form>
      <TableWrap label="Fee balance journal">
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">Amount</th>
              <th scope="col">Balance after</th>
              <th scope="col">Reference</th>
              <th scope="col">Note</th>
            </tr>
          </thead>
          <tbody>
            {history.length === 0 ? (
              <tr>
                <td colspan="6">No movements yet.</td>
              </tr>
            ) : (
              history.map((e) => (
                <tr>
                  <td>
                    <Time ms={e.createdAt} />
                  </td>
                  <td safe>{e.kind}</td>
                  <td safe>{fromBaseUnits(BigInt(e.amount), 6, 2)}</td>
                  <td safe>{e.balanceAfter}</td>
                  <td class="mono" safe>
                    {e.refId}
                  </td>
                  <td safe>{e.note ?? ""}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableWrap>
    </Layout>
  ) as string;
}

export function payoutControlRoutes(d: BackofficeDeps) {
  const deps = { db: d.ctx.db, now: () => d.ctx.clock.now() };
  const opt = (s: string) => (s.trim() === "" ? null : s.trim());
  return new Elysia({ name: "backoffice-payout-controls" })
    .get(
      "/backoffice/merchants/:uid/payouts",
      page(d, { role: "operator" }, (v, { params, query }) => ControlsPage({ d, v, m: merchantOr404(d, params.uid!), notice: NOTICES[query.done ?? ""] })),
    )
    .post(
      "/backoffice/merchants/:uid/payouts/controls",
      action(d, { role: "operator" }, (v, { params, body }) => {
        const m = merchantOr404(d, params.uid!);
        try {
          updatePayoutControls(
            deps,
            m.uid,
            {
              payoutsEnabled: str(body.payoutsEnabled) === "on",
              payoutLimitPerTx: opt(str(body.payoutLimitPerTx)),
              payoutLimitDaily: opt(str(body.payoutLimitDaily)),
              payoutFeeFixed: str(body.payoutFeeFixed).trim() || "0",
              payoutFeeRate: str(body.payoutFeeRate).trim() || "0",
            },
            actorOf(v),
          );
        } catch (e) {
          if (e instanceof ControlsError) return ControlsPage({ d, v, m, error: e.message });
          throw e;
        }
        return redirect(`${path(m.uid)}?done=controls`);
      }),
    )
    .post(
      "/backoffice/merchants/:uid/payouts/fee",
      action(d, { role: "operator", reauth: true }, async (v, { params, body }) => {
        const m = merchantOr404(d, params.uid!);
        if (!(await reauthOk(d, v, str(body._reauth)))) return ControlsPage({ d, v, m, error: "That was not right: enter your password (or authentication code) to move the fee balance." });
        try {
          topUpFeeBalance(deps, m.uid, str(body.amount), str(body.note), actorOf(v));
        } catch (e) {
          if (e instanceof ControlsError) return ControlsPage({ d, v, m, error: e.message });
          throw e;
        }
        return redirect(`${path(m.uid)}?done=fee`);
      }),
    );
}
