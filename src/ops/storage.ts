// Storage health (DESIGN 14, 16): free space on the database's filesystem, a
// probe write that is committed (fsynced: synchronous = FULL) rather than
// rolled back, and the database file's identity. A file deleted or replaced
// under the process (dev + inode differ from the open's, or the path is gone)
// would take every later write into a file no one will ever open again: the
// connection is made read-only at once, so writes fail as storage faults (503 /
// 10003), /readyz says not ready and storage_unwritable fires until a restart.
import { statfsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { type Db, fileIdentityAtOpen, setWriteGuard, writeTx } from "../db/client";
import { describeFault } from "../db/storage-fault";
import { isPg } from "../db/engine";
import { pgWriteProblem } from "../db/pg-health";
import type { Logger } from "../lib/logger";
import { busyTimeout, inTransaction, probeWrite, setBusyTimeout, stopWrites } from "./store";

export interface StorageState {
  /** The probe write committed. */
  writable: boolean;
  /** Why not: the SQLite error of the probe, or the file problem. */
  error: string | null;
  /** "ok", or the database file "deleted" / "replaced" under the process. */
  file: "ok" | "deleted" | "replaced";
  /** Free bytes for this process on the database's filesystem (null: unknown, or :memory:). */
  freeBytes: number | null;
  minFreeBytes: number;
  diskLow: boolean;
}

export interface StorageCtx {
  db: Db;
  logger: Logger;
  config: { ops: { min_free_disk_mb: number } };
}

/** How often write paths re-check the file's identity (one stat; real time). */
const GUARD_EVERY_MS = 100;

export class StorageMonitor {
  private lost: StorageState["file"] = "ok";
  private guardAt = -Infinity;
  private last: StorageState | null = null;
  private readonly minFreeBytes: number;

  constructor(private readonly ctx: StorageCtx) {
    this.minFreeBytes = ctx.config.ops.min_free_disk_mb * 1024 * 1024;
  }

  /** Checks the file's identity before writes (at most every 100 ms). */
  install(): () => void {
    setWriteGuard(this.ctx.db, async () => {
      const now = performance.now();
      if (now - this.guardAt < GUARD_EVERY_MS) return;
      this.guardAt = now;
      await this.checkFile();
    });
    return () => setWriteGuard(this.ctx.db, null);
  }

  /** Is the file the connection opened still the one at its path? Sticky once lost. */
  async checkFile(): Promise<StorageState["file"]> {
    if (this.lost !== "ok") return this.lost;
    // PostgreSQL: no file of the gateway's (its outages are connection errors, checked by probe()).
    if (isPg(this.ctx.db)) return "ok";
    const id = fileIdentityAtOpen(this.ctx.db);
    if (!id) return "ok";
    let now: { dev: number; ino: number } | null;
    try {
      now = statSync(id.path);
    } catch {
      now = null;
    }
    if (now && now.dev === id.dev && now.ino === id.ino) return "ok";
    this.lost = now ? "replaced" : "deleted";
    // Stop writing: nothing more goes into a file that is no longer the database.
    try {
      await stopWrites(this.ctx.db);
    } catch {}
    this.ctx.logger.error(`database file ${this.lost} under the running gateway: writes stopped (503 / 10003) until a restart`, { path: id.path, file: this.lost });
    return this.lost;
  }

  /** Every check, now (one stat, one statfs, one committed write). */
  async check(): Promise<StorageState> {
    const file = await this.checkFile();
    const probe = file === "ok" ? await this.probe() : `database file ${file}: ${fileIdentityAtOpen(this.ctx.db)?.path}`;
    const freeBytes = this.freeBytes();
    const state: StorageState = {
      writable: probe === null,
      error: probe,
      file,
      freeBytes,
      minFreeBytes: this.minFreeBytes,
      diskLow: this.minFreeBytes > 0 && freeBytes !== null && freeBytes < this.minFreeBytes,
    };
    this.last = state;
    return state;
  }

  private freeBytes(): number | null {
    if (isPg(this.ctx.db)) return null;
    const id = fileIdentityAtOpen(this.ctx.db);
    if (!id) return null;
    try {
      const s = statfsSync(dirname(id.path));
      return Number(s.bavail) * Number(s.bsize);
    } catch {
      return null;
    }
  }

  /** A committed write: a full disk, an I/O error or a read-only file fails here. */
  private async probe(): Promise<string | null> {
    // PostgreSQL: reachable and taking writes (not a standby, not read-only), within 2 s.
    if (isPg(this.ctx.db)) return await pgWriteProblem(this.ctx.db);
    // Inside a caller's transaction (cannot happen between loop turns): the last result stands.
    if (await inTransaction(this.ctx.db)) return this.last?.error ?? null;
    // Another process holding the write lock (a backup) must not stall the probe for the
    // connection's full busy_timeout: wait briefly (the call is synchronous; restored below).
    const previous = await busyTimeout(this.ctx.db);
    await setBusyTimeout(this.ctx.db, 250);
    try {
      await writeTx(this.ctx.db, async (tx) => await probeWrite(tx, Date.now()));
      return null;
    } catch (e) {
      return describeFault(e);
    } finally {
      await setBusyTimeout(this.ctx.db, previous);
    }
  }
}
