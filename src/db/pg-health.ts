// The PostgreSQL side of /readyz and the storage alerts (DESIGN 22 "Operations"): the server
// answers within a short time and takes writes (not a standby, not read-only). SQLite's storage
// monitor watches a file, a disk and a committed probe row; on PostgreSQL an outage is a
// connection error (answered 10003) and the server's own monitoring watches its disk.
import type { Db } from "./client";
import { pgState } from "./engine";

/** How long /readyz waits for the server (a hung server is not ready: never wait the pool's connect timeout). */
export const PG_PROBE_TIMEOUT_MS = 2000;

/** Why the server does not take writes now, or null when it does. */
export async function pgWriteProblem(db: Db, timeoutMs = PG_PROBE_TIMEOUT_MS): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const query = pgState(db).pool.unsafe(`SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS ro`) as Promise<{ standby: boolean; ro: string }[]>;
    const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), timeoutMs)));
    const rows = await Promise.race([query, late]);
    // A query left behind settles on its own; its rejection is nobody's.
    if (rows === "late") {
      query.catch(() => undefined);
      return `PostgreSQL did not answer within ${timeoutMs} ms`;
    }
    const r = rows[0];
    if (r?.standby) return "PostgreSQL is a standby in recovery (read-only): writes are refused until a primary is reachable";
    if (r?.ro === "on") return "PostgreSQL is read-only (default_transaction_read_only): writes are refused";
    return null;
  } catch (e) {
    return `PostgreSQL is unreachable: ${String((e as Error)?.message ?? e).split("\n")[0]}`;
  } finally {
    clearTimeout(timer);
  }
}
