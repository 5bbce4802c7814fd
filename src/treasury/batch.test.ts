// Batch payouts on the sandbox: rows judged with the API's codes, a preview
// that pays nothing, confirmation through the ordinary payout engine, and a
// re-upload that pays nothing twice.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { listAudit } from "../audit/log";
import { payoutOrders, sandboxTransfers } from "../db/schema";
import { tableRows } from "../testing/engine-rows";
import { BatchFileError, MAX_ROWS, parseBatchCsv } from "./batch-csv";
import { batchLines, batchProgress, batchResultsCsv, batchSummary, confirmBatch, runBatch, uploadBatch } from "./batch";

type Obj = Record<string, any>;
const DEMO = { actor: "demo", role: "merchant", ip: "127.0.0.1" };
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 }, BSC: { confirmations: 2 } } } });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw.stop());

const enc = (s: string) => new TextEncoder().encode(s);
const HEADER = "chainCode,tokenSymbol,toAddress,amount,merchantOrderNo,fromAddress,deleteSourceAfterSuccess";
// Read on the test's engine (SG_TEST_DB): mined sandbox transfers from an address, a merchant's payout orders.
const sent = async (from: string) => (await tableRows(gw.ctx.db, sandboxTransfers, { fromAddress: from })).filter((t) => t.blockNumber !== null).length;
const orders = async (merchantId: number) => (await tableRows(gw.ctx.db, payoutOrders, { merchantId })).length;

describe("the file", () => {
  test.each([
    ["empty", "", /empty/],
    ["missing column", "chainCode,tokenSymbol,toAddress,amount\nTRON,USDT,x,1\n", /missing column\(s\): merchantOrderNo/],
    ["unknown column", "chainCode,tokenSymbol,toAddress,amount,merchantOrderNo,memo\n", /unknown column\(s\): memo/],
    ["no rows", "chainCode,tokenSymbol,toAddress,amount,merchantOrderNo\n", /no payout rows/],
    ["too many rows", "chainCode,tokenSymbol,toAddress,amount,merchantOrderNo\n" + "TRON,USDT,x,1,a\n".repeat(MAX_ROWS + 1), /at most 5000/],
  ])("%s is refused as a whole", (_n, text, msg) => {
    expect(() => parseBatchCsv(enc(text))).toThrow(msg);
  });
  test("not UTF-8 is refused", () => {
    expect(() => parseBatchCsv(new Uint8Array([0x61, 0xff, 0xfe, 0x0a]))).toThrow(BatchFileError);
  });
  test("a BOM, CRLF, quoted cells and blank lines are fine", () => {
    const rows = parseBatchCsv(enc('\uFEFFchainCode,tokenSymbol,toAddress,amount,merchantOrderNo\r\nTRON,USDT,"TX1",1.5,"a,b"\r\n\r\n'));
    expect(rows).toEqual([{ rowNo: 1, fields: { chainCode: "TRON", tokenSymbol: "USDT", toAddress: "TX1", amount: "1.5", merchantOrderNo: "a,b" } }]);
  });
});

describe("a batch", () => {
  test("rows are judged with the API's codes; confirm pays the valid ones once; a re-upload pays nothing", async () => {
    const m = await gw.newMerchant("batcher");
    const fund = async (key: string, amount: string) => {
      const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: key } });
      await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount });
      return b.address as string;
    };
    const a1 = await fund("t1", "100");
    const a2 = await fund("t2", "50");
    await sb.mine("TRON", 2);

    const to = () => randomAddress("TRON");
    const lines = [
      `TRON,USDT,${to()},10,B-1,${a1},`,
      `TRON,USDT,${to()},20.5,B-2,,`,
      `TRON,USDT,not-an-address,1,B-3,,`, // 10001 toAddress
      `TRON,USDT,${a2},1,B-4,,`, // 54003 own address
      `TRON,USDT,${to()},1.1234567,B-5,,`, // 10001 amount
      `TRON,USDT,${to()},10,B-1,${a1},`, // duplicate merchantOrderNo
      `TRON,USDT,${to()},500,B-7,,`, // 53003 no source holds it
      `TRON,USDT,${to()},40,B-8,${a2},false`,
      `BSC,USDT,${randomAddress("BSC")},1,B-9,,`, // 53003: nothing on BSC
    ];
    const file = enc(`${HEADER}\n${lines.join("\n")}\n`);
    const b = await uploadBatch(gw.ctx, m.id, { name: "june.csv", bytes: file }, DEMO);
    expect(b).toMatchObject({ status: "preview", rowCount: 9, validCount: 3, errorCount: 6 });
    const judged = (await batchLines(gw.ctx.db, b.id)).map((l) => [l.rowNo, l.state, l.errorCode]);
    expect(judged).toEqual([
      [1, "valid", null],
      [2, "valid", null],
      [3, "invalid", 10001],
      [4, "invalid", 54003],
      [5, "invalid", 10001],
      [6, "invalid", 10001],
      [7, "invalid", 53003],
      [8, "valid", null],
      [9, "invalid", 53003],
    ]);
    expect((await batchLines(gw.ctx.db, b.id))[5]!.errorMessage).toMatch(/more than once/);
    expect((await batchLines(gw.ctx.db, b.id))[2]!.errorMessage).toMatch(/^toAddress: /);
    const sum = batchSummary(b);
    expect(sum.perToken).toEqual([{ chain: "TRON", token: "USDT", count: 3, amount: "70.50" }]);
    // The source picked for a row without fromAddress is shown (the one with the most available).
    expect(sum.perSource).toEqual([
      { chain: "TRON", token: "USDT", fromAddress: a1, count: 2, amount: "30.50" },
      { chain: "TRON", token: "USDT", fromAddress: a2, count: 1, amount: "40.00" },
    ]);
    expect(sum.gas).toEqual([expect.objectContaining({ chain: "TRON", native: "TRX", transfers: 3 })]);
    // The preview wrote no order, no callback, reserved nothing.
    expect(await orders(m.id)).toBe(0);

    await confirmBatch({ db: gw.ctx.db, now: () => Date.now() }, m.id, b.id, DEMO);
    expect((await listAudit(gw.ctx.db, { actor: "demo" })).entries.find((e) => e.target === `merchant:${m.uid}:batch:${b.id}`)).toMatchObject({
      action: "batch_payout.confirm",
      ip: "127.0.0.1",
      after: { file: "june.csv", rows: 9, valid: 3, totals: [{ chain: "TRON", token: "USDT", count: 3, amount: "70.50" }] },
    });
    await runBatch(gw.ctx, b.id, gw.gateway.runtime.treasury);
    await sb.mine("TRON", 3);
    const p = await batchProgress(gw.ctx.db, m.id, b.id);
    expect(p).toMatchObject({ status: "done", invalid: 6, rejected: 0, waiting: 0, orders: { confirmed: 3, submitted: 0, broadcasted: 0, failed: 0 }, finished: true });
    expect((await sent(a1)) + (await sent(a2))).toBe(3);

    const csv = (await batchResultsCsv(gw.ctx.db, m.id, b.id)).trim().split("\n");
    expect(csv[0]).toBe("row,chainCode,tokenSymbol,toAddress,amount,merchantOrderNo,fromAddress,result,errorCode,error,orderNo,status,txHash");
    expect(csv).toHaveLength(10);
    expect(csv[1]).toMatch(/^1,TRON,USDT,\w+,10,B-1,\w+,created,,,PO\d+,confirmed,[0-9a-f]{64}$/);
    expect(csv[4]).toMatch(/^4,.*,invalid,54003,/);

    // The same file again: every paid row is an existing order, nothing new is paid.
    const again = await uploadBatch(gw.ctx, m.id, { name: "june.csv", bytes: file }, DEMO);
    expect(again).toMatchObject({ validCount: 0 });
    expect((await batchLines(gw.ctx.db, again.id)).filter((l) => l.state === "existing").map((l) => l.rowNo)).toEqual([1, 2, 8]);
    await confirmBatch({ db: gw.ctx.db, now: () => Date.now() }, m.id, again.id, DEMO);
    await runBatch(gw.ctx, again.id, gw.gateway.runtime.treasury);
    await sb.mine("TRON", 3);
    expect(await orders(m.id)).toBe(3);
    expect((await sent(a1)) + (await sent(a2))).toBe(3);
    expect(await batchProgress(gw.ctx.db, m.id, again.id)).toMatchObject({ status: "done", existing: 3, orders: { confirmed: 3 } });
  });

  test("earlier rows count for later ones across chunks; deleteSourceAfterSuccess retires a source for the rest of the file", async () => {
    const m = await gw.newMerchant("carry");
    const fund = async (key: string, amount: string) => {
      const b = await m.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: key } });
      await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount });
      return b.address as string;
    };
    const a = await fund("a", "150");
    const b = await fund("b", "20");
    const c = await fund("c", "20");
    await sb.mine("TRON", 2);
    const lines = [
      `TRON,USDT,${randomAddress("TRON")},5,R-1,${b},`,
      `TRON,USDT,${randomAddress("TRON")},5,R-2,${b},true`, // 53002: b has another unfinished payout
      `TRON,USDT,${randomAddress("TRON")},10,R-3,${c},TRUE`,
      `TRON,USDT,${randomAddress("TRON")},1,R-4,${c},`, // 53002: c is being retired by R-3
      `TRON,USDT,${randomAddress("TRON")},1,R-5,${c},yes`, // 10001: not a boolean
      // 160 rows of 1 from a (150 available): the last 10 are short, across the preview's chunks.
      ...Array.from({ length: 160 }, (_, i) => `TRON,USDT,${randomAddress("TRON")},1,S-${i + 1},${a},false`),
    ];
    const up = await uploadBatch(gw.ctx, m.id, { name: "carry.csv", bytes: enc(`${HEADER}\n${lines.join("\n")}\n`) }, DEMO);
    const judged = await batchLines(gw.ctx.db, up.id);
    expect(judged.slice(0, 5).map((l) => [l.rowNo, l.state, l.errorCode])).toEqual([
      [1, "valid", null],
      [2, "invalid", 53002],
      [3, "valid", null],
      [4, "invalid", 53002],
      [5, "invalid", 10001],
    ]);
    const fromA = judged.slice(5);
    expect(fromA.filter((l) => l.state === "valid")).toHaveLength(150);
    expect(fromA.slice(150).map((l) => l.errorCode)).toEqual(Array(10).fill(53005));
    expect(batchSummary(up).perSource).toEqual(
      expect.arrayContaining([{ chain: "TRON", token: "USDT", fromAddress: a, count: 150, amount: "150.00" }]),
    );
    expect(await orders(m.id)).toBe(0);
  });

  test("another merchant's batch is not found", async () => {
    const m = await gw.newMerchant("other");
    const b = await uploadBatch(gw.ctx, gw.merchant.id, { name: "x.csv", bytes: enc(`${HEADER}\nTRON,USDT,x,1,Z-1,,\n`) }, DEMO);
    await expect((async () => await batchProgress(gw.ctx.db, m.id, b.id))()).rejects.toThrow(/no batch/);
  });
});
