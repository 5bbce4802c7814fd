// A growth database served by an in-process gateway as if it were its own (the growth bench's
// probes and idle phase, and src/ops/first-second.e2e.test.ts).
import { closeSync, copyFileSync, fsyncSync, openSync } from "node:fs";
import { join } from "node:path";
import type { GrowthMeta } from "./generate";
import { openReadonlyDb } from "../../src/db/client";
import { dbGeneration, writeFolderMarker } from "../../src/restore/generation";
import { systemClock, type Clock } from "../../src/lib/clock";

/**
 * Copies the built database into `dir` and gives the folder the generation marker of the
 * database: a database whose folder lacks its marker is a restore (DESIGN 16), and would start
 * in reconcile mode deriving the restore's HD index gap. Returns the copy's path.
 */
export async function servedCopy(path: string, dir: string): Promise<string> {
  const copy = join(dir, "stablegate.db");
  copyFileSync(path, copy);
  // The copy on the disk before anything is measured: its writeback (GBs for the large database)
  // otherwise lands on the first probe's COMMIT (a 282-337 ms wait in its fsync, 2026-11-30).
  const fd = openSync(copy, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const db = openReadonlyDb(copy);
  try {
    const generation = await dbGeneration(db);
    if (generation) writeFolderMarker(copy, generation);
  } finally {
    db.$client.close();
  }
  return copy;
}

/** Real time shifted so the build's "now" is now: the database looks as it did when built. */
export function shiftedClock(meta: GrowthMeta): Clock {
  const offset = Date.now() - meta.end;
  return { now: () => Date.now() - offset, after: systemClock.after };
}
