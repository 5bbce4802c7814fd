// CSV export: RFC 4180 cells, formula-injection guard, one page in memory at a
// time, and 10,000 orders exported over HTTP that a CSV parser reads back as
// exactly the rows of the filtered list.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { eq } from "drizzle-orm";
import { payinOrders } from "../db/schema";
import { listAudit } from "../audit/log";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { seedRows } from "../testing/seed";
import { csvCell, csvStream } from "./queries/csv";
import { parseFilter } from "./queries/filters";
import { countPayins, listPayins, PAYIN_STATUSES } from "./queries/lists";
import { addUser, httpSession } from "../testing/backoffice-browser";

describe("csvCell", () => {
  test.each([
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["line\nbreak", '"line\nbreak"'],
    ["=1+1", "'=1+1"],
    ["+cmd", "'+cmd"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["-2+3", "'-2+3"],
    ["-12.5", "-12.5"],
    ["", ""],
  ])("%p -> %p", (input, out) => expect(csvCell(input)).toBe(out));
  test("null and numbers", () => {
    expect(csvCell(null)).toBe("");
    expect(csvCell(42)).toBe("42");
  });
});

test("the stream asks for the next page only when the reader wants more", async () => {
  let calls = 0;
  const stream = csvStream<{ id: number }>([{ header: "id", value: (r) => r.id }], async (before) => {
    calls++;
    const start = before ?? 1000;
    const rows = Array.from({ length: 10 }, (_, i) => ({ id: start - 1 - i }));
    return { rows, nextBefore: start - 10 > 0 ? start - 10 : null };
  });
  const reader = stream.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toBe("id\r\n");
  expect(calls).toBe(0);
  await reader.read();
  expect(calls).toBe(1);
  await reader.read();
  expect(calls).toBe(2);
  await reader.cancel();
});

/**
 * The next chunk, or "pending" if none came within 2 s: for a stream expected to answer (a chunk or
 * its end) without another page being asked for. Not one immediate turn: under a loaded machine's
 * CPU the stream's pull can answer after it (a CI run read "pending" there once).
 */
const nextWithin2s = <T>(reader: ReadableStreamDefaultReader<T>) =>
  Promise.race([reader.read(), Bun.sleep(2000).then(() => "pending" as const)]);

test("an export whose filter matches nothing ends after its header", async () => {
  const reader = csvStream<{ id: number }>([{ header: "id", value: (r) => r.id }], async () => ({ rows: [], nextBefore: null })).getReader();
  expect(new TextDecoder().decode(((await reader.read()) as { value: Uint8Array }).value)).toBe("id\r\n");
  expect(await nextWithin2s(reader)).toEqual({ done: true, value: undefined });
});

test("an export ends right after a last page that is full", async () => {
  const reader = csvStream<{ id: number }>([{ header: "id", value: (r) => r.id }], async (before) =>
    before === undefined ? { rows: [{ id: 2 }, { id: 1 }], nextBefore: 1 } : { rows: [], nextBefore: null },
  ).getReader();
  await reader.read();
  expect(new TextDecoder().decode(((await nextWithin2s(reader)) as { value: Uint8Array }).value)).toBe("2\r\n1\r\n");
  expect(await nextWithin2s(reader)).toEqual({ done: true, value: undefined });
});

describe("export of 10,000 orders", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ jobs: false });
    const first = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
      body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "SEED", amount: "1", notifyUrl: "https://shop.example/cb" },
    });
    const seed = gw.ctx.db.select().from(payinOrders).where(eq(payinOrders.orderNo, first.orderNo)).get()!;
    const { id: _id, ...base } = seed;
    // Rows like the API writes, inserted directly: 10,000 API calls would only slow the test down.
    await seedRows(gw.ctx.db, (tx) => {
      for (let i = 0; i < 12_000; i++) {
        tx
          .insert(payinOrders)
          .values({
            ...base,
            orderNo: `PI${String(20261121000000000000n + BigInt(i))}`,
            merchantOrderNo: `BULK-${i}, "quoted"`,
            amount: String(1_000_000 + i),
            checkoutToken: `tok-${i}`,
            // 10,000 completed, 2,000 expired: the filter must pick exactly the completed ones.
            status: i % 6 === 5 ? "expired" : "completed",
            createdAt: seed.createdAt + i,
          })
          .run();
      }
    });
  });
  afterAll(() => gw.stop());

  test("streams and parses to the same rows as the filtered list", async () => {
    const op = await addUser(gw, "csvop", "operator");
    const cookie = await httpSession(gw.url, op);
    const f = parseFilter({ status: "completed", merchant: gw.merchant.uid }, PAYIN_STATUSES);
    // Counts stop at 1,000 ("1,000+"): a list never counts everything it matches.
    expect(await countPayins(gw.ctx.db, { merchantId: null }, f)).toBe(1001);

    const res = await fetch(`${gw.url}/backoffice/payins.csv?status=completed&merchant=${gw.merchant.uid}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-length")).toBeNull(); // streamed, not built in memory first
    const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(10_000);

    // The list, page by page as the page shows it.
    const listed: string[] = [];
    let before: number | undefined;
    do {
      const page = await listPayins(gw.ctx.db, { merchantId: null }, f, { before });
      listed.push(...page.rows.map((r) => r.orderNo));
      before = page.nextBefore ?? undefined;
    } while (before);
    expect(rows.map((r) => r.orderNo)).toEqual(listed);
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(["completed"]));
    const sample = rows.find((r) => r.orderNo === "PI20261121000000000006")!;
    expect(sample).toMatchObject({ merchantUid: gw.merchant.uid, merchantOrderNo: 'BULK-6, "quoted"', amount: "1.000006", chainCode: "TRON", tokenSymbol: "USDT" });

    // The HTML list shows the same count and starts with the same rows.
    const html = await (await fetch(`${gw.url}/backoffice/payins?status=completed&merchant=${gw.merchant.uid}`, { headers: { cookie } })).text();
    expect(html).toContain('data-total="1000+"');
    expect(html).toContain("1,000+ found");
    const firstPage = [...html.matchAll(/href="\/backoffice\/orders\/(PI\d+)"/g)].map((m) => m[1]);
    expect(firstPage).toEqual(listed.slice(0, 50));

    // The audit log exports what its filter shows too.
    const audit = parse(await (await fetch(`${gw.url}/backoffice/audit.csv?actor=csvop`, { headers: { cookie } })).text(), { columns: true }) as Record<string, string>[];
    const entries = (await listAudit(gw.ctx.db, { actor: "csvop", limit: 1000 })).entries;
    expect(audit.map((r) => [r.id, r.action, r.target])).toEqual(entries.map((e) => [String(e.id), e.action, e.target]));
    expect(audit.some((r) => r.action === "user.sign_in")).toBe(true);

    // A filter that matches nothing exports the header and ends (it used to hang).
    const empty = await fetch(`${gw.url}/backoffice/payins.csv?status=cancelled`, { headers: { cookie } });
    expect(await empty.text()).toStartWith("orderNo,merchantUid,");
    expect(parse(await (await fetch(`${gw.url}/backoffice/deposits.csv?status=reverted`, { headers: { cookie } })).text(), { columns: true })).toEqual([]);
  }, 60_000);
});
