// The growth bench's database (DESIGN 11 "Growth", issue 23): N pay-in orders with
// what the gateway would have written for them over a year, for 20 merchants:
//
// - merchants, API keys, a back-office operator and shared pool addresses (5 per
//   merchant and chain) through the product's own services (real keys, real addresses);
// - pay-in orders spread evenly over the 365 days before the build, 4 networks
//   (TRON USDT, BSC USDT, BSC USDC, SOL USDC), 30 % at round amounts (10, 20, 50,
//   100, 200, 500: the repeated-amount case), the rest unique; the last 30 minutes
//   still waiting_payment, older ones 63 % completed and 37 % expired;
// - per completed order: its transfer, sandbox transfer, ledger entry (the triggers
//   keep address_balances and sandbox_balances as the gateway would), the events
//   waiting_payment -> detected -> confirming -> completed; per expired order the
//   event waiting_payment -> expired;
// - a callback per status with the product's payload (payinCallbackPayload), 99.5 %
//   delivered with one attempt, 0.5 % failed after three; the last minute's still pending.
//   As a gateway with the default retention holds them ([callbacks] keep_delivered = "30d"):
//   delivered callbacks (and their attempts) of the last 32 days only (two days of backlog
//   for the prune job), failed ones of the whole year. Without retention a year of payloads
//   is ~2.7 KB per order (the issue's 4.1 GiB at 1.5M orders) and would dominate the build;
// - one payout per 50 orders (confirmed: events, callbacks, attempt, ledger entry).
//
// Rows go in with prepared statements in transactions of 20,000 orders, with no journal
// and the secondary indexes dropped during the load (recreated from their own SQL at the
// end: one sort each instead of millions of random inserts); the triggers that keep
// balances stay. The file is only renamed into the cache once complete. The
// result is cached in .bench-cache/ (gitignored) under a key made of the migrations'
// checksums, this file's GENERATOR_VERSION and N: a rerun with the same schema reuses it,
// and one built before newer migrations is migrated forward (they are append-only).
//
//   bun scripts/growth/generate.ts [orders]     builds (or finds) and prints the path
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../../migrations/index";
import { checksum, migrate } from "../../src/db/migrate";
import { openDb, writeTx } from "../../src/db/client";
import { parseConfig } from "../../src/config/load";
import { createContext } from "../../src/app/context";
import { initDataFolder } from "../../src/app/data-folder";
import { makeChains } from "../../src/chains/factory";
import { createMerchant } from "../../src/merchants/service";
import { createUser } from "../../src/backoffice/users";
import { rebuildPayinDaily } from "../../src/backoffice/queries/dashboard";
import { addSharedAddress } from "../../src/wallet/addresses";
import { newEventId, newOrderNo, newTimedToken } from "../../src/lib/ids";
import { payinCallbackPayload, type PayinOrderRow } from "../../src/payin/views";
import { payoutCallbackPayload, type PayoutOrderRow } from "../../src/payout/views";
import { createLogger } from "../../src/lib/logger";
import type { ChainCode } from "../../src/chains/types";

const GENERATOR_VERSION = 2; // 2: the build's tail (indexes, ANALYZE) checkpointed before the WAL is removed
export const GROWTH_MASTER_KEY = "growth-bench-master-key-do-not-use-elsewhere";
export const CACHE_DIR = join(import.meta.dir, "../../.bench-cache");
const DAY = 86_400_000;
const MERCHANTS = 20;
const POOL = 5;
const BATCH = 20_000;
const NETWORKS: Array<{ chain: ChainCode; token: string; decimals: number }> = [
  { chain: "TRON", token: "USDT", decimals: 6 },
  { chain: "BSC", token: "USDT", decimals: 18 },
  { chain: "BSC", token: "USDC", decimals: 18 },
  { chain: "SOL", token: "USDC", decimals: 6 },
];
const KEEP_DELIVERED_MS = 32 * DAY;
const ROUND = [10n, 20n, 50n, 100n, 200n, 500n];

export interface GrowthMerchant {
  id: number;
  uid: string;
  apiKey: string;
}

export interface GrowthMeta {
  orders: number;
  /** GENERATOR_VERSION that built it (absent: 1). */
  generator?: number;
  /** The build's "now": orders span the year before it. */
  end: number;
  builtMs: number;
  merchants: GrowthMerchant[];
  operator: { username: string; password: string };
  /** Counts of what was written, for the bench's header. */
  rows: Record<string, number>;
}

/** The cache key: the migrations with their checksums, the generator, N. */
export function growthKey(orders: number): string {
  const h = createHash("sha256");
  for (const m of migrations) h.update(`${m.name}:${checksum(m.sql)}\n`);
  h.update(`generator:${GENERATOR_VERSION}:${orders}`);
  return h.digest("hex").slice(0, 16);
}

/**
 * Migrations are append-only, so a database built before the newest ones (every migration it
 * recorded in schema_migrations is one of today's, same checksum) is brought forward by
 * migrating it, not rebuilt.
 */
async function upgradeCached(orders: number, path: string, metaPath: string, log: (s: string) => void): Promise<boolean> {
  const current = new Map(migrations.map((m) => [m.name, checksum(m.sql)]));
  const prefix = `growth-${orders}-`;
  for (const f of readdirSync(CACHE_DIR).filter((x) => x.startsWith(prefix) && x.endsWith(".db") && !x.includes(".building"))) {
    const base = join(CACHE_DIR, f.slice(0, -3));
    if (!existsSync(`${base}.json`)) continue;
    const meta = JSON.parse(readFileSync(`${base}.json`, "utf8")) as GrowthMeta;
    if ((meta.generator ?? 1) !== GENERATOR_VERSION) continue;
    const t0 = performance.now();
    const db = openDb(`${base}.db`);
    const applied = db.$client.query<{ name: string; checksum: string }, []>("SELECT name, checksum FROM schema_migrations").all();
    if (!applied.every((r) => current.get(r.name) === r.checksum)) {
      db.$client.close();
      continue;
    }
    const ran = await migrate(db);
    db.$client.run("ANALYZE");
    db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
    db.$client.close();
    renameSync(`${base}.db`, path);
    renameSync(`${base}.json`, metaPath);
    for (const x of [`${base}.db-wal`, `${base}.db-shm`]) rmSync(x, { force: true });
    log(`  brought the cached ${orders.toLocaleString("en")}-order database forward by ${ran} migration(s) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    return true;
  }
  return false;
}

/** The cached database for `orders` pay-ins, built first when missing. */
export async function growthDatabase(orders: number, log: (s: string) => void = console.log): Promise<{ path: string; meta: GrowthMeta }> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const base = join(CACHE_DIR, `growth-${orders}-${growthKey(orders)}`);
  const path = `${base}.db`;
  const metaPath = `${base}.json`;
  if ((existsSync(path) && existsSync(metaPath)) || await upgradeCached(orders, path, metaPath, log)) return { path, meta: JSON.parse(readFileSync(metaPath, "utf8")) };
  // Built in a data folder of its own (init writes a marker naming its one database there).
  const folder = `${base}.building`;
  rmSync(folder, { recursive: true, force: true });
  const building = join(folder, "stablegate.db");
  const t0 = performance.now();
  log(`  building the ${orders.toLocaleString("en")}-order database (cached in .bench-cache/ for reruns) ...`);
  const meta = await build(building, orders, log);
  meta.builtMs = Math.round(performance.now() - t0);
  renameSync(building, path);
  rmSync(folder, { recursive: true, force: true });
  writeFileSync(metaPath, JSON.stringify(meta, null, 1));
  log(`  built in ${(meta.builtMs / 1000).toFixed(1)} s: ${Object.entries(meta.rows).map(([k, v]) => `${v.toLocaleString("en")} ${k}`).join(", ")}`);
  return { path, meta };
}

/** A deterministic pseudo-random stream (the same database for the same N). */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function build(path: string, orders: number, log: (s: string) => void): Promise<GrowthMeta> {
  const end = Date.now();
  const loaded = parseConfig({ database: { path }, log: { level: "error" } }, "growth-bench");
  await initDataFolder(loaded, { STABLEGATE_MASTER_KEY: GROWTH_MASTER_KEY }, end - 367 * DAY);
  const ctx = await createContext({ loaded, env: { STABLEGATE_MASTER_KEY: GROWTH_MASTER_KEY }, logger: createLogger({ level: "error" }), makeChains });
  const c = ctx.db.$client;
  const now = () => end - 366 * DAY;
  const merchants: GrowthMerchant[] = [];
  for (let i = 0; i < MERCHANTS; i++) {
    const { merchant, apiKey } = await createMerchant({ db: ctx.db, cipher: ctx.cipher, now }, { name: `Growth shop ${i + 1}`, defaultCallbackUrl: `https://shop${i + 1}.example/callbacks` });
    merchants.push({ id: merchant.id, uid: merchant.uid, apiKey });
  }
  const operator = { username: "growth-operator", password: "growth-bench-Passw0rd!" };
  await createUser({ db: ctx.db, cipher: ctx.cipher, now }, { username: operator.username, role: "operator", password: operator.password }, { actor: "cli", role: "operator" });
  // pool[merchant][network chain] = addresses
  const pool = new Map<string, Array<{ id: string; address: string }>>();
  for (const m of merchants) {
    for (const chain of new Set(NETWORKS.map((n) => n.chain))) {
      const adapter = ctx.chains.get(chain)!;
      const list = await writeTx(ctx.db, async (tx) => {
        const made = [];
        for (let k = 0; k < POOL; k++) made.push(await addSharedAddress(tx, adapter, ctx.seed, m.id, now()));
        return made;
      });
      pool.set(`${m.id}|${chain}`, list.map((a) => ({ id: a.id, address: a.address })));
    }
  }
  const keyOf = new Map(merchants.map((m) => [m.id, c.query<{ id: string }, [number]>("SELECT id FROM api_keys WHERE merchant_id = ?").get(m.id)!.id]));
  const payer: Record<string, string> = {
    TRON: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
    BSC: "0x8894E0a0c962CB723c1976a4421c95949bE2D4E3",
    SOL: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
  };

  c.run("PRAGMA wal_checkpoint(TRUNCATE)");
  for (const p of ["PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF", "PRAGMA cache_size = -400000"]) c.run(p);
  const LOADED = ["payin_orders", "transfers", "sandbox_transfers", "ledger_entries", "order_events", "callbacks", "callback_attempts", "payout_orders"];
  const indexes = c
    .query<{ name: string; sql: string }, []>(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${LOADED.map((t) => `'${t}'`).join(",")})`)
    .all();
  for (const ix of indexes) c.run(`DROP INDEX ${ix.name}`);
  const ins = {
    order: c.prepare(
      `INSERT INTO payin_orders (id, order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, paid_amount, address_id, address, notify_url,
         api_key_id, status, transfer_id, tx_hash, from_address, confirmations, checkout_token, expire_at, created_at, detected_at, confirmed_at, completed_at, expired_at, updated_at)
       VALUES (?, ?, ?, ?, 'shared', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    transfer: c.prepare(
      `INSERT INTO transfers (id, chain, token, tx_hash, log_index, block_number, block_hash, block_time, from_address, to_address, address_id, amount, status,
         confirmations, payin_order_id, disposition, seen_at, confirmed_at)
       VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, 'confirmed', ?, ?, 'matched', ?, ?)`,
    ),
    sandbox: c.prepare(
      `INSERT INTO sandbox_transfers (chain, token, tx_hash, log_index, block_number, from_address, to_address, amount, created_at) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?)`,
    ),
    ledger: c.prepare(`INSERT INTO ledger_entries (address_id, chain, token, kind, amount, ref_type, ref_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    event: c.prepare(`INSERT INTO order_events (kind, order_no, from_status, to_status, event, at) VALUES (?, ?, ?, ?, ?, ?)`),
    callback: c.prepare(
      `INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, attempts, next_attempt_at, last_error, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    attempt: c.prepare(
      `INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms, http_status, response_body, error) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    payout: c.prepare(
      `INSERT INTO payout_orders (order_no, merchant_id, merchant_order_no, chain, token, decimals, from_address_id, from_address, to_address, amount, fee, delete_source,
         notify_url, api_key_id, status, tx_hash, attempts, created_at, submitted_at, broadcasted_at, confirmed_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '0', 0, ?, ?, 'confirmed', ?, 1, ?, ?, ?, ?, ?)`,
    ),
  };
  const rows: Record<string, number> = { "pay-ins": 0, payouts: 0, transfers: 0, "ledger entries": 0, events: 0, callbacks: 0, attempts: 0 };
  const rand = rng(orders);
  const hex = (n: number) => randomBytes(n).toString("hex");
  const span = 365 * DAY;
  const start = end - span;
  const expireAfter = 30 * 60_000;
  let block = 1_000_000;
  let transferId = 0;

  const callback = (kind: "payin" | "payout", merchantId: number, orderNo: string, status: string, apiKeyId: string, url: string, payload: () => Record<string, unknown>, at: number) => {
    const r = rand();
    const pending = at > end - 60_000;
    const failed = !pending && r < 0.005;
    if (!failed && at < end - KEEP_DELIVERED_MS) return; // pruned by retention
    const id = newEventId(at);
    const body = JSON.stringify({ ...payload(), eventId: id, eventTime: new Date(at).toISOString() });
    const state = pending ? "pending" : failed ? "failed" : "delivered";
    const attempts = pending ? 0 : failed ? 3 : 1;
    ins.callback.run(id, merchantId, kind, orderNo, status, apiKeyId, url, body, state, attempts, at, failed ? "HTTP 500" : null, at, failed ? at + 360_000 : at + 80);
    rows.callbacks++;
    for (let a = 1; a <= attempts; a++) {
      const startedAt = at + (a === 1 ? 0 : a === 2 ? 60_000 : 360_000);
      ins.attempt.run(id, a, startedAt, failed ? 120 : 40 + Math.floor(r * 200), failed ? 500 : 200, failed ? "internal error" : "ok", null);
      rows.attempts++;
    }
  };
  const event = (kind: "payin" | "payout", orderNo: string, from: string | null, to: string, ev: Record<string, unknown>, at: number) => {
    ins.event.run(kind, orderNo, from, to, JSON.stringify(ev), at);
    rows.events++;
  };

  const t0 = performance.now();
  for (let first = 0; first < orders; first += BATCH) {
    c.transaction(() => {
      for (let i = first; i < Math.min(orders, first + BATCH); i++) {
        const at = start + Math.floor(((i + rand()) / orders) * span);
        const m = merchants[Math.floor(rand() * MERCHANTS)]!;
        const net = NETWORKS[i % NETWORKS.length]!;
        const addrs = pool.get(`${m.id}|${net.chain}`)!;
        const addr = addrs[Math.floor(rand() * POOL)]!;
        const one = 10n ** BigInt(net.decimals);
        const recent = at > end - expireAfter;
        // Waiting orders hold their (address, amount) slot: the recent ones get unique amounts.
        const round = !recent && rand() < 0.3;
        const amount = round ? ROUND[Math.floor(rand() * ROUND.length)]! * one : BigInt(1 + Math.floor(rand() * 1000)) * one + BigInt(i % 1_000_000) * (one / 1_000_000n);
        const orderNo = newOrderNo("PI", at);
        const apiKeyId = keyOf.get(m.id)!;
        const notifyUrl = `https://shop.example/cb/${m.uid}`;
        const status = recent ? "waiting_payment" : rand() < 0.63 ? "completed" : "expired";
        const expireAt = at + expireAfter;
        const o: PayinOrderRow = {
          id: i + 1, orderNo, merchantId: m.id, merchantOrderNo: `M${m.id}-${i}`, mode: "shared", bindingId: null, chain: net.chain, token: net.token,
          decimals: net.decimals, amount: amount.toString(), paidAmount: null, addressId: addr.id, address: addr.address, notifyUrl, redirectUrl: null,
          apiKeyId, status: "waiting_payment", transferId: null, txHash: null, fromAddress: null, confirmations: 0, checkoutToken: newTimedToken(at),
          expireAt, createdAt: at, detectedAt: null, confirmedAt: null, completedAt: null, expiredAt: null, updatedAt: at, invoiceId: null, invoiceRate: null, compat: null,
        };
        callback("payin", m.id, orderNo, "waiting_payment", apiKeyId, notifyUrl, () => payinCallbackPayload(o, m.uid, null), at);
        if (status === "completed") {
          const paidAt = at + Math.floor(rand() * (expireAfter - 120_000));
          const doneAt = paidAt + 60_000;
          const txHash = net.chain === "SOL" ? hex(32) : hex(32);
          transferId++;
          block++;
          o.transferId = transferId;
          o.txHash = txHash;
          o.fromAddress = payer[net.chain]!;
          o.paidAmount = o.amount;
          o.detectedAt = paidAt;
          const steps: Array<[string, string, Record<string, unknown>, number, number]> = [
            ["waiting_payment", "detected", { type: "paid", senderDenied: false }, paidAt, 1],
            ["detected", "confirming", { type: "confirmations", count: 2, required: 19 }, paidAt + 6_000, 2],
            ["confirming", "completed", { type: "confirmations", count: 19, required: 19 }, doneAt, 19],
          ];
          for (const [from, to, ev, t, conf] of steps) {
            o.status = to;
            o.confirmations = conf;
            if (to === "completed") o.confirmedAt = o.completedAt = t;
            o.updatedAt = t;
            event("payin", orderNo, from, to, ev, t);
            callback("payin", m.id, orderNo, to, apiKeyId, notifyUrl, () => payinCallbackPayload(o, m.uid, null), t);
          }
          ins.transfer.run(transferId, net.chain, net.token, txHash, block, hex(32), paidAt, o.fromAddress, addr.address, addr.id, o.amount, 19, o.id, paidAt, doneAt);
          ins.sandbox.run(net.chain, net.token, txHash, block, o.fromAddress, addr.address, o.amount, paidAt);
          ins.ledger.run(addr.id, net.chain, net.token, "deposit", o.amount, "transfer", String(transferId), doneAt);
          rows.transfers++;
          rows["ledger entries"]++;
        } else if (status === "expired") {
          o.status = "expired";
          o.expiredAt = o.updatedAt = expireAt + 500;
          event("payin", orderNo, "waiting_payment", "expired", { type: "expire" }, o.expiredAt);
          callback("payin", m.id, orderNo, "expired", apiKeyId, notifyUrl, () => payinCallbackPayload(o, m.uid, null), o.expiredAt);
        }
        ins.order.run(
          o.id, o.orderNo, o.merchantId, o.merchantOrderNo, o.chain, o.token, o.decimals, o.amount, o.paidAmount, o.addressId, o.address, o.notifyUrl, o.apiKeyId,
          o.status, o.transferId, o.txHash, o.fromAddress, o.confirmations, o.checkoutToken, o.expireAt, o.createdAt, o.detectedAt, o.confirmedAt, o.completedAt,
          o.expiredAt, o.updatedAt,
        );
        rows["pay-ins"]++;

        // A payout every 50 orders: a tenth of a unit from an address this merchant was paid on (deposits far exceed it).
        if (i % 50 === 49 && !recent) {
          const pat = at + 1000;
          const poNo = newOrderNo("PO", pat);
          const amt = (one / 10n).toString();
          const txh = hex(32);
          const po = {
            id: 0, orderNo: poNo, merchantId: m.id, merchantOrderNo: `W${m.id}-${i}`, chain: net.chain, token: net.token, decimals: net.decimals,
            fromAddressId: addr.id, fromAddress: addr.address, toAddress: payer[net.chain]!, amount: amt, fee: "0", deleteSourceAfterSuccess: false,
            notifyUrl, apiKeyId, status: "submitted", failedStage: null, lastError: null, remark: null, txHash: txh, signedTx: null, signedMeta: null,
            attempts: 1, retryAt: null, createdAt: pat, submittedAt: pat, broadcastedAt: null, confirmedAt: null, failedAt: null, updatedAt: pat,
          } as PayoutOrderRow;
          ins.payout.run(poNo, m.id, po.merchantOrderNo, net.chain, net.token, net.decimals, addr.id, addr.address, po.toAddress, amt, notifyUrl, apiKeyId, txh, pat, pat, pat + 2000, pat + 60_000, pat + 60_000);
          callback("payout", m.id, poNo, "submitted", apiKeyId, notifyUrl, () => payoutCallbackPayload(po, m.uid), pat);
          for (const [from, to, t] of [["submitted", "broadcasted", pat + 2000], ["broadcasted", "confirmed", pat + 60_000]] as const) {
            po.status = to;
            event("payout", poNo, from, to, { type: to === "broadcasted" ? "broadcast" : "confirmed" }, t);
            callback("payout", m.id, poNo, to, apiKeyId, notifyUrl, () => payoutCallbackPayload(po, m.uid), t);
          }
          ins.sandbox.run(net.chain, net.token, txh, ++block, addr.address, po.toAddress, amt, pat + 2000);
          ins.ledger.run(addr.id, net.chain, net.token, "payout", `-${amt}`, "payout_order", poNo, pat + 60_000);
          rows.payouts++;
          rows["ledger entries"]++;
        }
      }
    }).immediate();
    if (first > 0 && first % (BATCH * 10) === 0) {
      const secs = (performance.now() - t0) / 1000;
      log(`    ${first.toLocaleString("en")} orders in ${secs.toFixed(0)} s`);
    }
  }
  // The sandbox chains' heights cover the generated blocks (their scan cursors start past them).
  c.run("UPDATE sandbox_chains SET height = max(height, ?)", [block]);
  const ti = performance.now();
  for (const ix of indexes) c.run(ix.sql);
  const have = new Set(c.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index'").all().map((r) => r.name));
  const missing = indexes.filter((ix) => !have.has(ix.name)).map((ix) => ix.name);
  if (missing.length) throw new Error(`indexes not rebuilt: ${missing.join(", ")}`);
  log(`    ${orders.toLocaleString("en")} orders loaded in ${((ti - t0) / 1000).toFixed(0)} s, indexes rebuilt in ${((performance.now() - ti) / 1000).toFixed(0)} s`);
  // Settled orders were inserted as such (the gateway settles by UPDATE, which its trigger follows).
  await rebuildPayinDaily(ctx.db);
  c.run("ANALYZE");
  // Everything into the main file before the WAL is removed below: the switch to journal_mode
  // OFF does not take while the database is in WAL mode with another connection open, and the
  // tail of the build (the last indexes rebuilt, ANALYZE) was then lost with the deleted WAL.
  const cp = c.query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get();
  if (cp && (cp.busy !== 0 || cp.log !== cp.checkpointed)) throw new Error(`checkpoint incomplete: ${JSON.stringify(cp)}`);
  c.run("PRAGMA journal_mode = WAL");
  c.close();
  for (const f of [`${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  return { orders, generator: GENERATOR_VERSION, end, builtMs: 0, merchants, operator, rows };
}

if (import.meta.main) {
  const n = Number(process.argv[2] ?? 2_000_000);
  const { path } = await growthDatabase(n);
  console.log(path);
}
