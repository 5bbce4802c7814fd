// queries/lists.ts on PostgreSQL: the rows of the ids a list or a search picked (the picking itself
// is engine-neutral, queries/keyset.ts). Same selections on schema-pg.ts; the caller formats them.
import { eq, inArray } from "drizzle-orm";
import type { PgQ } from "../../db/engine";
import { addresses, merchants, payinOrders, payoutOrders, transfers } from "../../db/schema-pg";

export async function payinRecords(db: PgQ, ids: number[]) {
  return await db
    .select({
      id: payinOrders.id,
      orderNo: payinOrders.orderNo,
      merchantUid: merchants.uid,
      merchantOrderNo: payinOrders.merchantOrderNo,
      chain: payinOrders.chain,
      token: payinOrders.token,
      decimals: payinOrders.decimals,
      amount: payinOrders.amount,
      paidAmount: payinOrders.paidAmount,
      status: payinOrders.status,
      txHash: payinOrders.txHash,
      address: payinOrders.address,
      createdAt: payinOrders.createdAt,
      completedAt: payinOrders.completedAt,
    })
    .from(payinOrders)
    .innerJoin(merchants, eq(merchants.id, payinOrders.merchantId))
    .where(inArray(payinOrders.id, ids));
}

export async function payoutRecords(db: PgQ, ids: number[]) {
  return await db
    .select({
      id: payoutOrders.id,
      orderNo: payoutOrders.orderNo,
      merchantUid: merchants.uid,
      merchantOrderNo: payoutOrders.merchantOrderNo,
      chain: payoutOrders.chain,
      token: payoutOrders.token,
      decimals: payoutOrders.decimals,
      amount: payoutOrders.amount,
      fee: payoutOrders.fee,
      status: payoutOrders.status,
      failedStage: payoutOrders.failedStage,
      txHash: payoutOrders.txHash,
      fromAddress: payoutOrders.fromAddress,
      toAddress: payoutOrders.toAddress,
      createdAt: payoutOrders.createdAt,
    })
    .from(payoutOrders)
    .innerJoin(merchants, eq(merchants.id, payoutOrders.merchantId))
    .where(inArray(payoutOrders.id, ids));
}

export async function depositRecords(db: PgQ, ids: number[]) {
  return await db
    .select({
      id: transfers.id,
      merchantUid: merchants.uid,
      chain: transfers.chain,
      token: transfers.token,
      amount: transfers.amount,
      txHash: transfers.txHash,
      fromAddress: transfers.fromAddress,
      toAddress: transfers.toAddress,
      status: transfers.status,
      disposition: transfers.disposition,
      orderNo: payinOrders.orderNo,
      blockTime: transfers.blockTime,
    })
    .from(transfers)
    .innerJoin(addresses, eq(addresses.id, transfers.addressId))
    .leftJoin(merchants, eq(merchants.id, addresses.merchantId))
    .leftJoin(payinOrders, eq(payinOrders.id, transfers.payinOrderId))
    .where(inArray(transfers.id, ids));
}

export async function merchantIdByUid(db: PgQ, uid: string): Promise<number | undefined> {
  return (await db.select({ id: merchants.id }).from(merchants).where(eq(merchants.uid, uid)))[0]?.id;
}
