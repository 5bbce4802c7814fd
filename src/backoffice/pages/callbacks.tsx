/** @jsxImportSource @kitajs/html */
// Failed callbacks (both roles, scoped) with bulk "Resend".
import { Elysia } from "elysia";
import { recordAudit } from "../../audit/log";
import { CallbackBusy, CallbackNotFound, resendCallback } from "../../callbacks/resend";
import { failedCallbacks } from "../queries/dashboard";
import { writeTx } from "../../db/client";
import { action, actorOf, type BackofficeDeps, list, page, redirect, type Viewer } from "../guard";
import { Csrf, Notice, OrderLink, StatusBadge, TableWrap, Time } from "../views/common";
import { Layout } from "../views/layout";

function CallbacksPage(p: { d: BackofficeDeps; v: Viewer; notice?: string }): string {
  const rows = failedCallbacks(p.d.ctx.db, { merchantId: p.v.merchantId }, 500);
  return (
    <Layout title="Failed callbacks" viewer={p.v} path="/backoffice/callbacks">
      <Notice text={p.notice} />
      {rows.length ? (
        <form method="post" action="/backoffice/callbacks/resend">
          <Csrf viewer={p.v} />
          <p class="actions">
            <label class="inline">
              <input type="checkbox" data-select-all="id" /> Select all
            </label>
            <button type="submit">Resend selected</button>
          </p>
          <TableWrap label="Failed callbacks">
            <table>
              <thead>
                <tr>
                  <th scope="col">
                    <span class="sr">Select</span>
                  </th>
                  <th scope="col">Order</th>
                  <th scope="col">Status sent</th>
                  <th scope="col">Target</th>
                  <th scope="col">Last error</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr>
                    <td>
                      <input type="checkbox" name="id" value={c.id} aria-label={`Select callback ${c.id} of ${c.orderNo}`} />
                    </td>
                    <td>
                      <OrderLink orderNo={c.orderNo} />
                    </td>
                    <td>
                      <StatusBadge status={c.status} />
                    </td>
                    <td class="mono wrap" safe>
                      {c.url ?? "—"}
                    </td>
                    <td safe>{c.lastError ?? ""}</td>
                    <td>
                      <Time ms={c.updatedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        </form>
      ) : (
        <p>No failed callback.</p>
      )}
    </Layout>
  ) as string;
}

export function callbacksRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-callbacks" })
    .get("/backoffice/callbacks", page(d, {}, (v, { query }) => CallbacksPage({ d, v, notice: query.done ? `${Number(query.done) || 0} callback(s) queued again.` : undefined })))
    .post(
      "/backoffice/callbacks/resend",
      action(d, {}, (v, { body }) => {
        let n = 0;
        for (const id of list(body.id).slice(0, 500)) {
          try {
            writeTx(d.ctx.db, (tx) => {
              const c = resendCallback(tx, id, d.users.now(), { merchantId: v.merchantId ?? undefined });
              recordAudit(tx, { ...actorOf(v), action: "callback.resend", target: `${c.kind}:${c.orderNo}`, after: { eventId: c.id }, at: d.users.now() });
            });
            n++;
          } catch (e) {
            if (!(e instanceof CallbackNotFound || e instanceof CallbackBusy)) throw e;
          }
        }
        d.kick();
        return redirect(`/backoffice/callbacks?done=${n}`);
      }),
    );
}
