// Small building blocks every page uses.
import type { Children } from "@kitajs/html";
import type { Viewer } from "../guard";
import { Layout } from "./layout";

/** The hidden CSRF field every POST form carries. */
export function Csrf({ viewer }: { viewer: Viewer }): JSX.Element {
  return <input type="hidden" name="_csrf" value={viewer.csrf} />;
}

/** A scrollable table region (keyboard-focusable, named for screen readers). */
export function TableWrap(p: { label: string; children?: Children }): JSX.Element {
  return (
    <div class="table-wrap" role="region" aria-label={p.label} tabindex="0">
      {p.children}
    </div>
  );
}

export function Notice(p: { kind?: "ok" | "error"; text?: string | null }): JSX.Element {
  if (!p.text) return <></>;
  return (
    <p class={`notice ${p.kind ?? "ok"}`} role={p.kind === "error" ? "alert" : "status"} safe>
      {p.text}
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

export function StatusBadge({ status }: { status: string }): JSX.Element {
  return (
    <span class={`badge s-${status.replace(/[^a-z_]/g, "")}`} safe>
      {status}
    </span>
  );
}

export function ErrorPage(p: { viewer: Viewer | null; status: number; message: string }): string {
  const title = p.status === 404 ? "Not found" : p.status === 403 ? "Not allowed" : p.status === 401 ? "Sign in again" : "Error";
  return (
    <Layout title={title} viewer={p.viewer}>
      <p safe>{p.message}</p>
      <p>
        <a href="/backoffice">Back to the dashboard</a>
      </p>
    </Layout>
  ) as string;
}

/** Shown instead of a money or key action when the last password entry is too old: the same form again, plus the password. */
export function ReauthPage(p: { viewer: Viewer; action: string; fields: [string, string | string[] | undefined][]; failed: boolean }): string {
  return (
    <Layout title="Confirm it is you" viewer={p.viewer}>
      <Notice kind="error" text={p.failed ? "That was not right. Try again." : null} />
      <p>This action moves money or keys. Enter your password{p.viewer.totp ? " or an authentication code" : ""} to continue.</p>
      <form method="post" action={p.action} class="stack">
        <Csrf viewer={p.viewer} />
        {p.fields.flatMap(([k, v]) => (Array.isArray(v) ? v : [v ?? ""]).map((x) => <input type="hidden" name={k} value={x} />))}
        <label for="reauth">{p.viewer.totp ? "Password or authentication code" : "Password"}</label>
        <input id="reauth" name="_reauth" type="password" autocomplete="current-password" required autofocus />
        <button type="submit">Confirm</button>
      </form>
    </Layout>
  ) as string;
}
