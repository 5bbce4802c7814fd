import type { AppContext } from "../app/context";
import { createMerchant } from "../merchants/service";
import { createUser, findUser } from "../backoffice/users";
import { issueSetupToken } from "../backoffice/setup";
import { CLI_ACTOR } from "../audit/log";
import type { LoadedConfig } from "../config/load";
import { demoMerchantMark, markDemoMerchant } from "./store";
import { writeTx } from "../db/client";

/**
 * Demo exchange rates (units per 1 USDT/USDC) for `serve --demo` when the config has no rate
 * table of its own: shop plugins (epusdt, EPay) send CNY, and with an empty table every such
 * order (and every CNY or EUR payment link) would be refused (10006 / 56001) until the
 * operator wrote one. A config that sets `[rates]` (a table or coingecko) is left as it is.
 */
export const DEMO_RATES: Readonly<Record<string, string>> = { CNY: "7.10", EUR: "0.92" };

export function withDemoRates(loaded: LoadedConfig): { loaded: LoadedConfig; added: boolean } {
  const rates = loaded.config.rates;
  if (rates.source !== "fixed" || Object.keys(rates.fixed).length) return { loaded, added: false };
  return { loaded: { ...loaded, config: { ...loaded.config, rates: { ...rates, fixed: { ...DEMO_RATES } } } }, added: true };
}

/** On the first `make run`, a demo merchant whose key is printed once. */
export async function ensureDemoMerchant(ctx: AppContext): Promise<{ merchantUid: string; apiKey: string } | null> {
  if (await demoMerchantMark(ctx.db) !== undefined) return null;
  const { merchant, apiKey } = await createMerchant({ db: ctx.db, cipher: ctx.cipher, now: () => ctx.clock.now() }, { name: "Demo Shop" });
  await writeTx(ctx.db, async (tx) => await markDemoMerchant(tx, merchant.uid, ctx.clock.now()));
  return { merchantUid: merchant.uid, apiKey };
}

/** `serve --demo`: an operator `admin` and `demo`, a user of the demo merchant; their passwords are returned once. */
export async function ensureDemoUsers(ctx: AppContext): Promise<{ username: string; role: string; password: string }[]> {
  const deps = { db: ctx.db, cipher: ctx.cipher, now: () => ctx.clock.now() };
  const out: { username: string; role: string; password: string }[] = [];
  if (!await findUser(ctx.db, "admin")) out.push({ username: "admin", role: "operator", password: (await createUser(deps, { username: "admin", role: "operator" }, CLI_ACTOR)).password });
  const mark = await demoMerchantMark(ctx.db);
  if (mark !== undefined && !await findUser(ctx.db, "demo")) {
    out.push({ username: "demo", role: "merchant", password: (await createUser(deps, { username: "demo", role: "merchant", merchantUid: mark }, CLI_ACTOR)).password });
  }
  return out;
}

/** The one-time setup link while no operator exists (a new token each start, valid 1 hour). */
export async function setupLink(ctx: AppContext): Promise<string | null> {
  const token = await issueSetupToken({ db: ctx.db, cipher: ctx.cipher, now: () => ctx.clock.now() });
  return token ? `${ctx.publicUrl}/backoffice/setup/${token}` : null;
}
