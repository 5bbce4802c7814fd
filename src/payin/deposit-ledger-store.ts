// The deposit ledger (ledger_entries of kind deposit): one entry per final transfer (payin/deposits.ts).
import { sql } from "drizzle-orm";
import { prepared, type Tx, writing } from "../db/client";
import { ledgerEntries } from "../db/schema";
import { isPg, pgOf, pgSide } from "../db/engine";

const pg = pgSide<typeof import("./deposit-ledger-store.pg")>(() => require("./deposit-ledger-store.pg"));

/** The ledger's deposit entry of a final transfer (once: ON CONFLICT DO NOTHING). */
export async function addDepositLedger(tx: Tx, e: { addressId: string; chain: string; token: string; amount: string; refId: string; now: number }): Promise<void> {
  if (isPg(tx)) return await pg.addDepositLedger(pgOf(tx), e);
  prepared(writing(tx), "depositLedger", (d) =>
    d
      .insert(ledgerEntries)
      .values({
        addressId: sql.placeholder("addressId"),
        chain: sql.placeholder("chain"),
        token: sql.placeholder("token"),
        kind: "deposit",
        amount: sql.placeholder("amount"),
        refType: "transfer",
        refId: sql.placeholder("refId"),
        createdAt: sql.placeholder("now"),
      } as never)
      .onConflictDoNothing()
      .prepare(),
  ).run(e);
}
