// The growth bench's probes: named operations timed on the small and the large
// database alike (scripts/bench-growth.ts prints large/small for each). A probe is
// a row of a table: add one by appending to a list (back-office probes live in
// ./backoffice-probes.ts). `run` does one operation; returning a number says how
// many rows it produced, and the figure becomes time per row (CSV exports).
import type { StablegateClient } from "../../src/sdk/client";
import type { TestGateway } from "../../src/testing/harness";
import type { Clock } from "../../src/lib/clock";
import type { GrowthMerchant, GrowthMeta } from "./generate";
import { reconcileChain } from "../../src/payout/balances";
import { expireDueOrders } from "../../src/payin/service";
import { pruneNonces } from "../../src/auth/verify";
import { runBatches } from "../../src/treasury/batch";
import { runCollections } from "../../src/treasury/collection";
import { pruneDeliveredCallbacks } from "../../src/callbacks/retention";
import { balanceSheet, sheetTotals } from "../../src/treasury/balances";

export interface GrowthEnv {
  label: "small" | "large";
  meta: GrowthMeta;
  /** The in-process gateway on a copy of the database (jobs off while probes run). */
  gw: TestGateway;
  /** The gateway's clock: real time shifted so the build's "now" is now. */
  clock: Clock;
  merchants: Array<GrowthMerchant & { client: StablegateClient }>;
  /** Existing pay-ins picked at random over the year (order number and index into merchants). */
  orders: Array<{ orderNo: string; merchant: number }>;
  /** Unique per run: prefix for merchantOrderNo values. */
  run: string;
}

export interface Probe {
  name: string;
  /** Printed as a heading group. */
  group: "merchant API" | "balances" | "background jobs" | "back office";
  /** Timed calls (default 40); warm-up calls before them (default 3). */
  reps?: number;
  warmup?: number;
  /** One operation; a returned number is the rows it produced (the figure is then per row). */
  run(env: GrowthEnv, i: number): Promise<number | void> | number | void;
}

const ROUND = ["10", "20", "50", "100", "200", "500"];

export const ENGINE_PROBES: Probe[] = [
  {
    name: "create pay-in, unique amount",
    group: "merchant API",
    run: async (e, i) => {
      await e.merchants[0]!.client.request("POST", "/openapi/payin/orders", {
        body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `${e.run}-u${i}`, amount: `${7000 + i}.${String(i).padStart(6, "0")}`, notifyUrl: "https://shop.example/cb" },
      });
    },
  },
  {
    // The amounts the generator repeats all year on every pool address (6 amounts x 5 addresses free).
    name: "create pay-in, round amount",
    group: "merchant API",
    reps: 24,
    warmup: 4,
    run: async (e, i) => {
      await e.merchants[1]!.client.request("POST", "/openapi/payin/orders", {
        body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: `${e.run}-r${i}`, amount: ROUND[i % ROUND.length]!, notifyUrl: "https://shop.example/cb" },
      });
    },
  },
  {
    name: "signed GET of a pay-in",
    group: "merchant API",
    reps: 100,
    run: async (e, i) => {
      const o = e.orders[i % e.orders.length]!;
      await e.merchants[o.merchant]!.client.request("GET", `/openapi/payin/orders/${o.orderNo}`);
    },
  },
  {
    name: "create payout (source picked)",
    group: "merchant API",
    run: async (e, i) => {
      await e.merchants[2]!.client.request("POST", "/openapi/payout/orders", {
        body: { chainCode: "TRON", tokenSymbol: "USDT", toAddress: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8", amount: "0.01", merchantOrderNo: `${e.run}-p${i}`, notifyUrl: "https://shop.example/cb" },
      });
    },
  },
  {
    // The balances page's and the dashboard's data (the page itself is a back-office probe).
    name: "balances sheet and totals (all merchants)",
    group: "balances",
    reps: 10,
    run: async (e) => {
      sheetTotals(await balanceSheet(e.gw.ctx.db));
    },
  },
  {
    name: "reconcile (every chain, one run)",
    group: "background jobs",
    reps: 3,
    warmup: 1,
    run: async (e) => {
      for (const a of e.gw.ctx.chains.values()) await reconcileChain(e.gw.ctx, a);
    },
  },
  {
    name: "alerts (one evaluation)",
    group: "background jobs",
    reps: 10,
    run: async (e) => {
      await e.gw.gateway.runtime.ops.alerts.tick();
    },
  },
  {
    // The large database holds two days of delivered callbacks past keep_delivered: the first
    // runs delete, later ones find nothing. Per run, slices included.
    name: "prune delivered callbacks (one run)",
    group: "background jobs",
    reps: 5,
    warmup: 0,
    run: async (e) => {
      await pruneDeliveredCallbacks(e.gw.ctx);
    },
  },
  // The jobs the scheduler runs every second, one probe each.
  { name: "expire-payins (one run)", group: "background jobs", reps: 10, run: async (e) => void await expireDueOrders(e.gw.ctx) },
  {
    name: "payouts (one tick per chain)",
    group: "background jobs",
    reps: 10,
    run: async (e) => {
      for (const code of e.gw.ctx.chains.keys()) await e.gw.gateway.runtime.payouts.tick(code);
    },
  },
  { name: "payout-batches (one run)", group: "background jobs", reps: 10, run: (e) => runBatches(e.gw.ctx, e.gw.gateway.runtime.treasury) },
  { name: "collections (one run)", group: "background jobs", reps: 10, run: (e) => runCollections(e.gw.ctx, e.gw.gateway.runtime.treasury) },
  { name: "prune-nonces (one run)", group: "background jobs", reps: 10, run: async (e) => void (await pruneNonces(e.gw.ctx.db, e.gw.ctx.clock.now())) },
  {
    name: "watchers (one tick per chain)",
    group: "background jobs",
    reps: 10,
    run: async (e) => {
      for (const w of e.gw.gateway.runtime.watchers.values()) await w.tick();
    },
  },
  {
    // What the optimize job runs: the maintenance worker finds the tables whose statistics need
    // gathering (none in a freshly analyzed database) and the gateway writes them.
    name: "optimize (planner statistics)",
    group: "background jobs",
    reps: 3,
    warmup: 1,
    run: async (e) => {
      await e.gw.gateway.runtime.maintenance!.refreshStats();
    },
  },
];
