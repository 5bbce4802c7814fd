// Builds a real gateway on a temp SQLite file and a real HTTP port for tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../config/load";
import { createContext, type AppContext } from "../app/context";
import { databasePresent, initDataFolder } from "../app/data-folder";
import { startGateway, type RunningGateway } from "../app/server";
import { createMerchant } from "../merchants/service";
import { ApiError, StablegateClient } from "../sdk/client";
import type { Clock } from "../lib/clock";
import { createLogger, type Level, type Logger } from "../lib/logger";
import { makeChains } from "../chains/factory";
import { offlineLookup, useDefaultLookup } from "../callbacks/target";
import { closeDb } from "../db/client";
import { initPostgres } from "../app/postgres";
import { TEST_ENGINE } from "./engines";
import { holdEpoch } from "../cluster/fence";
import { createTestDatabase } from "./postgres";

export interface TestGateway {
  ctx: AppContext;
  url: string;
  dir: string;
  gateway: RunningGateway;
  /** Log lines the gateway wrote (already masked). */
  logs: string[];
  merchant: { uid: string; apiKey: string; id: number };
  client: StablegateClient;
  newMerchant(name?: string): Promise<{ uid: string; apiKey: string; id: number; client: StablegateClient }>;
  stop(): Promise<void>;
}

type Raw = Record<string, unknown>;

function deepMerge(a: Raw, b: Raw): Raw {
  const out: Raw = { ...a };
  for (const [k, v] of Object.entries(b)) {
    out[k] = v && typeof v === "object" && !Array.isArray(v) && typeof a[k] === "object" ? deepMerge(a[k] as Raw, v as Raw) : v;
  }
  return out;
}

export interface TestGatewayOptions {
  config?: Raw;
  clock?: Clock;
  jobs?: boolean;
  env?: NodeJS.ProcessEnv;
  /** The engine (default: SG_TEST_DB, src/testing/engines.ts): "pg" runs on a database of its own on the test run's PostgreSQL (src/testing/postgres.ts). */
  engine?: "sqlite" | "pg";
  /**
   * The lowest level kept in `logs` (default debug: every line, for tests to read). The benches
   * give the level their config has: a line per callback attempt kept in memory is garbage and
   * CPU that a gateway at `warn` never spends.
   */
  logLevel?: Level;
}

export async function startTestGateway(opts: TestGatewayOptions = {}): Promise<TestGateway> {
  // Callbacks to names other than localhost fail instead of resolving through real DNS.
  useDefaultLookup(offlineLookup);
  const dir = mkdtempSync(join(tmpdir(), "stablegate-test-"));
  const raw = deepMerge(
    {
      server: { host: "127.0.0.1", port: 0 },
      database: { path: join(dir, "stablegate.db") },
      callbacks: { allow_private_targets: true, retry_delays: ["1s", "2s"], timeout: "2s" },
      chains: { TRON: { block_time: "0s" }, BSC: { block_time: "0s" }, SOL: { block_time: "0s" } },
    },
    opts.config ?? {},
  );
  // On PostgreSQL a database of its own, dropped by stop(); a test that restarts a gateway on its
  // database gives its url (config.database.url, from createTestDatabase) and drops it itself.
  const onPg = (opts.engine ?? TEST_ENGINE) === "pg";
  const givenUrl = (raw.database as Raw).url as string | undefined;
  const pgDb = onPg && !givenUrl ? await createTestDatabase({ empty: true }) : null;
  if (pgDb) (raw.database as Raw).url = pgDb.url;
  const loaded = parseConfig(raw, "test");
  const logs: string[] = [];
  // SG_TEST_LOG=1 also prints the gateway's log lines (a 500's cause) to stderr.
  const echo = !!process.env.SG_TEST_LOG;
  const logger: Logger = createLogger({ level: opts.logLevel ?? "debug", sink: (l) => (logs.push(l), echo && console.error(l)) });
  const env = { ...opts.env, STABLEGATE_MASTER_KEY: opts.env?.STABLEGATE_MASTER_KEY ?? "test-master-key-" + dir };
  // The data folder, as `stablegate init` makes it (no other path creates one); a test that
  // restarts a gateway on its database (config.database.path) reopens it.
  if (onPg) await initPostgres(loaded, env, opts.clock?.now()).catch((e: unknown) => {
    if (!givenUrl || !/already has a wallet seed/.test(String((e as Error)?.message))) throw e; // a restart: initialised before
  });
  else if (!databasePresent(loaded.config.database.path)) await initDataFolder(loaded, env, opts.clock?.now());
  const ctx = await createContext({ loaded, clock: opts.clock, logger, env, makeChains });
  const gateway = await startGateway(ctx, { jobs: opts.jobs });
  // On PostgreSQL the leader's work starts the watchers at the head (app/server.ts); with the jobs
  // off no leader runs, so their cursors start here, as startGateway starts them on SQLite.
  if (onPg && opts.jobs === false) for (const w of gateway.runtime.watchers.values()) await w.init();
  // With the jobs off the test plays the one gateway's leader: its elector takes the lock and the
  // fence holds its epoch (what serve's leader work does on gained/lost), so a payout this gateway
  // signs is stored under the current epoch (cluster/fence.ts); no leader job runs.
  if (onPg && opts.jobs === false) await holdLeadership(ctx, gateway);
  // Port 0 picks a free port: the public URL follows the real one.
  const url = gateway.url;
  if (!ctx.config.server.public_url) ctx.publicUrl = url;
  const newMerchant = async (name = "shop") => {
    const { merchant, apiKey } = await createMerchant({ db: ctx.db, cipher: ctx.cipher, now: () => ctx.clock.now() }, { name });
    const client = new StablegateClient({ baseUrl: url, merchantUid: merchant.uid, apiKey, now: () => ctx.clock.now() });
    return { uid: merchant.uid, apiKey, id: merchant.id, client };
  };
  const m = await newMerchant("Test Shop");
  return {
    ctx,
    url,
    dir,
    gateway,
    logs,
    merchant: { uid: m.uid, apiKey: m.apiKey, id: m.id },
    client: m.client,
    newMerchant,
    async stop() {
      await gateway.stop();
      await closeDb(ctx.db);
      await pgDb?.drop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts the gateway's elector (jobs off) and keeps the fence's epoch with it; stop() stops it (app/server.ts). */
async function holdLeadership(ctx: AppContext, gateway: RunningGateway): Promise<void> {
  const elector = gateway.runtime.clusterParts?.elector;
  if (!elector) return;
  elector.on("gained", (epoch) => holdEpoch(ctx.db, epoch));
  elector.on("lost", () => holdEpoch(ctx.db, null));
  await elector.start();
}

/** The merchant API's refusal of a call that must fail (its code and status are the test's to check). */
export async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an error");
}
