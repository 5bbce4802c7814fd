// Storage faults (DESIGN 16): the disk is full, an I/O error, the database is
// read-only (or made read-only because its file was deleted or replaced under
// the process, src/ops/storage.ts). They are the operator's problem, not a bug:
// requests answer 503 / 10003 with Retry-After, never 500.
import { AppError } from "../errors";

/** Seconds a client is told to wait before retrying while storage is unavailable. */
export const STORAGE_RETRY_AFTER_S = 30;

const CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)/;

/** A connection that is gone or never came (the host is down or was demoted): client-pg.ts chooses the host again. */
export function isHostLost(e: unknown): boolean {
  const err = e as { code?: string; errno?: string } | null;
  if (!err) return false;
  if (err.errno === "25006" || err.errno === "57P01" || err.errno === "57P02" || err.errno === "57P03") return true; // read-only, admin/crash shutdown, cannot connect now
  return /^ERR_POSTGRES_(CONNECTION_(CLOSED|REFUSED|TIMEOUT)|SOCKET_CLOSED|IDLE_TIMEOUT|LIFETIME_TIMEOUT)$/.test(err.code ?? "") || /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT/.test(err.code ?? "");
}

/**
 * PostgreSQL (DESIGN 22 "Operations"): the server unreachable, shutting down, read-only (a
 * standby, a demoted primary) or out of connections is an outage, answered 10003 like a full disk
 * and recovered by reconnecting: the connection-lost errors (isHostLost above), SQLSTATE class 08
 * (connection exception), 53 (insufficient resources: disk full, out of connections), 57P01-57P03
 * (shutdown, cannot connect now) and 25006 (read-only transaction).
 */
function isPgOutage(x: unknown): boolean {
  if (isHostLost(x)) return true;
  const e = x as { errno?: unknown; code?: unknown; name?: unknown };
  const state = typeof e.errno === "string" ? e.errno : "";
  if (/^(08|53)/.test(state)) return true;
  return e.name === "PostgresError" && /^ERR_POSTGRES_(CONNECTION|SOCKET)/.test(String(e.code ?? ""));
}

/** True for SQLite's full-disk, I/O and read-only errors, and PostgreSQL's outages, wherever in the cause chain. */
export function isStorageFault(e: unknown): boolean {
  for (let x = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    if (x instanceof AppError) return x.code === 10003;
    const code = (x as { code?: unknown }).code;
    if (typeof code === "string" && CODES.test(code)) return true;
    if (isPgOutage(x)) return true;
    const msg = (x as { message?: unknown }).message;
    if (typeof msg === "string" && /database or disk is full|disk I\/O error|attempt to write a readonly database/i.test(msg)) return true;
  }
  return false;
}

/** The SQLite code or message of a fault, for logs ("SQLITE_FULL: database or disk is full"). */
export function describeFault(e: unknown): string {
  const code = (e as { code?: unknown })?.code;
  const msg = String((e as Error)?.message ?? e);
  return typeof code === "string" && !msg.includes(code) ? `${code}: ${msg}` : msg;
}

export function storageUnavailable(): AppError {
  return new AppError(10003, { retryAfter: STORAGE_RETRY_AFTER_S });
}
