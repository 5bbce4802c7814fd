// Batch payouts (DESIGN 13). Upload: every row is judged by the payout API's
// own code path (schema, then createPayout) in rolled-back savepoints; earlier
// valid rows count for later ones (balances, limits, fees, duplicates) exactly
// as if they had been sent one by one. Confirm: a job turns each valid row into
// an ordinary payout order (createPayout, idempotent by merchantOrderNo) and
// records the order on the row in the same transaction; the payout engine
// does the rest. A crash resumes at the first row without an order.
import { Type as T } from "@sinclair/typebox";
import { createHash } from "node:crypto";
import { type Db, rolledBack, savepoint, type Tx, writeTx } from "../db/client";
import { recordAudit, type Actor } from "../audit/log";
import { AppError } from "../errors";
import { parse } from "../lib/validate";
import { crashPoint } from "../lib/crash";
import { newId, newOrderNo } from "../lib/ids";
import { fromBaseUnits } from "../lib/money";
import { currentKey, findMerchantById } from "../merchants/service";
import { CreatePayoutBody } from "../payout/schemas";
import { createPayout, type PayoutCtx } from "../payout/service";
import { insertStandIn, updateStandIn } from "../payout/store";
import type { ChainAdapter, ChainCode, TokenSymbol } from "../chains/types";
import { parseBatchCsv, rowToInput, toCsv, type CsvRow } from "./batch-csv";
import { estimateGas, type GasEstimate } from "./gas-estimate";
import type { TreasuryJob, TreasuryRunner } from "./runner";
import { batchProgressOf, type TreasuryProgress } from "./progress";

import {
  type BatchLine,
  batchById,
  batchLines,
  batchLinesWithOrders,
  type BatchRow,
  finishRunningBatch,
  insertBatch,
  insertBatchLine,
  patchBatch,
  patchBatchLine,
  runningBatchIds,
} from "./store";

// The treasury's storage is store.ts; these are its reads the back office uses.
export { batchLines, listBatches, type BatchLine, type BatchRow } from "./store";

/** The payout API's body without notifyUrl: batch callbacks go to the merchant's default callback URL. */
export const BatchRowBody = T.Omit(CreatePayoutBody, ["notifyUrl"]);

export interface BatchSummary {
  perToken: Array<{ chain: string; token: string; count: number; amount: string }>;
  perSource: Array<{ chain: string; token: string; fromAddress: string; count: number; amount: string }>;
  gas: GasEstimate[];
  /** Rows whose merchantOrderNo already has an order (an earlier upload): nothing new is paid for them. */
  existing: number;
}

export class BatchNotFound extends Error {
  constructor(id: string) {
    super(`no batch ${id}`);
  }
}

/** A judged row: why it is invalid, or the order it would create / already has. */
interface Judged {
  row: CsvRow;
  state: "invalid" | "valid" | "existing";
  error?: { code: number; message: string };
  merchantOrderNo: string | null;
  /** valid: the order the dry run created (its source and amount); existing: the order. */
  order?: { id: number; chain: string; token: string; decimals: number; fromAddress: string; toAddress: string; amount: string; orderNo: string };
}

/** "10001 toAddress: not a valid TRON address" style text for a row. */
export function describeError(e: AppError): string {
  const fields = (e.data?.fields ?? null) as Record<string, string> | null;
  if (fields) return Object.entries(fields).map(([k, v]) => `${k}: ${v}`).join("; ");
  const extra = Object.entries(e.data ?? {})
    .filter(([, v]) => typeof v === "string" || typeof v === "number")
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
  return extra ? `${e.message} (${extra})` : e.message;
}

/** What earlier rows of the file reserve on one source: carried from chunk to chunk of the dry run. */
interface Reservation {
  addressId: string;
  address: string;
  chain: string;
  token: string;
  decimals: number;
  amount: bigint;
  fee: bigint;
  retiring: boolean;
  /** Row id of its stand-in order inside the current chunk's transaction. */
  rowId?: number;
}

/** Longer than any API merchantOrderNo (128), so it can never meet a real one. */
const RESERVATION_MARK = "batch-preview-reservation:".padEnd(129, "~");
const CHUNK = 100;

/**
 * Judges every row through the payout API's own path (schema, then
 * createPayout), each in a savepoint that is rolled back. Earlier valid rows
 * count for later ones (balances, limits, fees, retiring sources) through one
 * stand-in unfinished order per source and token holding their sum: exactly
 * what the real orders would add up to, at a cost that does not grow with the
 * file. Chunks run in their own rolled-back transactions and yield the event
 * loop between them, so a 5,000-row preview never stalls the API.
 */
async function judge(ctx: PayoutCtx, merchantId: number, apiKeyId: string, rows: CsvRow[]): Promise<Judged[]> {
  const out: Judged[] = [];
  const reserved = new Map<string, Reservation>();
  const seen = new Set<string>();
  const dup = (row: CsvRow, mon: string | null): Judged => ({ row, state: "invalid", merchantOrderNo: mon, error: { code: 10001, message: "merchantOrderNo: appears more than once in this file" } });

  const standIn = async (r: Reservation) => {
    const now = ctx.clock.now();
    const set = { amount: r.amount.toString(), fee: r.fee.toString(), deleteSourceAfterSuccess: r.retiring, updatedAt: now };
    if (r.rowId !== undefined) {
      await updateStandIn(ctx.db, r.rowId, set);
      return;
    }
    r.rowId = await insertStandIn(ctx.db, {
      ...set,
      orderNo: newOrderNo("PO", now),
      merchantId,
      merchantOrderNo: `${RESERVATION_MARK}${r.addressId}:${r.token}`,
      chain: r.chain,
      token: r.token,
      decimals: r.decimals,
      fromAddressId: r.addressId,
      fromAddress: r.address,
      toAddress: r.address,
      notifyUrl: null,
      apiKeyId,
      status: "submitted",
      createdAt: now,
      submittedAt: now,
    });
  };

  for (let at = 0; at < rows.length; at += CHUNK) {
    await rolledBack(ctx.db, async () => {
      for (const r of reserved.values()) {
        r.rowId = undefined;
        await standIn(r);
      }
      for (const row of rows.slice(at, at + CHUNK)) {
        const mon = row.fields.merchantOrderNo || null;
        if (row.shapeError) {
          out.push({ row, state: "invalid", merchantOrderNo: mon, error: { code: 10001, message: row.shapeError } });
          continue;
        }
        try {
          const input = parse(BatchRowBody, rowToInput(row.fields));
          if (seen.has(input.merchantOrderNo)) {
            out.push(dup(row, mon));
            continue;
          }
          // Judged through the real path, then rolled back: its writes and after-commit effects
          // (transition metrics, callback wake-ups) never happen.
          const r = await rolledBack(ctx.db, async () => await createPayout(ctx, merchantId, apiKeyId, input));
          const o = r.order;
          const order = { id: o.id, chain: o.chain, token: o.token, decimals: o.decimals, fromAddress: o.fromAddress, toAddress: o.toAddress, amount: o.amount, orderNo: o.orderNo };
          seen.add(input.merchantOrderNo);
          if (!r.created) {
            out.push({ row, state: "existing", merchantOrderNo: mon, order });
            continue;
          }
          out.push({ row, state: "valid", merchantOrderNo: mon, order });
          const key = `${o.fromAddressId}|${o.token}`;
          const res = reserved.get(key) ?? { addressId: o.fromAddressId, address: o.fromAddress, chain: o.chain, token: o.token, decimals: o.decimals, amount: 0n, fee: 0n, retiring: false };
          res.amount += BigInt(o.amount);
          res.fee += BigInt(o.fee);
          res.retiring ||= o.deleteSourceAfterSuccess;
          reserved.set(key, res);
          await standIn(res);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          out.push({ row, state: "invalid", merchantOrderNo: mon, error: { code: e.code, message: describeError(e) } });
        }
      }
    });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}

async function summarize(ctx: PayoutCtx, judged: Judged[]): Promise<BatchSummary> {
  const perToken = new Map<string, { chain: string; token: string; decimals: number; count: number; units: bigint }>();
  const perSource = new Map<string, { chain: string; token: string; decimals: number; fromAddress: string; count: number; units: bigint }>();
  const samples = new Map<string, { from: string; to: string; token: TokenSymbol; amount: bigint; count: number }>();
  for (const j of judged) {
    if (j.state !== "valid" || !j.order) continue;
    const o = j.order;
    const t = perToken.get(`${o.chain}|${o.token}`) ?? { chain: o.chain, token: o.token, decimals: o.decimals, count: 0, units: 0n };
    t.count++;
    t.units += BigInt(o.amount);
    perToken.set(`${o.chain}|${o.token}`, t);
    const sk = `${o.chain}|${o.token}|${o.fromAddress}`;
    const s = perSource.get(sk) ?? { chain: o.chain, token: o.token, decimals: o.decimals, fromAddress: o.fromAddress, count: 0, units: 0n };
    s.count++;
    s.units += BigInt(o.amount);
    perSource.set(sk, s);
    const g = samples.get(o.chain) ?? { from: o.fromAddress, to: o.toAddress, token: o.token as TokenSymbol, amount: BigInt(o.amount), count: 0 };
    g.count++;
    samples.set(o.chain, g);
  }
  const gas: GasEstimate[] = [];
  for (const [chain, s] of samples) {
    const adapter = ctx.chains.get(chain as ChainCode) as ChainAdapter;
    gas.push(await estimateGas(adapter, s.count, s));
  }
  const fmt = (u: bigint, d: number) => fromBaseUnits(u, d, 2);
  return {
    perToken: [...perToken.values()].map((t) => ({ chain: t.chain, token: t.token, count: t.count, amount: fmt(t.units, t.decimals) })),
    perSource: [...perSource.values()].map((s) => ({ chain: s.chain, token: s.token, fromAddress: s.fromAddress, count: s.count, amount: fmt(s.units, s.decimals) })),
    gas,
    existing: judged.filter((j) => j.state === "existing").length,
  };
}

/**
 * Uploads a file: parses it (BatchFileError for an unusable file), judges
 * every row and stores the preview. Nothing is paid until confirmBatch.
 */
export async function uploadBatch(ctx: PayoutCtx, merchantId: number, file: { name: string; bytes: Uint8Array }, actor: Actor): Promise<BatchRow> {
  const rows = parseBatchCsv(file.bytes);
  const key = await currentKey(ctx.db, merchantId);
  if (!key) throw new Error("merchant has no current API key");
  const judged = await judge(ctx, merchantId, key.id, rows);
  const summary = await summarize(ctx, judged);
  const now = ctx.clock.now();
  const id = newId("PB");
  return await writeTx(ctx.db, async (tx) => {
    const batch = await insertBatch(tx, {
      id,
      merchantId,
      fileName: file.name.slice(0, 200) || "payouts.csv",
      fileSha256: createHash("sha256").update(file.bytes).digest("hex"),
      status: "preview",
      rowCount: judged.length,
      validCount: judged.filter((j) => j.state === "valid").length,
      errorCount: judged.filter((j) => j.state === "invalid").length,
      summary: JSON.stringify(summary),
      createdBy: actor.actor,
      createdAt: now,
      updatedAt: now,
    });
    for (const j of judged) {
      await insertBatchLine(tx, {
        batchId: id,
        rowNo: j.row.rowNo,
        input: JSON.stringify(j.row.fields),
        merchantOrderNo: j.merchantOrderNo,
        state: j.state,
        errorCode: j.error?.code ?? null,
        errorMessage: j.error?.message ?? null,
        // An existing order is linked (it was there before the dry run); dry-run orders were rolled back.
        payoutOrderId: j.state === "existing" ? j.order!.id : null,
        updatedAt: now,
      });
    }
    return batch;
  });
}

export async function getBatch(db: Db, merchantId: number, id: string): Promise<BatchRow> {
  const b = await batchById(db, id, merchantId);
  if (!b) throw new BatchNotFound(id);
  return b;
}

export function batchSummary(b: BatchRow): BatchSummary {
  return JSON.parse(b.summary) as BatchSummary;
}

/** Confirms a previewed batch (the caller has re-authenticated the user); audited. Confirming twice is harmless. */
export async function confirmBatch(deps: { db: Db; now: () => number }, merchantId: number, id: string, actor: Actor): Promise<BatchRow> {
  return await writeTx(deps.db, async (tx) => {
    const b = await getBatch(tx, merchantId, id);
    if (b.status !== "preview") return b;
    const now = deps.now();
    const next = b.validCount > 0 ? "running" : "done";
    const m = (await findMerchantById(tx, merchantId))!;
    const sum = batchSummary(b);
    await recordAudit(tx, { ...actor, action: "batch_payout.confirm", target: `merchant:${m.uid}:batch:${b.id}`, after: { file: b.fileName, sha256: b.fileSha256, rows: b.rowCount, valid: b.validCount, totals: sum.perToken }, at: now });
    return await patchBatch(tx, id, { status: next, confirmedBy: actor.actor, confirmedAt: now, finishedAt: next === "done" ? now : null, updatedAt: now });
  });
}

export async function discardBatch(deps: { db: Db; now: () => number }, merchantId: number, id: string, actor: Actor): Promise<BatchRow> {
  return await writeTx(deps.db, async (tx) => {
    const b = await getBatch(tx, merchantId, id);
    if (b.status !== "preview") return b;
    const m = (await findMerchantById(tx, merchantId))!;
    await recordAudit(tx, { ...actor, action: "batch_payout.discard", target: `merchant:${m.uid}:batch:${b.id}`, before: { status: b.status }, after: { status: "discarded" }, at: deps.now() });
    return await patchBatch(tx, id, { status: "discarded", updatedAt: deps.now() });
  });
}

export type { BatchRunner } from "./runner";

/** A running batch as the treasury runner drives it: each valid row becomes a payout order. */
function batchJob(batchId: string): TreasuryJob<BatchLine> {
  const setRow = async (tx: Tx, line: BatchLine, patch: Partial<BatchLine>, now: number) =>
    await patchBatchLine(tx, batchId, line.rowNo, { ...patch, updatedAt: now });
  return {
    kind: "batch",
    item: "row",
    id: batchId,
    open: async (db) => {
      const b = await batchById(db, batchId);
      return b && b.status === "running" ? { merchantId: b.merchantId, items: await batchLines(db, batchId, { state: ["valid"] }) } : null;
    },
    no: (line) => line.rowNo,
    input: (line) => parse(BatchRowBody, rowToInput(JSON.parse(line.input) as Record<string, string>)),
    created: async (tx, line, r, now) => await setRow(tx, line, { state: r.created ? "created" : "existing", payoutOrderId: r.orderId, errorCode: null, errorMessage: null }, now),
    refused: async (tx, line, e, now) => await setRow(tx, line, { state: "rejected", errorCode: e.code, errorMessage: describeError(e) }, now),
    finish: async (db, now) => {
      await writeTx(db, async (tx) => await finishRunningBatch(tx, batchId, now));
    },
  };
}

/** Creates the orders of a running batch, row by row; resumable at any point. */
export async function runBatch(ctx: PayoutCtx, batchId: string, treasury: TreasuryRunner): Promise<void> {
  await treasury.run(ctx, batchJob(batchId));
}

/** Scheduled: resumes every running batch (after a confirm, or after a restart). */
export async function runBatches(ctx: PayoutCtx, treasury: TreasuryRunner): Promise<void> {
  for (const id of await runningBatchIds(ctx.db)) await runBatch(ctx, id, treasury);
}

/** A batch's progress (treasury/progress.ts, the one view), with its row count under its old name. */
export type BatchProgress = TreasuryProgress & { rows: number };

export async function batchProgress(db: Db, merchantId: number, id: string): Promise<BatchProgress> {
  await getBatch(db, merchantId, id);
  const p = await batchProgressOf(db, id);
  return { ...p, rows: p.items };
}

export const RESULT_COLUMNS = ["row", "chainCode", "tokenSymbol", "toAddress", "amount", "merchantOrderNo", "fromAddress", "result", "errorCode", "error", "orderNo", "status", "txHash"];

/** The results CSV: every row as uploaded with what became of it. */
export async function batchResultsCsv(db: Db, merchantId: number, id: string): Promise<string> {
  await getBatch(db, merchantId, id);
  const rows = await batchLinesWithOrders(db, id);
  return toCsv(
    RESULT_COLUMNS,
    rows.map(({ line, order }) => {
      const f = JSON.parse(line.input) as Record<string, string>;
      return [
        line.rowNo,
        f.chainCode ?? "",
        f.tokenSymbol ?? "",
        f.toAddress ?? "",
        f.amount ?? "",
        f.merchantOrderNo ?? "",
        order?.fromAddress ?? f.fromAddress ?? "",
        line.state,
        line.errorCode,
        line.errorMessage,
        order?.orderNo ?? null,
        order?.status ?? null,
        order?.txHash ?? null,
      ];
    }),
  );
}
