import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { writeTx } from "../db/client";
import { type SQL, sql } from "drizzle-orm";
import { testSql } from "../testing/engine-rows";
import { CLI_ACTOR, listAudit, recordAudit } from "./log";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
});
afterAll(() => gw.stop());

test("entries are listed newest first, filtered and paged; before/after round-trip as JSON", async () => {
  const db = gw.ctx.db;
  const t0 = Date.parse("2026-11-01T00:00:00Z");
  await recordAudit(db, { ...CLI_ACTOR, at: t0, action: "order.freeze", target: "payin:PI1", before: { status: "waiting_payment" }, after: { status: "frozen_abnormal" } });
  await recordAudit(db, { actor: "alice", role: "merchant", ip: "203.0.113.9", at: t0 + 1000, action: "merchant.settings", target: "merchant:M1", after: { amount: 5n } });
  await recordAudit(db, { ...CLI_ACTOR, at: t0 + 2000, action: "order.release", target: "payin:PI1" });
  const all = await listAudit(db);
  expect(all.total).toBe(3);
  expect(all.entries.map((e) => e.action)).toEqual(["order.release", "merchant.settings", "order.freeze"]);
  expect(all.entries[1]).toMatchObject({ actor: "alice", role: "merchant", ip: "203.0.113.9", after: { amount: "5" }, before: null });
  expect(all.entries[2]).toMatchObject({ actor: "cli", role: "operator", ip: null, before: { status: "waiting_payment" }, at: "2026-11-01T00:00:00.000Z" });
  expect((await listAudit(db, { target: "payin:PI1" })).entries.map((e) => e.action)).toEqual(["order.release", "order.freeze"]);
  expect((await listAudit(db, { actor: "alice" })).total).toBe(1);
  expect((await listAudit(db, { action: "order.freeze" })).total).toBe(1);
  expect((await listAudit(db, { from: t0 + 500, to: t0 + 1500 })).entries.map((e) => e.actor)).toEqual(["alice"]);
  const page1 = await listAudit(db, { limit: 2 });
  expect(page1.entries.map((e) => e.action)).toEqual(["order.release", "merchant.settings"]);
  const page2 = await listAudit(db, { limit: 2, before: page1.next! });
  expect(page2).toMatchObject({ total: 3, entries: [{ action: "order.freeze" }], next: null });
});

test("the table is append-only, and an entry rolls back with the change it records", async () => {
  const run = async (q: SQL) => await testSql(gw.ctx.db, q);
  await expect(run(sql`UPDATE audit_log SET actor = 'mallory'`)).rejects.toThrow("append-only");
  await expect(run(sql`DELETE FROM audit_log`)).rejects.toThrow("append-only");
  const before = (await listAudit(gw.ctx.db)).total;
  await expect((async () =>
    await writeTx(gw.ctx.db, async (tx) => {
      await recordAudit(tx, { ...CLI_ACTOR, action: "x", target: "y" });
      throw new Error("the change failed");
    }))(),
  ).rejects.toThrow("the change failed");
  expect((await listAudit(gw.ctx.db)).total).toBe(before);
});
