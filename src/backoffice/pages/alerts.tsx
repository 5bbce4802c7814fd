/** @jsxImportSource @kitajs/html */
// Operator: alerts (DESIGN 14's conditions, raised by src/ops/alerts), firing first.
import { Elysia } from "elysia";
import { listAlerts } from "../../ops/alerts/store";
import { type BackofficeDeps, page } from "../guard";
import { StatusBadge, TableWrap } from "../views/common";
import { Layout } from "../views/layout";
import { tr } from "../i18n";

export function alertsRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-alerts" }).get(
    "/backoffice/alerts",
    page(d, { role: "operator" }, async (v) => {
      const firing = await listAlerts(d.ctx.db, { status: "firing", limit: 200 });
      const resolved = await listAlerts(d.ctx.db, { status: "resolved", limit: 50 });
      const table = (label: string, rows: typeof firing) => (
        <TableWrap label={label}>
          <table>
            <thead>
              <tr>
                <th scope="col" safe>{tr("Condition")}</th>
                <th scope="col" safe>{tr("Subject")}</th>
                <th scope="col" safe>{tr("State")}</th>
                <th scope="col" safe>{tr("Message")}</th>
                <th scope="col" safe>{tr("Fired")}</th>
                <th scope="col" safe>{tr("Resolved")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => (
                <tr>
                  <td safe>{a.condition}</td>
                  <td safe>{a.subject}</td>
                  <td>
                    <StatusBadge status={a.status} />
                  </td>
                  <td safe>{a.lastMessage}</td>
                  <td safe>{a.firedAt.replace("T", " ").slice(0, 19)}</td>
                  <td>{a.resolvedAt ? a.resolvedAt.replace("T", " ").slice(0, 19) : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      );
      return (
        <Layout title="Alerts" viewer={v} path="/backoffice/alerts">
          <h2 safe>{tr("Firing")}</h2>
          {firing.length ? table(tr("Firing alerts"), firing) : <p safe>{tr("None.")}</p>}
          <h2 safe>{tr("Recently resolved")}</h2>
          {resolved.length ? table(tr("Resolved alerts"), resolved) : <p safe>{tr("None.")}</p>}
        </Layout>
      );
    }),
  );
}
