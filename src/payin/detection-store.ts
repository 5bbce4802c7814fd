// Detection times (detection_times, DESIGN 25): a credited transfer's block time, first sighting and
// completion (payin/detection.ts; ops/store.ts reads the samples).
import { and, eq, isNull } from "drizzle-orm";
import type { Tx } from "../db/client";
import { detectionTimes, transfers } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./detection-store.pg")>(() => require("./detection-store.pg"));

/** A credited transfer's detection row (DESIGN 25), made once from the transfer: its block time and first sighting, or null when it existed. */
export async function startDetection(tx: Tx, transferId: number, orderNo: string): Promise<{ chain: string; blockTime: number; seenAt: number } | null> {
  if (isPg(tx)) return await pg.startDetection(pgOf(tx), transferId, orderNo);
  const t = tx.select({ chain: transfers.chain, blockTime: transfers.blockTime, seenAt: transfers.seenAt }).from(transfers).where(eq(transfers.id, transferId)).get();
  if (!t) return null;
  const made = tx.insert(detectionTimes).values({ transferId, orderNo, ...t }).onConflictDoNothing().returning({ id: detectionTimes.transferId }).get();
  return made ? t : null;
}

/** Stamps the detection row's completion once; its chain and block time, or null when already stamped. */
export async function completeDetection(tx: Tx, transferId: number, now: number): Promise<{ chain: string; blockTime: number } | null> {
  if (isPg(tx)) return await pg.completeDetection(pgOf(tx), transferId, now);
  const r = tx
    .update(detectionTimes)
    .set({ completedAt: now })
    .where(and(eq(detectionTimes.transferId, transferId), isNull(detectionTimes.completedAt)))
    .returning({ chain: detectionTimes.chain, blockTime: detectionTimes.blockTime })
    .get();
  return r ?? null;
}
