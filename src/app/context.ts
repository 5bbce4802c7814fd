// Everything a running gateway needs, built once and passed down as plain
// values (services never see the HTTP context).
import { type Db, onLeakedTransaction, openDb } from "../db/client";
import { onHookError } from "../db/after-commit";
import { migrate } from "../db/migrate";
import { prepareDatabaseFile, secureDatabaseFiles } from "../db/file-modes";
import type { LoadedConfig } from "../config/load";
import type { Config } from "../config/schema";
import { Cipher } from "../secrets/cipher";
import { loadMasterKey } from "../secrets/master-key";
import { loadSeed } from "../wallet/seed";
import { requireDatabase } from "./data-folder";
import { checkMasterKey } from "../secrets/key-check";
import { checkGeneration, type GenerationCheck } from "../restore/generation";
import { type Clock, systemClock } from "../lib/clock";
import { createLogger, type Logger, registerSecret } from "../lib/logger";
import { parseDuration } from "../lib/duration";
import type { ChainAdapter, ChainCode } from "../chains/types";
import type { RefundPayins } from "../payout/refunds";
import { refundPayins } from "../payin/refundable";
import { pgSide } from "../db/engine";

/** Opening a PostgreSQL gateway's database (loaded only for one: a SQLite gateway loads no PostgreSQL module). */
const postgres = pgSide<typeof import("./postgres")>(() => require("./postgres"));

export interface AppContext {
  config: Config;
  configSource: string;
  publicUrl: string;
  db: Db;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  /** Enabled chains only. */
  chains: Map<ChainCode, ChainAdapter>;
  seed: Uint8Array;
  /** The pay-in side a refund reads (payout/refunds.ts's port, filled from payin/refundable.ts). */
  refundPayins: RefundPayins;
  ms: {
    timestampTolerance: number;
    rotationGrace: number;
    expireAfter: number;
    lateWindow: number;
    callbackTimeout: number;
    retryDelays: number[];
  };
}

export interface ContextOptions {
  loaded: LoadedConfig;
  clock?: Clock;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  /** Builds the chain adapters (chains/registry.ts); injected so tests can swap nodes. */
  makeChains?: (ctx: Omit<AppContext, "chains">) => Map<ChainCode, ChainAdapter>;
}

/** Opens the database (which must exist: `stablegate init` makes it), applies migrations and loads the secrets. */
export async function openStore(loaded: LoadedConfig, env = process.env): Promise<{ db: Db; cipher: Cipher; generation: GenerationCheck }> {
  if (loaded.config.database.url) return await postgres.openPgStore(loaded, env);
  requireDatabase(loaded);
  const key = loadMasterKey(loaded.config.database.path, env);
  registerSecret(key.toString("hex"));
  prepareDatabaseFile(loaded.config.database.path);
  const db = openDb(loaded.config.database.path);
  await migrate(db);
  secureDatabaseFiles(loaded.config.database.path);
  const cipher = new Cipher(key);
  await checkMasterKey(db, cipher, Date.now());
  // A database older than its data folder's marker (restored) enters reconcile here, before any job runs.
  const generation = await checkGeneration(db, loaded.config.database.path, { indexGap: loaded.config.restore.index_gap, now: Date.now() });
  return { db, cipher, generation };
}

export async function createContext(opts: ContextOptions): Promise<AppContext> {
  const { config } = opts.loaded;
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger({ level: config.log.level, now: () => clock.now() });
  // A failing after-commit hook is reported through the logger (masked like every line); its write has committed.
  onHookError((e) => logger.error("after-commit hook failed", { error: String((e as Error)?.stack ?? e) }));
  onLeakedTransaction((message) => logger.error(message));
  const { db, cipher, generation } = await openStore(opts.loaded, opts.env);
  if (generation.restored) {
    logger.warn("this database is older than its data folder's generation marker (restored): reconcile mode", {
      indexGap: config.restore.index_gap,
      generation: generation.generation,
    });
  }
  const { seed } = await loadSeed(db, cipher);
  const base = {
    config,
    configSource: opts.loaded.source,
    publicUrl: opts.loaded.publicUrl,
    db,
    cipher,
    clock,
    logger,
    seed,
    refundPayins,
    ms: {
      timestampTolerance: parseDuration(config.auth.timestamp_tolerance),
      rotationGrace: parseDuration(config.auth.rotation_grace),
      expireAfter: parseDuration(config.payin.expire_after),
      lateWindow: parseDuration(config.payin.late_window),
      callbackTimeout: parseDuration(config.callbacks.timeout),
      retryDelays: config.callbacks.retry_delays.map(parseDuration),
    },
  };
  const chains = opts.makeChains ? opts.makeChains(base) : new Map<ChainCode, ChainAdapter>();
  return { ...base, chains };
}
