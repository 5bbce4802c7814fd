/** @jsxImportSource @kitajs/html */
// Operator: alerts (DESIGN 14's conditions, raised by src/ops/alerts), firing first.
import { Elysia } from "elysia";
import { listAlerts } from "../../ops/alerts/store";
import { type BackofficeDeps, page } from "../guard";
import { StatusBadge, TableWrap } from "../views/common";
import { Layout } from "../views/layout";

export function alertsRoutes(d: BackofficeDeps) {
  return new Elysia({ name: "backoffice-alerts" }).get(
    "/backoffice/alerts",
    page(d, { role: "operator" }, (v) => {
      const firing = listAlerts(d.ctx.db, { status: "firing", limit: 200 });
      const resolved = listAlerts(d.ctx.db, { status: "resolved", limit: 50 });
      const table = (label: string, rows: typeof firing) => (
        <TableWrap label={label}>
          <table>
            <thead>
              <tr>
                <th scope="col">Condition</th>
                <th scope="col">Subject</th>
                <th scope="col">State</th>
                <th scope="col">Message</th>
                <th scope="col">Fired</th>
                <th scope="col">Resolved</th>
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
          <h2>Firing</h2>
          {firing.length ? table("Firing alerts", firing) : <p>None.</p>}
          <h2>Recently resolved</h2>
          {resolved.length ? table("Resolved alerts", resolved) : <p>None.</p>}
        </Layout>
      );
    }),
  );
}
