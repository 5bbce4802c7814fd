// A transfer's states (transfers.status) as data. The lifecycle is the watcher's: it sees a
// transfer in a block (pending), follows it to a final block (confirmed) or loses it in a reorg
// (reverted), and tells the pay-in module through its port (./port.ts). The list sits here, not in
// payin/ (rank 8), because the watcher (rank 6) spells it too, and every reader of transfers
// (payout's reconcile, rank 7; pay-ins and operations, rank 8) ranks above it and may import it
// (src/app/layers.test.ts RANKS). db/status-sql.ts spells these lists as SQL.

export const TRANSFER_STATUSES = ["pending", "confirmed", "reverted"] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** Seen in a block, not final yet (partial index transfers_pending_address). */
export const TRANSFER_PENDING: readonly TransferStatus[] = ["pending"];
/** In a final block: counted as received. */
export const TRANSFER_CONFIRMED: readonly TransferStatus[] = ["confirmed"];
/** Its block is gone in a reorg: it never happened. */
export const TRANSFER_REVERTED: readonly TransferStatus[] = ["reverted"];
