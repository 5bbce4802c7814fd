// The token-account row statuses both engines' stores read (chains/sol/store.ts and its .pg.ts side).
import type { solTokenAccounts } from "../../db/schema";

type Status = (typeof solTokenAccounts.$inferSelect)["status"];

/** Rows still to be moved on: nothing signed yet, or a creation not seen final. */
export const UNFINISHED: Status[] = ["pending", "signed", "broadcasted"];
