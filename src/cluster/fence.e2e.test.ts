// The epoch fence at the call sites (cluster/fence.ts) on a real PostgreSQL: a transaction that
// stores a signed transaction commits only under the epoch this process holds.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { writeTx, type Db } from "../db/client";
import { pgOf } from "../db/engine";
import { openTestDb, type TestDb } from "../testing/engines";
import { assertLeading, heldEpoch, holdEpoch } from "./fence";
import { NotLeader } from "./leader-store";

let t: TestDb;
let db: Db;
beforeAll(async () => {
  t = await openTestDb("pg");
  db = t.db;
});
afterAll(async () => await t.close());

const setEpoch = async (epoch: number) =>
  await pgOf(db).execute(
    sql`INSERT INTO cluster_leader (id, epoch, owner, since, heartbeat) VALUES (1, ${epoch}, 'test', 0, 0) ON CONFLICT (id) DO UPDATE SET epoch = ${epoch}`,
  );

test("a follower (no epoch held) is refused; the current epoch passes; a stale one is refused and its transaction rolls back", async () => {
  await setEpoch(3);
  expect(heldEpoch(db)).toBeNull();
  expect(await writeTx(db, async (tx) => await assertLeading(tx)).catch((e: unknown) => e)).toBeInstanceOf(NotLeader);
  holdEpoch(db, 3);
  await writeTx(db, async (tx) => await assertLeading(tx));
  await setEpoch(4);
  expect(await writeTx(db, async (tx) => await assertLeading(tx)).catch((e: unknown) => e)).toBeInstanceOf(NotLeader);
  holdEpoch(db, null);
  expect(heldEpoch(db)).toBeNull();
});

test("on SQLite the fence is a no-op (one gateway per database: the instance lock)", async () => {
  const s = await openTestDb("sqlite");
  try {
    await writeTx(s.db, async (tx) => await assertLeading(tx));
  } finally {
    await s.close();
  }
});
