// A real PostgreSQL for tests (DESIGN 22): Debian's `postgresql` package (scripts/ensure-postgres.sh
// installs it when missing), a throwaway cluster in a temporary folder owned by the `postgres` OS
// user (initdb refuses root), on a free port with its unix socket in that folder, fsync off.
// One cluster serves a whole `make test` run: scripts/test.sh starts it before the test processes
// (`bun src/testing/postgres.ts start` prints the exports) and stops it at the end; a single test
// file run without STABLEGATE_TEST_PG_URL starts its own, stopped when the process exits.
// The cluster holds a migrated template database; createTestDatabase() gives each test file its
// own database cloned from it (CREATE DATABASE … TEMPLATE …). No mock of PostgreSQL anywhere.
import { SQL } from "bun";
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migratePg } from "../db/migrate-pg";
import { freePort } from "./wait";

/** The migrated database every test database is cloned from. */
export const TEMPLATE_DB = "stablegate_template";
export const PG_URL_ENV = "STABLEGATE_TEST_PG_URL";
export const PG_DIR_ENV = "STABLEGATE_TEST_PG_DIR";

export interface TestCluster {
  /** Superuser URL of the cluster's `postgres` database. */
  url: string;
  dir: string;
  port: number;
}

/** The newest Debian PostgreSQL server binaries (STABLEGATE_PG_BIN overrides). */
export function pgBinDir(): string {
  const fromEnv = process.env.STABLEGATE_PG_BIN;
  if (fromEnv) return fromEnv;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error("PostgreSQL server binaries not found in /usr/lib/postgresql/*/bin: run scripts/ensure-postgres.sh (make postgres)");
  return join(root, newest, "bin");
}

/** Runs a server binary as the `postgres` OS user when we are root (initdb and postgres refuse root). */
export function runPg(bin: string, args: string[]): void {
  const exe = join(pgBinDir(), bin);
  const [cmd, argv] = process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", exe, ...args]] : [exe, args];
  const r = spawnSync(cmd, argv, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${bin} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/**
 * Starts a throwaway cluster and migrates its template database. Tests run it without fsync;
 * `{ durable: true }` keeps PostgreSQL's defaults (fsync, synchronous_commit, full_page_writes
 * on): the bench compares it with SQLite at FULL durability (scripts/bench.ts section pg).
 */
export async function startCluster(opts: { durable?: boolean; settings?: string[] } = {}): Promise<TestCluster> {
  const dir = clusterDir();
  const data = join(dir, "data");
  runPg("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"]);
  const port = await freePort();
  const serverOpts = [
    ...serverOptions(port, dir),
    // A test cluster: nothing to survive a power cut.
    ...(opts.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
    // Extra server settings ("-c name=value"), e.g. a bench's pg_stat_statements.
    ...(opts.settings ?? []),
  ].join(" ");
  runPg("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-o", serverOpts, "-w", "-t", "60", "start"]);
  const cluster: TestCluster = { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dir, port };
  try {
    await createTemplate(cluster.url);
  } catch (e) {
    stopCluster(dir);
    throw e;
  }
  return cluster;
}

/** A new temporary folder for a cluster, owned by the `postgres` OS user when we are root. */
export function clusterDir(prefix = "sg-pg-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (process.getuid?.() === 0) {
    const pw = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (pw.status !== 0) throw new Error("running as root needs the `postgres` OS user (Debian's postgresql package creates it)");
    chownSync(dir, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
  }
  return dir;
}

/** The postgres options every test server gets: its port, its socket in its folder, 127.0.0.1 only. */
export function serverOptions(port: number, dir: string): string[] {
  return [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", "-c max_connections=300", "-c shared_buffers=32MB"];
}

/** Stops a cluster at once and removes its folder; a folder that is not a cluster's is left alone. */
export function stopCluster(dir: string): void {
  const data = join(dir, "data");
  if (!existsSync(join(data, "PG_VERSION"))) return;
  try {
    runPg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  } catch {
    // Already stopped: the folder goes all the same.
  }
  rmSync(dir, { recursive: true, force: true });
}

async function createTemplate(adminUrl: string): Promise<void> {
  const admin = new SQL({ url: adminUrl, max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${TEMPLATE_DB} TEMPLATE template0`);
  } finally {
    await admin.close();
  }
  const db = new SQL({ url: withDatabase(adminUrl, TEMPLATE_DB), max: 1 });
  try {
    await migratePg(db);
  } finally {
    await db.close();
  }
}

/** The same server URL naming another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

let own: Promise<TestCluster> | undefined;

/** The cluster of this run: the one scripts/test.sh started, else one of this process's own. */
export async function testCluster(): Promise<string> {
  const shared = process.env[PG_URL_ENV];
  if (shared) return shared;
  own ??= startCluster().then((c) => {
    stopWhenGone(process.pid, c.dir);
    return c;
  });
  return (await own).url;
}

/**
 * A detached watcher that stops the cluster once this process is gone, however it ends (a test
 * runner's exit hooks do not run on SIGKILL or a crash, and a server left behind holds a port).
 */
export function stopWhenGone(pid: number, dir: string, dataDirs: string[] = [join(dir, "data")]): void {
  const ctl = join(pgBinDir(), "pg_ctl");
  const stop = process.getuid?.() === 0 ? `runuser -u postgres -- ${ctl}` : ctl;
  const stops = dataDirs.map((data) => `${stop} -D '${data}' -m immediate -w stop >/dev/null 2>&1`).join("; ");
  const script = `while kill -0 ${pid} 2>/dev/null; do sleep 0.5; done; ${stops}; rm -rf '${dir}'`;
  Bun.spawn(["sh", "-c", script], { stdio: ["ignore", "ignore", "ignore"], detached: true }).unref();
}

let seq = 0;

export interface TestDatabase {
  /** URL of a fresh database cloned from the migrated template. */
  url: string;
  name: string;
  /** Drops it (the cluster's end removes every one anyway). */
  drop(): Promise<void>;
}

/** A database of this test file's own, cloned from the migrated template (or empty with { empty: true }). */
export async function createTestDatabase(opts: { empty?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = await testCluster();
  const name = `sg_${process.pid}_${++seq}_${Math.random().toString(36).slice(2, 8)}`;
  const template = opts.empty ? "template0" : TEMPLATE_DB;
  const admin = new SQL({ url: adminUrl, max: 1 });
  try {
    // Cloning needs the template free of other sessions; a concurrent clone may hold it a moment.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (e) {
        if (attempt >= 50 || !/being accessed by other users/.test(String(e))) throw e;
        await Bun.sleep(50 + Math.random() * 100);
      }
    }
  } finally {
    await admin.close();
  }
  const url = withDatabase(adminUrl, name);
  return {
    url,
    name,
    async drop() {
      const a = new SQL({ url: adminUrl, max: 1 });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.close();
      }
    },
  };
}

// `bun src/testing/postgres.ts start` prints the shell exports of a new cluster (scripts/test.sh
// evals them); `bun src/testing/postgres.ts stop DIR` stops it.
if (import.meta.main) {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === "start") {
    const c = await startCluster();
    console.log(`export ${PG_URL_ENV}='${c.url}' ${PG_DIR_ENV}='${c.dir}'`);
  } else if (cmd === "stop" && arg) {
    stopCluster(arg);
  } else {
    console.error("usage: bun src/testing/postgres.ts start | stop DIR");
    process.exit(2);
  }
}
