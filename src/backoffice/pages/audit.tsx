/** @jsxImportSource @kitajs/html */
// Operator: the audit log with filters and CSV export of what is filtered.
import { Elysia } from "elysia";
import { AUDIT_COUNT_CAP, type AuditCursor, type AuditFilter, listAudit } from "../../audit/log";
import { type BackofficeDeps, page } from "../guard";
import { type Column, csvResponse, csvStream } from "../queries/csv";
import { DataTable } from "../views/common";
import { Layout } from "../views/layout";
import { tr, trc, trf } from "../i18n";

type Entry = Awaited<ReturnType<typeof listAudit>>["entries"][number];
const PAGE = 100;

function parse(q: Record<string, string | undefined>): { f: AuditFilter; raw: Record<string, string> } {
  const raw: Record<string, string> = {};
  for (const k of ["actor", "action", "target", "from", "to"]) {
    const v = (q[k] ?? "").trim().slice(0, 200);
    if (v) raw[k] = v;
  }
  const day = (s: string | undefined) => (s && /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s + "T00:00:00Z")) ? Date.parse(s + "T00:00:00Z") : undefined);
  const to = day(raw.to);
  return { f: { actor: raw.actor, action: raw.action, target: raw.target, from: day(raw.from), to: to === undefined ? undefined : to + 86_399_999 }, raw };
}

const COLUMNS: Column<Entry>[] = [
  { header: "id", value: (e) => e.id },
  { header: "at", value: (e) => e.at },
  { header: "actor", value: (e) => e.actor },
  { header: "role", value: (e) => e.role },
  { header: "ip", value: (e) => e.ip },
  { header: "action", value: (e) => e.action },
  { header: "target", value: (e) => e.target },
  { header: "before", value: (e) => (e.before === null ? "" : JSON.stringify(e.before)) },
  { header: "after", value: (e) => (e.after === null ? "" : JSON.stringify(e.after)) },
];

export function auditRoutes(d: BackofficeDeps) {
  const op = { role: "operator" as const };
  return new Elysia({ name: "backoffice-audit" })
    .get(
      "/backoffice/audit",
      page(d, op, async (v, { query }) => {
        const { f, raw } = parse(query);
        const m = /^(\d{1,15})\.(\d{1,15})$/.exec(query.before ?? "");
        const before = m ? { at: Number(m[1]), id: Number(m[2]) } : undefined;
        const { entries, total, next } = await listAudit(d.ctx.db, { ...f, limit: PAGE, before });
        const qs = new URLSearchParams(raw).toString();
        const field = (id: string, label: string, type = "text") => (
          <label for={`a-${id}`}>
            <span safe>{label}</span>
            <input id={`a-${id}`} name={id} type={type} value={raw[id] ?? ""} />
          </label>
        );
        return (
          <Layout title="Audit log" viewer={v} path="/backoffice/audit">
            <form method="get" action="/backoffice/audit" class="filters">
              {field("actor", tr("Actor"))}
              {field("action", tr("Action"))}
              {field("target", tr("Target"))}
              {field("from", trc("date", "From"), "date")}
              {field("to", trc("date", "To"), "date")}
              <button type="submit" safe>{tr("Filter")}</button>
            </form>
            <p class="actions">
              <span safe>{trf("{count} entries", { count: total > AUDIT_COUNT_CAP ? `${AUDIT_COUNT_CAP.toLocaleString("en-US")}+` : total })}</span>
              <a href={`/backoffice/audit.csv${qs ? "?" + qs : ""}`} safe>
                {tr("Export CSV")}
              </a>
            </p>
            <DataTable
              label={tr("Audit entries")}
              head={[tr("Time"), tr("Actor"), tr("IP"), tr("Action"), tr("Target"), tr("Change")]}
              rows={entries}
              row={(e) => (
                <tr>
                  <td safe>{e.at.replace("T", " ").slice(0, 19)}</td>
                  <td safe>{`${e.actor} (${tr(e.role)})`}</td>
                  <td safe>{e.ip ?? "—"}</td>
                  <td safe>{e.action}</td>
                  <td class="mono" safe>
                    {e.target}
                  </td>
                  <td class="mono wrap" safe>
                    {changeText(e.before, e.after)}
                  </td>
                </tr>
              )}
            />
            <nav class="pager" aria-label={tr("Pages")}>
              {before ? (
                <a href={`/backoffice/audit?${new URLSearchParams(raw)}`} safe>
                  {tr("Newest")}
                </a>
              ) : (
                <></>
              )}
              {next ? (
                <a href={`/backoffice/audit?${new URLSearchParams({ ...raw, before: `${next.at}.${next.id}` })}`} safe>
                  {tr("Older")}
                </a>
              ) : (
                <></>
              )}
            </nav>
          </Layout>
        );
      }),
    )
    .get(
      "/backoffice/audit.csv",
      page(d, op, (_v, { query }) => {
        const { f } = parse(query);
        // Newest first, 1,000 entries a page, by keyset (linear however long the log).
        let cursor: AuditCursor | undefined;
        return csvResponse(
          "audit.csv",
          csvStream(COLUMNS, async () => {
            const { entries, next } = await listAudit(d.ctx.db, { ...f, limit: 1000, before: cursor });
            cursor = next ?? undefined;
            return { rows: entries, nextBefore: next ? next.id : null };
          }),
        );
      }),
    );
}

/** "before → after" as JSON, either side left out when absent; "—" when the entry records no change. */
function changeText(before: unknown, after: unknown): string {
  if (before === null && after === null) return "—";
  const j = (x: unknown) => (x === null ? "" : JSON.stringify(x));
  return (before === null ? j(after) : `${j(before)} → ${j(after)}`).slice(0, 400);
}
