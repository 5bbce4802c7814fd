// payin/detection-store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
import { and, eq, isNull } from "drizzle-orm";
import { firstRow, type PgQ } from "../db/engine";
import { detectionTimes, transfers } from "../db/schema-pg";

export async function startDetection(tx: PgQ, transferId: number, orderNo: string): Promise<{ chain: string; blockTime: number; seenAt: number } | null> {
  const t = await firstRow(tx.select({ chain: transfers.chain, blockTime: transfers.blockTime, seenAt: transfers.seenAt }).from(transfers).where(eq(transfers.id, transferId)));
  if (!t) return null;
  const made = await firstRow(tx.insert(detectionTimes).values({ transferId, orderNo, ...t }).onConflictDoNothing().returning({ id: detectionTimes.transferId }));
  return made ? t : null;
}

export async function completeDetection(tx: PgQ, transferId: number, now: number): Promise<{ chain: string; blockTime: number } | null> {
  const r = await firstRow(
    tx
      .update(detectionTimes)
      .set({ completedAt: now })
      .where(and(eq(detectionTimes.transferId, transferId), isNull(detectionTimes.completedAt)))
      .returning({ chain: detectionTimes.chain, blockTime: detectionTimes.blockTime }),
  );
  return r ?? null;
}
