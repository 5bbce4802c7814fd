// Scheduled backups (DESIGN 16 "Backups off the box"): on `backup.schedule` the gateway
// writes a checked backup (write.ts) into `backup.dir`, uploads it when `backup.s3_url` is
// set, keeps the newest `backup.keep` of the ones it made (locally and in the bucket) and
// records the run; the newest run having failed is the backup_failed alert
// (src/ops/alerts/conditions.ts), resolved by the next run that succeeds.
import { Cron } from "croner";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import type { Config } from "../config/schema";
import { type Db, writeTx } from "../db/client";
import type { Clock } from "../lib/clock";
import { newId } from "../lib/ids";
import { registerSecret, type Logger } from "../lib/logger";
import { lastBackupStart, newestBackupRun, recordBackupRun, type BackupRun } from "./store";
import { writeBackup } from "./write";
import { isPg, pgSide, pgState } from "../db/engine";
import { listBackups, s3Target, upload, type S3Target } from "./s3";

/** pg_dump's side (PostgreSQL only: it loads the restore's PostgreSQL modules and migrations). */
const pgDump = pgSide<typeof import("./pg-dump")>(() => require("./pg-dump"));

export interface BackupJobCtx {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, "backup" | "database">;
}

export type { BackupRun };

/** The folder scheduled backups go to: `backup.dir`, else backups/ beside the database. */
export function backupDir(config: BackupJobCtx["config"]): string {
  return resolve(config.backup.dir ?? join(dirname(config.database.path), "backups"));
}

/** "20261124T081500Z" */
const stamp = (t: number) => new Date(t).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");

/** An upload that hangs must not hold the job (and every later backup) for ever. */
const UPLOAD_TIMEOUT_MS = 30 * 60_000;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms / 60_000} min`)), ms)))]).finally(() => clearTimeout(timer));
}

export class ScheduledBackups {
  private readonly cron: Cron;
  private readonly dir: string;
  /** File names this gateway makes: `<database name>-<UTC stamp>.db` (PostgreSQL: `.dump`, pg_dump's custom format). */
  private readonly name: string;
  private readonly ours: RegExp;
  private readonly ext: ".db" | ".dump";
  private readonly s3: S3Target | null;
  private readonly since: number;
  private readonly logger: Logger;
  private running: Promise<BackupRun> | null = null;

  constructor(private readonly ctx: BackupJobCtx) {
    const b = ctx.config.backup;
    if (!b.schedule) throw new Error("backup.schedule is not set");
    this.cron = new Cron(b.schedule, { paused: true, timezone: "UTC" });
    this.dir = backupDir(ctx.config);
    const url = isPg(ctx.db) ? ctx.config.database.url : undefined;
    this.name = url ? pgDatabaseName(url) : basename(ctx.config.database.path, extname(ctx.config.database.path));
    this.ext = url ? ".dump" : ".db";
    this.ours = new RegExp(`^${this.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-\\d{8}T\\d{6}Z\\${this.ext}$`);
    if (b.s3_secret_key) registerSecret(b.s3_secret_key);
    this.s3 = s3Target(b);
    this.since = ctx.clock.now();
    this.logger = ctx.logger.child({ component: "backup" });
  }

  /** The next slot after the newest run (the first: after start-up); slots missed while down run once, at once. */
  async dueAt(): Promise<number | null> {
    return this.cron.nextRun(new Date(await lastBackupStart(this.ctx.db) ?? this.since))?.getTime() ?? null;
  }

  /** The job: a backup when one is due. */
  async tick(): Promise<BackupRun | null> {
    const due = await this.dueAt();
    if (due === null || due > this.ctx.clock.now()) return null;
    return this.run();
  }

  /** One backup now (never two at once). */
  run(): Promise<BackupRun> {
    this.running ??= this.take().finally(() => (this.running = null));
    return this.running;
  }

  private async take(): Promise<BackupRun> {
    const startedAt = this.ctx.clock.now();
    const file = join(this.dir, `${this.name}-${stamp(startedAt)}${this.ext}`);
    const row: BackupRun = { id: newId("BK"), startedAt, finishedAt: null, status: "ok", file: null, bytes: null, s3Key: null, error: null };
    const problems: string[] = [];
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const s = await this.write(file);
      row.file = file;
      row.bytes = s.bytes;
      this.logger.info("backup written", { file, bytes: s.bytes, rows: s.rows, newestPayin: s.newestPayin?.orderNo ?? null });
      if (this.s3) {
        const key = this.s3.prefix + basename(file);
        await withTimeout(upload(this.s3, file, key), UPLOAD_TIMEOUT_MS, `upload to ${this.s3.where}`);
        row.s3Key = key;
        this.logger.info("backup uploaded", { bucket: this.s3.bucket, key });
      }
    } catch (e) {
      problems.push(row.file ? `upload to ${this.s3?.where} failed: ${message(e)}` : `backup to ${file} failed: ${message(e)}`);
    }
    // Retention runs even after a failed upload: the local copies must not fill the disk.
    try {
      this.pruneLocal();
    } catch (e) {
      problems.push(`removing old backups in ${this.dir} failed: ${message(e)}`);
    }
    if (this.s3 && row.s3Key) {
      try {
        await withTimeout(this.pruneS3(), UPLOAD_TIMEOUT_MS, `retention in ${this.s3.where}`);
      } catch (e) {
        problems.push(`removing old backups in ${this.s3.where} failed: ${message(e)}`);
      }
    }
    row.finishedAt = this.ctx.clock.now();
    if (problems.length) {
      row.status = "failed";
      row.error = problems.join("; ");
      this.logger.error("scheduled backup failed", { error: row.error });
    }
    await writeTx(this.ctx.db, async (tx) => await recordBackupRun(tx, row));
    return row;
  }

  /** One checked backup into `file`: SQLite's copy, or pg_dump (the live database then moves to a new generation). */
  private async write(file: string) {
    const url = this.ctx.config.database.url;
    if (isPg(this.ctx.db) && url) return await pgDump.writePgBackup({ url, sql: pgState(this.ctx.db).pool, out: file });
    return await writeBackup(this.ctx.config.database.path, file);
  }

  private pruneLocal(): void {
    const mine = readdirSync(this.dir).filter((f) => this.ours.test(f)).sort();
    for (const f of mine.slice(0, Math.max(0, mine.length - this.ctx.config.backup.keep))) rmSync(join(this.dir, f), { force: true });
  }

  private async pruneS3(): Promise<void> {
    const t = this.s3!;
    const keys = await listBackups(t, t.prefix + this.name + "-", (n) => this.ours.test(n));
    for (const k of keys.slice(0, Math.max(0, keys.length - this.ctx.config.backup.keep))) await t.client.delete(k);
  }
}

/** The database a PostgreSQL URL names (the last path segment; libpq's default is the user's name, not guessed here). */
export function pgDatabaseName(url: string): string {
  const path = url.replace(/[?#].*$/, "").replace(/^[a-z]+:\/\/[^/]*/i, "");
  return decodeURIComponent(path.replace(/^\//, "")) || "stablegate";
}

const message = (e: unknown) => String((e as Error)?.message ?? e);

/** The newest scheduled backup, if it failed (the backup_failed alert). */
export async function failedBackup(db: Db): Promise<BackupRun | null> {
  const last = await newestBackupRun(db);
  return last?.status === "failed" ? last : null;
}
