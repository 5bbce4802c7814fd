// After-commit hooks (DESIGN 16): side effects of a write run once its
// transaction commits, never for one rolled back: writeTx, savepoints, dry runs
// and the group commit; and end to end, a batch preview counts no payout
// transition while a committed payout counts one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterCommit, openDb, rolledBack, savepoint, writeTx, type Db, type Tx } from "./client";
import { migrate } from "./migrate";
import { groupCommit } from "./group-commit";
import { events } from "../lib/event-metrics";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { uploadBatch } from "../treasury/batch";
import { enqueueCallback, type CallbackEvent } from "../callbacks/outbox";

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sg-after-commit-"));
  db = openDb(join(dir, "t.db"));
  await migrate(db);
});
afterAll(() => {
  db?.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const touch = (tx: Tx, v: string) => tx.$client.run("INSERT INTO settings (key, value, updated_at) VALUES ('t', ?, 0) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [v]);

describe("after-commit hooks", () => {
  test("run after COMMIT, once; a rolled-back writeTx runs none", async () => {
    const ran: string[] = [];
    await writeTx(db, async (tx) => {
      touch(tx, "a");
      afterCommit(tx, () => ran.push("a:" + String(db.$client.inTransaction)));
      // A nested writeTx joins: its hooks wait for the outer commit too.
      await writeTx(db, (inner) => afterCommit(inner, () => ran.push("inner")));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["a:false", "inner"]);
    await expect((async () =>
      await writeTx(db, (tx) => {
        afterCommit(tx, () => ran.push("rolled back"));
        throw new Error("boom");
      }))(),
    ).rejects.toThrow("boom");
    expect(ran).toEqual(["a:false", "inner"]);
  });

  test("a savepoint rolled back drops its hooks; a released one keeps them for the outer commit", async () => {
    const ran: string[] = [];
    await writeTx(db, async (tx) => {
      await savepoint(tx, (sp) => afterCommit(sp, () => ran.push("kept")));
      await expect((async () =>
        await savepoint(tx, (sp) => {
          afterCommit(sp, () => ran.push("dropped"));
          throw new Error("no");
        }))(),
      ).rejects.toThrow("no");
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["kept"]);
  });

  test("a dry run (rolledBack) returns its value and runs nothing, alone or nested", async () => {
    const ran: string[] = [];
    const v = await rolledBack(db, async (tx) => {
      touch(tx, "dry");
      afterCommit(tx, () => ran.push("dry"));
      return await rolledBack(db, (inner) => (afterCommit(inner, () => ran.push("nested")), 7));
    });
    expect(v).toBe(7);
    expect(ran).toEqual([]);
    expect(db.$client.query("SELECT value FROM settings WHERE key = 't'").get()).not.toEqual({ value: "dry" });
  });

  test("the group commit runs a job's hooks after the group's COMMIT, and drops a failed job's", async () => {
    const ran: string[] = [];
    const g = groupCommit(db);
    const ok = g.run({ work: async () => await writeTx(db, (tx) => (touch(tx, "g1"), afterCommit(tx, () => ran.push("ok:" + String(db.$client.inTransaction))))) });
    const bad = g.run({
      work: async () =>
        await writeTx(db, (tx) => {
          afterCommit(tx, () => ran.push("failed"));
          throw new Error("job failed");
        }),
      recover: async () => await writeTx(db, (tx) => afterCommit(tx, () => ran.push("recovered"))),
    });
    await g.flush();
    await ok;
    await expect(bad).rejects.toThrow("job failed");
    expect(ran.sort()).toEqual(["ok:false", "recovered"]);
  });

  test("afterCommit outside a transaction is refused (side effects must wait for a commit)", () => {
    expect(() => afterCommit(db as Tx, () => {})).toThrow(/outside writeTx/);
  });

  test("the type: a function that must run inside a write takes a Tx, which a bare Db is not", async () => {
    // Checked by `tsc --noEmit`: if Tx lost its brand, these expect-errors would be unused and fail the typecheck.
    const needsTx = (tx: Tx) => tx;
    // @ts-expect-error a Db is not a Tx: only writeTx, savepoint, rolledBack and the group commit hand one out
    const refused = () => needsTx(db);
    // @ts-expect-error the outbox writes a callback (and queues the worker's wake-up) only inside a write
    const outbox = async () => await enqueueCallback(db, {} as CallbackEvent);
    expect(typeof refused + typeof outbox).toBe("functionfunction");
    expect(await writeTx(db, (tx) => needsTx(tx))).toBe(db as Tx);
  });
});

describe("metrics count committed transitions only", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ jobs: false, config: { chains: { TRON: { confirmations: 2 } } } });
  });
  afterAll(() => gw?.stop());

  const submitted = async () => {
    const m = (await events.getSingleMetric("stablegate_payout_transitions_total")!.get()) as { values: Array<{ value: number; labels: Record<string, string> }> };
    return m.values.filter((v) => v.labels.chain === "TRON" && v.labels.status === "submitted").reduce((n, v) => n + v.value, 0);
  };

  test("a batch preview of 5 rows leaves stablegate_payout_transitions_total unchanged; a committed payout adds 1", async () => {
    const m = await gw.newMerchant("after-commit");
    const b = await m.client.request<{ address: string }>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "src" } });
    await sandboxClient(gw.url).transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: b.address, amount: "100" });
    await sandboxClient(gw.url).mine("TRON", 2);

    const before = await submitted();
    const rows = Array.from({ length: 5 }, (_, i) => `TRON,USDT,${randomAddress("TRON")},1,P-${i}`).join("\n");
    const batch = await uploadBatch(gw.ctx, m.id, { name: "p.csv", bytes: new TextEncoder().encode(`chainCode,tokenSymbol,toAddress,amount,merchantOrderNo\n${rows}\n`) }, { actor: "t", role: "merchant", ip: "127.0.0.1" });
    expect(batch).toMatchObject({ status: "preview", validCount: 5 });
    expect(await submitted()).toBe(before);

    await m.client.request("POST", "/openapi/payout/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", toAddress: randomAddress("TRON"), amount: "1", merchantOrderNo: "real-1", notifyUrl: "https://shop.example/cb" } });
    expect(await submitted()).toBe(before + 1);
  });
});
