// The gas top-up statuses both engines' stores read (chains/common/store.ts and its .pg.ts side).
import type { gasTopups } from "../../db/schema";

type TopupStatus = (typeof gasTopups.$inferSelect)["status"];

/** A top-up under way: signed and stored, maybe sent, not landed yet. */
export const OPEN_TOPUP: readonly TopupStatus[] = ["signed", "broadcasted"];
