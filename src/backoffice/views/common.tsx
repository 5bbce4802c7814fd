/** @jsxImportSource @kitajs/html */
// Small building blocks every page uses.
import { contentToString, type Children } from "@kitajs/html";
import type { Viewer } from "../guard";
import { Layout } from "./layout";
import { tr, trc, trm } from "../i18n";
import { newOnceToken, ONCE_FIELD } from "../../once/once";

/**
 * The hidden fields every POST form carries: the CSRF token and the form's one-time token, a new
 * one per rendered form, the idempotency key of its action (src/once/once.ts: a second POST of the
 * form gets the first one's answer).
 */
export function Csrf({ viewer }: { viewer: Viewer }): JSX.Element {
  return (
    <>
      <input type="hidden" name="_csrf" value={viewer.csrf} />
      <input type="hidden" name={ONCE_FIELD} value={newOnceToken(viewer.now)} />
    </>
  );
}

/** A scrollable table region (keyboard-focusable, named for screen readers); rows are cards on a phone. */
export function TableWrap(p: { label: string; children?: Children }): JSX.Element {
  // The children are already rendered (and escaped) markup; labelCells only adds attributes.
  const inner = contentToString(p.children);
  const safeTable = typeof inner === "string" ? labelCells(inner) : inner;
  return (
    <div class="table-wrap" role="region" aria-label={tr(p.label)} tabindex="0">
      {safeTable}
    </div>
  );
}

const stripTags = (s: string) => s.replace(/<[^>]*>/g, "").trim();

/**
 * Gives every body cell its column's heading as `data-label`, which the phone layout shows above
 * the value when a row is a card (assets.ts). The markup is the page's own, rendered just now: the
 * headings are the <th> of the <thead>, cells are counted per <tr> (a cell spanning columns
 * advances by its colspan); a row-action column (its heading only for screen readers) stays
 * unlabelled, as does a cell that carries its own label or spans columns.
 */
export function labelCells(table: string): string {
  const head = /<thead[\s>][\s\S]*?<\/thead>/.exec(table);
  if (!head) return table;
  const labels = [...head[0].matchAll(/<th[\s>][\s\S]*?<\/th>/g)].map((m) => (/class="sr"/.test(m[0]) ? "" : stripTags(m[0]).replace(/"/g, "&#34;")));
  const end = head.index + head[0].length;
  const body = table.slice(end).replace(/<tr[\s>][\s\S]*?<\/tr>/g, (row) => {
    let col = 0;
    return row.replace(/<td(?=[\s>])([^>]*)>/g, (cell, attrs: string) => {
      const span = Number(/colspan="(\d+)"/.exec(attrs)?.[1] ?? 1);
      const label = span === 1 ? labels[col] : ""; // a cell across columns (an "empty" row) is no one column's
      col += span;
      return label && !attrs.includes("data-label") ? `<td data-label="${label}"${attrs}>` : cell;
    });
  });
  return table.slice(0, end) + body;
}

/** A one-button POST form, for row and page actions: the CSRF field, hidden fields, the button. */
export function ActionButton(p: {
  viewer: Viewer;
  action: string;
  fields?: Record<string, string | number>;
  label: string;
  /** The button's accessible name when the label alone is ambiguous (one per table row). */
  ariaLabel?: string;
  kind?: "secondary" | "danger";
}): JSX.Element {
  return (
    <form method="post" action={p.action} class="inline">
      <Csrf viewer={p.viewer} />
      {Object.entries(p.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={String(value)} />
      ))}
      <button type="submit" class={p.kind} aria-label={p.ariaLabel === undefined ? undefined : tr(p.ariaLabel)} safe>
        {tr(p.label)}
      </button>
    </form>
  );
}

/**
 * A named table region: column headers (`{ hidden }`: a header only screen readers read, for a
 * row-action column), one row per item, and one `empty` row when there is none (without
 * `empty`, just no rows). The region label and headers are the accessible names.
 */
export function DataTable<T>(p: { label: string; head: readonly (string | { hidden: string })[]; rows: readonly T[]; row: (r: T) => Children; empty?: string }): JSX.Element {
  return (
    <TableWrap label={tr(p.label)}>
      <table>
        <thead>
          <tr>
            {p.head.map((h) =>
              typeof h === "string" ? (
                <th scope="col" safe>
                  {tr(h)}
                </th>
              ) : (
                // A row-action column: named for screen readers, no visible heading.
                <th scope="col">
                  <span class="sr" safe>
                    {tr(h.hidden)}
                  </span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>
          {p.rows.length === 0 && p.empty !== undefined ? (
            <tr>
              <td colspan={String(p.head.length)} safe>
                {tr(p.empty)}
              </td>
            </tr>
          ) : (
            p.rows.map((r) => p.row(r))
          )}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** A filter's select with "Any" first; an option is a value, or [value, label]. */
export function FilterSelect(p: { id: string; label: string; value?: string; options: readonly (string | readonly [string, string])[] }): JSX.Element {
  return (
    <label for={p.id}>
      <span safe>{tr(p.label)}</span>
      <select id={p.id} name={p.id}>
        <option value="">{trm("Any")}</option>
        {p.options.map((o) => {
          const [value, label] = typeof o === "string" ? [o, o] : o;
          return (
            <option value={value} selected={p.value === value} safe>
              {tr(label)}
            </option>
          );
        })}
      </select>
    </label>
  );
}

/** A filter form's "From" and "To" days, then its "Filter" button. */
export function DateRangeAndFilter(p: { raw: Record<string, string> }): JSX.Element {
  return (
    <>
      <label for="from">
        {trm(trc("date", "From"))}
        <input id="from" name="from" type="date" value={p.raw.from ?? ""} />
      </label>
      <label for="to">
        {trm(trc("date", "To"))}
        <input id="to" name="to" type="date" value={p.raw.to ?? ""} />
      </label>
      <button type="submit">{trm("Filter")}</button>
    </>
  );
}

/**
 * "Copy" for a secret shown once (the element with id `target`). Hidden until the script runs:
 * without it there is nothing to click and the text is selected by hand.
 */
export function CopyButton(p: { target: string; label: string }): JSX.Element {
  return (
    <span class="copy">
      <button type="button" class="secondary" data-copy={p.target} hidden safe>
        {tr(p.label)}
      </button>
      <span role="status" class="muted" data-copy-status={p.target}></span>
    </span>
  );
}

export function Notice(p: { kind?: "ok" | "error"; text?: string | null }): JSX.Element {
  if (!p.text) return <></>;
  return (
    <p class={`notice ${p.kind ?? "ok"}`} role={p.kind === "error" ? "alert" : "status"} safe>
      {tr(p.text)}
    </p>
  );
}

export function Time({ ms }: { ms: number | null | undefined }): JSX.Element {
  if (ms === null || ms === undefined) return <span>—</span>;
  const iso = new Date(ms).toISOString();
  return (
    <time datetime={iso} safe>
      {iso.replace("T", " ").slice(0, 19)}
    </time>
  );
}

/** An order number linked to its timeline page (an invoice number to its payment-link page). */
export function OrderLink({ orderNo }: { orderNo: string }): JSX.Element {
  return (
    <a class="mono" href={`/backoffice/${orderNo.startsWith("IV") ? "payment-links" : "orders"}/${orderNo}`} safe>
      {orderNo}
    </a>
  );
}

/** A status value in the page's language (the value itself in English; forms and URLs keep the value). */
export const statusLabel = (status: string): string => tr(status);

export function StatusBadge({ status }: { status: string }): JSX.Element {
  return (
    <span class={`badge s-${status.replace(/[^a-z_]/g, "")}`} safe>
      {statusLabel(status)}
    </span>
  );
}

export function ErrorPage(p: { viewer: Viewer | null; status: number; message: string }): string {
  const title = p.status === 404 ? "Not found" : p.status === 403 ? "Not allowed" : p.status === 401 ? "Sign in again" : "Error";
  return (
    <Layout title={title} viewer={p.viewer}>
      <p safe>{tr(p.message)}</p>
      <p>
        <a href="/backoffice" safe>{tr("Back to the dashboard")}</a>
      </p>
    </Layout>
  ) as string;
}

/** Shown instead of a money or key action when the last password entry is too old: the same form again, plus the password. */
export function ReauthPage(p: { viewer: Viewer; action: string; fields: [string, string | string[] | undefined][]; failed: "wrong" | "locked" | null }): string {
  const error = p.failed === "wrong" ? "That was not right. Try again." : p.failed === "locked" ? "Too many failed attempts for this username. Try again in 15 minutes." : null;
  return (
    <Layout title="Confirm it is you" viewer={p.viewer}>
      <Notice kind="error" text={error} />
      <p>{p.viewer.totp ? tr("This action moves money or keys, or changes who can act. Enter your password or an authentication code to continue.") : trm("This action moves money or keys, or changes who can act. Enter your password to continue.")}</p>
      <form method="post" action={p.action} class="stack">
        {/* The form being confirmed keeps its own fields, its one-time token among them: no new token here. */}
        <input type="hidden" name="_csrf" value={p.viewer.csrf} />
        {p.fields.flatMap(([k, v]) => (Array.isArray(v) ? v : [v ?? ""]).map((x) => <input type="hidden" name={k} value={x} />))}
        <label for="reauth">{trm(tr(p.viewer.totp ? "Password or authentication code" : "Password"))}</label>
        <input id="reauth" name="_reauth" type="password" autocomplete="current-password" required autofocus />
        <button type="submit" safe>{tr("Confirm")}</button>
      </form>
    </Layout>
  ) as string;
}
