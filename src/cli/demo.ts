import { eq } from "drizzle-orm";
import type { AppContext } from "../app/context";
import { settings } from "../db/schema";
import { createMerchant } from "../merchants/service";

const MARK = "demo_merchant_uid";

/** On the first `make run`, a demo merchant whose key is printed once. */
export function ensureDemoMerchant(ctx: AppContext): { merchantUid: string; apiKey: string } | null {
  const done = ctx.db.select().from(settings).where(eq(settings.key, MARK)).get();
  if (done) return null;
  const { merchant, apiKey } = createMerchant({ db: ctx.db, cipher: ctx.cipher, now: () => ctx.clock.now() }, { name: "Demo Shop" });
  ctx.db.insert(settings).values({ key: MARK, value: merchant.uid, updatedAt: ctx.clock.now() }).run();
  return { merchantUid: merchant.uid, apiKey };
}
