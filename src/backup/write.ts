// `backup --out FILE` and every scheduled backup: an online copy that is either whole and
// checked at FILE, or absent. The copy goes to a temporary name in FILE's folder, is
// checked (inspect.ts), fsynced, linked into place (never over an existing file), and the
// folder is fsynced so the name survives a power cut. Killed at any point, FILE does not
// exist; the temporary file is removed by the next backup into that folder.
import { linkSync, readdirSync, renameSync, rmSync, existsSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { crashPoint } from "../lib/crash";
import { createPrivateFile } from "../db/file-modes";
import { BadBackup, inspectBackup, type BackupSummary } from "./inspect";
import { vacuumInto } from "./sqlite-worker";
import { processAlive } from "../lib/pid";
import { rotateGenerationAt } from "../restore/generation";

const PARTIAL = /^\.(.+)\.(\d+)\.partial$/;
const partialName = (out: string) => join(dirname(out), `.${basename(out)}.${process.pid}.partial`);


/** Temporary files of backups that died (their process is gone) in `dir`. */
export function removeStalePartials(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = PARTIAL.exec(n);
    if (m && Number(m[2]) !== process.pid && !processAlive(Number(m[2]))) rmSync(join(dir, n), { force: true });
  }
}

/** fsync off the event loop (libuv's thread pool): flushing a large copy can take a while. */
export async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Writes a checked copy of the database at `dbPath` to `out` (which must not exist) and
 * returns what it holds. Throws BadBackup when the copy does not check out (nothing left
 * at `out`).
 */
export async function writeBackup(dbPath: string, out: string): Promise<BackupSummary> {
  return await writeChecked(out, {
    copy: async (tmp) => await vacuumInto(dbPath, tmp),
    check: async (tmp) => await inspectBackup(tmp),
    // The live database moves on to a new generation marker: this copy, put back, is a restore (DESIGN 16).
    published: async () => rotateGenerationAt(dbPath, Date.now()),
  });
}

/**
 * Either engine's backup file: `copy` fills a 0600 temporary file beside `out`, `check` reads it
 * back (BadBackup when it does not check out), then it is fsynced, linked to `out` (never over a
 * file) and the folder fsynced; `published` runs last. Killed or failed anywhere, `out` is absent.
 */
export async function writeChecked(out: string, o: { copy(tmp: string): Promise<void>; check(tmp: string): Promise<BackupSummary>; published(): Promise<void> }): Promise<BackupSummary> {
  if (existsSync(out)) throw new BadBackup(`${out} already exists`);
  const dir = dirname(out);
  removeStalePartials(dir);
  const tmp = partialName(out);
  rmSync(tmp, { force: true });
  createPrivateFile(tmp);
  try {
    await o.copy(tmp);
    crashPoint("backup-copied");
    const summary = await o.check(tmp);
    await fsyncPath(tmp);
    crashPoint("backup-checked");
    publish(tmp, out);
    await fsyncPath(dir);
    await o.published();
    return { ...summary, path: out };
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** tmp -> out atomically, refusing to replace a file that appeared meanwhile. */
function publish(tmp: string, out: string): void {
  try {
    linkSync(tmp, out); // fails with EEXIST instead of replacing
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new BadBackup(`${out} already exists`);
    // Filesystems without hard links (some network and FUSE mounts): rename, having checked above.
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw e;
    if (existsSync(out)) throw new BadBackup(`${out} already exists`);
    renameSync(tmp, out);
  }
}
