// The CLI's storage module: the demo merchant's marker in `settings` (docs/architecture.md
// "Data access"), which `serve --demo` (cli/demo.ts) sets once and reads back.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { settings } from "../db/schema";

const DEMO_MARK = "demo_merchant_uid";

/** The demo merchant's uid, once `serve --demo` made one. */
export async function demoMerchantMark(db: Db): Promise<string | undefined> {
  return db.select().from(settings).where(eq(settings.key, DEMO_MARK)).get()?.value;
}

export async function markDemoMerchant(db: Db, merchantUid: string, now: number): Promise<void> {
  db.insert(settings).values({ key: DEMO_MARK, value: merchantUid, updatedAt: now }).run();
}
