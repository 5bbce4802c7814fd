// The leader election's statements (DESIGN 22), on Bun's SQL client: the session advisory lock
// and the epoch raised in the same statement, the heartbeat that proves the lock's session is
// still the leader's, the heartbeat-age rule that ends a hung leader's session, and the epoch
// fence a transaction that stores a signed transaction runs first. Times are the database's
// clock in ms (clock_timestamp()), so gateways with skewed clocks agree on a heartbeat's age.
import type { SQL } from "bun";

/** The leader's session advisory lock ("SGLEAD" in ASCII); migrations hold "SGMIGR" (db/migrate-pg.ts). */
export const LEADER_LOCK_KEY = 0x5347_4c45_4144n;
/** How a bigint advisory key shows in pg_locks: classid the high 32 bits, objid the low 32, objsubid 1. */
const LOCK_CLASSID = Number(LEADER_LOCK_KEY >> 32n);
const LOCK_OBJID = Number(LEADER_LOCK_KEY & 0xffff_ffffn);

/** The database's clock in ms, as the other time columns hold times. */
const DB_NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/** Anything that runs a tagged query: a pool, a reserved connection, a transaction. */
export type SqlTag = Pick<SQL, "unsafe">;

export interface LeaderRow {
  epoch: number;
  owner: string;
  since: number;
  heartbeat: number;
  backendPid: number | null;
  /** The database's clock when read. */
  now: number;
}

/** The refusal of the epoch fence: leadership moved on (or was never held) since `epoch`. */
export class NotLeader extends Error {
  constructor(
    readonly epoch: number,
    readonly current: number | null,
  ) {
    super(`not the leader: this gateway led epoch ${epoch}, the cluster is at ${current === null ? "no epoch" : `epoch ${current}`}`);
    this.name = "NotLeader";
  }
}

/**
 * Session settings for the lock's connection: TCP keepalives so the server notices a leader
 * whose machine vanished (no FIN, no RST) and ends its session, releasing the lock.
 */
export interface KeepaliveSettings {
  idleS: number;
  intervalS: number;
  count: number;
}

/**
 * One step: the session's keepalives set, the advisory lock tried, and when it was taken the
 * epoch raised (the row made at the first takeover) with this session's pid; the new epoch, or
 * null when another session holds the lock. The lock is a session lock: a failed statement does
 * not drop it, so a caller that gets an error closes the connection.
 */
export async function tryTakeLead(conn: SqlTag, owner: string, keepalive: KeepaliveSettings): Promise<number | null> {
  const rows = (await conn.unsafe(
    `WITH s AS MATERIALIZED (
       SELECT set_config('tcp_keepalives_idle', $2::text, false), set_config('tcp_keepalives_interval', $3::text, false),
              set_config('tcp_keepalives_count', $4::text, false)
     ), l AS MATERIALIZED (SELECT pg_try_advisory_lock($1::bigint) AS got FROM s)
     INSERT INTO cluster_leader (id, epoch, owner, since, heartbeat, backend_pid)
     SELECT 1, 1, $5::text, ${DB_NOW_MS}, ${DB_NOW_MS}, pg_backend_pid() FROM l WHERE l.got
     ON CONFLICT (id) DO UPDATE SET epoch = cluster_leader.epoch + 1, owner = excluded.owner, since = excluded.since,
       heartbeat = excluded.heartbeat, backend_pid = excluded.backend_pid
     RETURNING epoch`,
    [LEADER_LOCK_KEY.toString(), String(keepalive.idleS), String(keepalive.intervalS), String(keepalive.count), owner],
  )) as { epoch: string | number }[];
  return rows.length ? Number(rows[0]!.epoch) : null;
}

/**
 * The leader's heartbeat, on the lock's connection: true while this session is the one that took
 * `epoch` (a reconnected client is another session, without the lock: false) and the epoch has not
 * moved on.
 */
export async function beat(conn: SqlTag, epoch: number): Promise<boolean> {
  const rows = await conn.unsafe(`UPDATE cluster_leader SET heartbeat = ${DB_NOW_MS} WHERE id = 1 AND epoch = $1::bigint AND backend_pid = pg_backend_pid() RETURNING epoch`, [epoch]);
  return rows.length === 1;
}

/** Gives the lock up (a clean stop); the session stays open. */
export async function releaseLead(conn: SqlTag): Promise<void> {
  await conn.unsafe(`SELECT pg_advisory_unlock($1::bigint)`, [LEADER_LOCK_KEY.toString()]);
}

/**
 * The heartbeat-age rule: when the leader's heartbeat is older than `staleMs` (database time) and
 * its recorded session still holds the leader lock, that session is ended (pg_terminate_backend),
 * which releases the lock: a leader whose process hangs with its connection open is deposed.
 * Whether a session was ended. Needs the same database role as the gateways (or pg_signal_backend).
 */
export async function endStaleLeader(conn: SqlTag, staleMs: number): Promise<boolean> {
  const rows = (await conn.unsafe(
    `SELECT pg_terminate_backend(c.backend_pid::int) AS ended FROM cluster_leader c
     WHERE c.id = 1 AND c.heartbeat < ${DB_NOW_MS} - $1::bigint AND c.backend_pid IS NOT NULL AND c.backend_pid <> pg_backend_pid()
       AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = c.backend_pid
                   AND l.classid = $2::oid AND l.objid = $3::oid AND l.objsubid = 1)`,
    [staleMs, LOCK_CLASSID, LOCK_OBJID],
  )) as { ended: boolean }[];
  return rows.some((r) => r.ended);
}

/** The leadership row as it stands, with the database's clock; null before any gateway led. */
export async function leaderRow(conn: SqlTag): Promise<LeaderRow | null> {
  const rows = (await conn.unsafe(
    `SELECT epoch, owner, since, heartbeat, backend_pid AS "backendPid", ${DB_NOW_MS} AS now FROM cluster_leader WHERE id = 1`,
  )) as Record<keyof LeaderRow, string | number | null>[];
  const r = rows[0];
  if (!r) return null;
  const n = (v: string | number | null) => (v === null ? null : Number(v));
  return { epoch: n(r.epoch)!, owner: String(r.owner), since: n(r.since)!, heartbeat: n(r.heartbeat)!, backendPid: n(r.backendPid), now: n(r.now)! };
}

/**
 * The epoch fence (DESIGN 22): run first inside the transaction that stores a signed transaction.
 * FOR SHARE holds the row until that transaction ends, so a takeover (which raises the epoch with
 * an UPDATE of this row) waits for it, and a takeover that committed first is seen here: either
 * the signed transaction is stored under the epoch that is current when it commits, or NotLeader
 * is thrown and the caller's transaction rolls back.
 */
export async function assertEpoch(tx: SqlTag, epoch: number): Promise<void> {
  const rows = (await tx.unsafe(EPOCH_FENCE_SQL)) as { epoch: string | number }[];
  checkEpoch(rows.length ? Number(rows[0]!.epoch) : null, epoch);
}

/** The fence's statement, for a transaction run through drizzle (`tx.execute(sql.raw(EPOCH_FENCE_SQL))`, then checkEpoch). */
export const EPOCH_FENCE_SQL = "SELECT epoch FROM cluster_leader WHERE id = 1 FOR SHARE";

/** Throws NotLeader unless `current` (the fence's read) is `epoch`. */
export function checkEpoch(current: number | null, epoch: number): void {
  if (current !== epoch) throw new NotLeader(epoch, current);
}
