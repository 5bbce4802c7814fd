// The slow SQLite work of a backup (VACUUM INTO, integrity_check, row counts) on a worker
// thread: bun:sqlite is synchronous, and on the gateway's thread a 100 MB copy stalled every
// request for 0.6 s (VACUUM INTO 619 ms, event-loop lag 609 ms; on a worker: lag 11 ms;
// docs/operations.md). The worker's code is inline (a Blob URL) so `bun build --compile`
// needs no extra entry point: a worker file left out of the binary would hang, not fail.
// Bun has no sqlite3_backup_* API, so VACUUM INTO (one consistent read snapshot, the
// writer never blocked in WAL mode) is the online copy.

const WORKER_SOURCE = `
import { Database, constants } from "bun:sqlite";
const immutable = (p) => "file:" + p.split("/").map(encodeURIComponent).join("/") + "?immutable=1";
self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.op === "vacuum") {
      const db = new Database(m.src, { readwrite: true, create: false });
      try {
        db.run("PRAGMA busy_timeout = 10000");
        db.run("VACUUM INTO ?", [m.out]);
      } finally {
        db.close();
      }
      postMessage({ ok: true });
    } else {
      const db = new Database(immutable(m.path), constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
      try {
        postMessage({ ok: true, rows: m.sqls.map((s) => db.query(s).all()) });
      } finally {
        db.close();
      }
    }
  } catch (err) {
    postMessage({ ok: false, error: String((err && err.message) || err) });
  }
};
`;

let url: string | null = null;

type Reply = { ok: true; rows?: unknown[][] } | { ok: false; error: string };

/** Runs one request on a fresh worker (a backup is rare; a crashed worker cannot poison the next). */
function call(msg: Record<string, unknown>): Promise<unknown[][]> {
  url ??= URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
  const w = new Worker(url);
  return new Promise<unknown[][]>((resolve, reject) => {
    w.onmessage = (e: MessageEvent<Reply>) => {
      const r = e.data;
      if (r.ok) resolve(r.rows ?? []);
      else reject(new Error(r.error));
    };
    w.onerror = (e) => reject(new Error(`backup worker failed: ${(e as ErrorEvent).message ?? e}`));
    w.postMessage(msg);
  }).finally(() => w.terminate());
}

/** VACUUM INTO `out` (which must not exist or be empty) from the database at `src`. */
export async function vacuumInto(src: string, out: string): Promise<void> {
  await call({ op: "vacuum", src, out });
}

/** Runs read-only statements on the file at `path` (opened immutable: no side files, no locks). */
export function readQueries<T = Record<string, unknown>>(path: string, sqls: string[]): Promise<T[][]> {
  return call({ op: "read", path, sqls }) as Promise<T[][]>;
}
