// Back-office probes of the growth bench (pages, search, filters, CSV export, dashboard):
// every row of scripts/bench-backoffice.ts backofficeProbes, requested over HTTP from
// the in-process gateway as the generator's operator or as a merchant user of the
// sampled merchant (made here, once per database). scripts/bench-growth.ts runs them
// after ENGINE_PROBES on both databases; a CSV export returns its rows (figure per row).
import { backofficeProbes, type BackofficeProbe, type BackofficeSample, probeAnswered, sampleOf } from "../bench-backoffice";
import { backofficeSignIn } from "../../src/testing/backoffice-client";
import { createUser } from "../../src/backoffice/users";
import type { GrowthEnv, Probe } from "./probes";

interface Session {
  sample: BackofficeSample;
  cookie: Record<BackofficeProbe["who"], string>;
}
const sessions = new WeakMap<GrowthEnv, Promise<Session>>();

/** The sample and both sessions of this database, made on first use. */
function session(env: GrowthEnv): Promise<Session> {
  let s = sessions.get(env);
  if (!s) {
    s = (async () => {
      const sample = sampleOf(env.gw.ctx.db.$client);
      const ctx = env.gw.ctx;
      const shop = { username: `growth-shop-${env.run}`, password: "growth-bench-Passw0rd!" };
      await createUser({ db: ctx.db, cipher: ctx.cipher, now: () => ctx.clock.now() }, { username: shop.username, role: "merchant", merchantUid: sample.merchantUid, password: shop.password }, { actor: "cli", role: "operator" });
      const [op, mine] = await Promise.all([backofficeSignIn(env.gw.url, env.meta.operator), backofficeSignIn(env.gw.url, shop)]);
      return { sample, cookie: { operator: op.cookie, merchant: mine.cookie } };
    })();
    sessions.set(env, s);
  }
  return s;
}

/** The probe list does not depend on the database, only its paths do (filled per env). */
const TEMPLATE: BackofficeSample = {
  merchantUid: "M",
  orderNo: "PI",
  orderId: 1,
  merchantOrderNo: "m",
  txHash: "t",
  poolAddress: "a",
  fromAddress: "f",
  depositId: 1,
  payoutOrderNo: "PO",
  month: { from: "2026-01-01", to: "2026-01-31" },
};

export const BACKOFFICE_PROBES: Probe[] = backofficeProbes(TEMPLATE).map((t) => ({
  name: t.name,
  group: "back office",
  reps: t.csv ? 3 : 15,
  warmup: t.csv ? 1 : 2,
  run: async (env) => {
    const s = await session(env);
    const p = backofficeProbes(s.sample).find((x) => x.name === t.name);
    if (!p) throw new Error("nothing of this kind in this database");
    const res = await fetch(env.gw.url + p.path, { headers: { cookie: s.cookie[p.who] }, redirect: "manual" });
    const body = await res.text();
    if (!probeAnswered(res)) throw new Error(`${p.path} answered ${res.status}`);
    if (p.csv) return body.split("\r\n").length - 2;
  },
}));
