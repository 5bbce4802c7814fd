// A PostgreSQL primary and a streaming standby for the failover drill (issue 38, DESIGN 22), on
// the same footing as src/testing/postgres.ts: Debian's server binaries, a temporary folder owned
// by the `postgres` OS user, each server on a free port of 127.0.0.1 with its socket in the folder.
// - the primary: initdb, `wal_level=replica`, a `replicator` role with REPLICATION and its
//   pg_hba line; with { synchronous: true } `synchronous_standby_names = '*'` and
//   `synchronous_commit = on`, so a commit returns only once the standby has flushed it;
// - the standby: `pg_basebackup -R` from the primary (standby.signal and primary_conninfo written
//   for it), `cluster_name = standby` (its walreceiver's application_name), hot_standby on;
// - killPrimary(): SIGKILL to the postmaster and every server process of the primary (a crash:
//   the sockets close at once; a vanished machine would add the clients' TCP timeouts);
// - promoteStandby(): `pg_ctl promote -w`, the standby becomes a primary on its own timeline.
// Both are stopped and the folder removed when the test process is gone, however it ends.
// Durability settings stay as a test server's (fsync off): a killed process loses nothing the
// kernel holds, and the drill is about which server has the WAL, not about the disk.
import { SQL } from "bun";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { clusterDir, pgBinDir, runPg, serverOptions, stopWhenGone } from "./postgres";
import { freePort } from "./wait";

export interface PgServer {
  port: number;
  data: string;
  /** Superuser URL of its `postgres` database. */
  url: string;
}

export interface ReplicaPair {
  dir: string;
  primary: PgServer;
  standby: PgServer;
  synchronous: boolean;
  /** The libpq failover URL of `database` on both servers, primary first. */
  failoverUrl(database: string, targetSessionAttrs?: string): string;
  /** SIGKILL to the primary's postmaster and its server processes; returns once they are gone. */
  killPrimary(): void;
  /** Promotes the standby (`pg_ctl promote -w`); resolves once it takes writes. */
  promoteStandby(): Promise<void>;
  /** Stops both at once and removes the folder. */
  stop(): void;
}

/** Whether the server binaries the pair needs are installed (tests skip themselves otherwise). */
export function replicaBinariesPresent(): boolean {
  try {
    const bin = pgBinDir();
    return ["initdb", "pg_ctl", "pg_basebackup", "postgres"].every((b) => existsSync(join(bin, b)));
  } catch {
    return false;
  }
}

const REPLICATION_USER = "replicator";

export async function startReplicaPair(opts: { synchronous?: boolean } = {}): Promise<ReplicaPair> {
  const synchronous = opts.synchronous ?? true;
  const dir = clusterDir("sg-pgha-");
  const primaryData = join(dir, "primary");
  const standbyData = join(dir, "standby");
  stopWhenGone(process.pid, dir, [primaryData, standbyData]);
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primary: PgServer = { port: primaryPort, data: primaryData, url: `postgres://postgres@127.0.0.1:${primaryPort}/postgres` };
  const standby: PgServer = { port: standbyPort, data: standbyData, url: `postgres://postgres@127.0.0.1:${standbyPort}/postgres` };
  const pair: ReplicaPair = {
    dir,
    primary,
    standby,
    synchronous,
    failoverUrl: (database, attrs = "read-write") => `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/${database}?target_session_attrs=${attrs}`,
    killPrimary: () => killServer(primaryData),
    promoteStandby: async () => {
      runPg("pg_ctl", ["-D", standbyData, "-w", "-t", "60", "promote"]);
      await waitWritable(standby.url);
    },
    stop: () => {
      for (const data of [standbyData, primaryData]) stopServer(data);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    runPg("initdb", ["-D", primaryData, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"]);
    // The replication user's line first: pg_hba.conf is read top-down.
    const hba = join(primaryData, "pg_hba.conf");
    const rest = readFileSync(hba, "utf8");
    writeAsIs(hba, `host replication ${REPLICATION_USER} 127.0.0.1/32 trust\n${rest}`);
    startServer(primary, dir, [
      "-c wal_level=replica",
      "-c max_wal_senders=4",
      "-c wal_keep_size=64MB",
      "-c fsync=off",
      "-c full_page_writes=off",
      // Synchronous only once the standby streams (a commit before that would wait for it forever).
      synchronous ? "-c synchronous_commit=on" : "-c synchronous_commit=local",
    ]);
    const admin = new SQL({ url: primary.url, max: 1 });
    try {
      await admin.unsafe(`CREATE ROLE ${REPLICATION_USER} WITH REPLICATION LOGIN`);
    } finally {
      await admin.close();
    }
    runPg("pg_basebackup", ["-D", standbyData, "-d", `host=127.0.0.1 port=${primaryPort} user=${REPLICATION_USER}`, "-R", "-X", "stream", "-c", "fast", "--no-sync"]);
    startServer(standby, dir, ["-c hot_standby=on", "-c cluster_name=standby", "-c fsync=off", "-c full_page_writes=off", "-c wal_level=replica"]);
    await waitStreaming(primary.url, "async");
    if (synchronous) {
      const sql = new SQL({ url: primary.url, max: 1 });
      try {
        await sql.unsafe(`ALTER SYSTEM SET synchronous_standby_names = '*'`);
        await sql.unsafe(`SELECT pg_reload_conf()`);
      } finally {
        await sql.close();
      }
      await waitStreaming(primary.url, "sync");
    }
    return pair;
  } catch (e) {
    pair.stop();
    throw e;
  }
}

function startServer(server: PgServer, dir: string, extra: string[]): void {
  const opts = [...serverOptions(server.port, dir), ...extra].join(" ");
  runPg("pg_ctl", ["-D", server.data, "-l", `${server.data}.log`, "-o", opts, "-w", "-t", "60", "start"]);
}

function stopServer(data: string): void {
  if (!existsSync(join(data, "postmaster.pid"))) return;
  try {
    runPg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  } catch {
    // Already gone (a killed primary).
  }
}

/** SIGKILL to the postmaster and to each of its children (backends, walsender, checkpointer …). */
function killServer(data: string): void {
  const pidFile = join(data, "postmaster.pid");
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  const children = spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).map(Number);
  for (const p of [pid, ...children]) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  for (const p of [pid, ...children]) for (let i = 0; i < 200 && alive(p); i++) Bun.sleepSync(10);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** pg_hba.conf rewritten in place (its owner and mode kept: the postgres user must read it). */
function writeAsIs(path: string, text: string): void {
  const r = spawnSync("sh", ["-c", `cat > '${path}'`], { input: text });
  if (r.status !== 0) throw new Error(`could not write ${path}`);
}

/** Until the primary sees its standby streaming (with `sync` state when synchronous). */
async function waitStreaming(primaryUrl: string, state: "sync" | "async"): Promise<void> {
  const sql = new SQL({ url: primaryUrl, max: 1 });
  try {
    for (let i = 0; i < 600; i++) {
      const rows = (await sql`SELECT state, sync_state FROM pg_stat_replication`) as { state: string; sync_state: string }[];
      if (rows.some((r) => r.state === "streaming" && r.sync_state === state)) return;
      await Bun.sleep(50);
    }
    throw new Error(`the standby is not streaming (${state}) after 30 s`);
  } finally {
    await sql.close();
  }
}

async function waitWritable(url: string): Promise<void> {
  const sql = new SQL({ url, max: 1 });
  try {
    for (let i = 0; i < 600; i++) {
      const rows = (await sql`SELECT pg_is_in_recovery() AS r`) as { r: boolean }[];
      if (!rows[0]!.r) return;
      await Bun.sleep(50);
    }
    throw new Error("the promoted standby still in recovery after 30 s");
  } finally {
    await sql.close();
  }
}
