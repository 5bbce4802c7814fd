// Leases with FOR UPDATE SKIP LOCKED on a real PostgreSQL (DESIGN 22): three gateways' claimers,
// each on a pool of its own, drain one callbacks outbox at once and never claim the same row; a
// dead owner's rows come back after the lease; releases touch the owner's own rows only.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { CALLBACK_LEASES, leaseClaimer } from "./leases";

let db: TestDatabase;
let admin: SQL;
const pools: SQL[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  admin = new SQL({ url: db.url, max: 2 });
});
afterAll(async () => {
  for (const p of pools) await p.close();
  await admin.close();
  await db.drop();
});
beforeEach(async () => {
  await admin`DELETE FROM callbacks`;
});

function gateway(owner: string) {
  const pool = new SQL({ url: db.url, max: 3 });
  pools.push(pool);
  return leaseClaimer<{ id: string; leaseOwner: string; orderNo: string }>(pool, CALLBACK_LEASES, owner);
}

/** `n` pending callbacks due at `due` (ms), one order each unless `perOrder` events share an order. */
async function outbox(n: number, due = 0, perOrder = 1): Promise<void> {
  await admin.unsafe(
    `INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, payload, state, attempts, next_attempt_at, created_at, updated_at)
     SELECT 'cb' || lpad(i::text, 5, '0'), 1, 'payin', 'o' || (i / $2::int), 'completed', 'k', '{}', 'pending', 0, $1::bigint, i, i
     FROM generate_series(0, $3::int - 1) AS i`,
    [due, perOrder, n],
  );
}

const rowsOf = async (where: string) => (await admin.unsafe(`SELECT id, state, lease_owner AS owner FROM callbacks WHERE ${where} ORDER BY id`)) as { id: string; state: string; owner: string | null }[];

describe("lease claims on PostgreSQL (the callbacks outbox)", () => {
  test("three concurrent claimers drain 600 due rows: every row claimed once, none twice", async () => {
    await outbox(600);
    const claimers = [gateway("g1"), gateway("g2"), gateway("g3")];
    // Every pool connected before the race: a claimer still connecting (a loaded machine) found the
    // outbox drained by the other two (CI 2026-11-30: g2 0 of 600).
    await Promise.all(pools.slice(-3).map(async (p) => await p`SELECT 1`));
    const taken = new Map<string, string[]>();
    await Promise.all(
      claimers.map(async (c) => {
        const mine: string[] = [];
        taken.set(c.owner, mine);
        for (;;) {
          const rows = await c.claim(7, 60_000);
          if (rows.length === 0) break;
          for (const r of rows) expect(r.leaseOwner).toBe(c.owner);
          mine.push(...rows.map((r) => r.id));
        }
      }),
    );
    const all = [...taken.values()].flat();
    console.log(`claims per gateway: ${[...taken].map(([o, ids]) => `${o} ${ids.length}`).join(", ")}`);
    expect(all).toHaveLength(600);
    expect(new Set(all).size).toBe(600);
    // Each gateway got a share (SKIP LOCKED let them work side by side, not one after another).
    for (const ids of taken.values()) expect(ids.length).toBeGreaterThan(0);
    const db = await rowsOf("true");
    for (const r of db) expect(taken.get(r.owner!)).toContain(r.id);
    expect(db.every((r) => r.state === "delivering")).toBe(true);
  }, 60_000);

  test("a row not yet due, or behind an unfinished earlier event of its order, is not claimed", async () => {
    await outbox(4, 0, 2); // orders o0 (cb00000, cb00001) and o1 (cb00002, cb00003)
    await admin`UPDATE callbacks SET next_attempt_at = 9999999999999 WHERE id = 'cb00002'`;
    const g = gateway("g1");
    expect((await g.claim(10, 60_000, 1000)).map((r) => r.id)).toEqual(["cb00000"]);
    // The first event delivered: the second of its order is due now.
    await admin`UPDATE callbacks SET state = 'delivered', lease_owner = NULL, lease_until = NULL WHERE id = 'cb00000'`;
    expect((await g.claim(10, 60_000, 1000)).map((r) => r.id)).toEqual(["cb00001"]);
  }, 30_000);

  test("a dead owner's rows come back after the lease, to another gateway; releases and renewals touch only the owner's rows", async () => {
    await outbox(10);
    const dead = gateway("dead");
    const live = gateway("live");
    const t0 = 1_000_000;
    const held = await dead.claim(10, 30_000, t0);
    expect(held).toHaveLength(10);
    // While the lease runs: nothing for the live gateway, and it cannot release or renew the dead one's rows.
    expect(await live.claim(10, 30_000, t0 + 29_999)).toHaveLength(0);
    expect(await live.release(held.map((r) => r.id))).toBe(0);
    expect(await live.renew(held.map((r) => r.id), 30_000, t0)).toBe(0);
    expect((await rowsOf("lease_owner = 'dead'")).length).toBe(10);
    // The lease ends (the owner never came back): the rows are due again, claimed under the new owner.
    const back = await live.claim(10, 30_000, t0 + 30_000);
    expect(back.map((r) => r.id).sort()).toEqual(held.map((r) => r.id).sort());
    expect(back.every((r) => r.leaseOwner === "live")).toBe(true);
    // The old owner, back from the dead, can no longer release them.
    expect(await dead.release(held.map((r) => r.id))).toBe(0);
    // The live owner renews and releases its own: pending again, due at once.
    expect(await live.renew(["cb00000"], 30_000, t0 + 30_001)).toBe(1);
    expect(await live.release(["cb00000", "cb00001"])).toBe(2);
    expect((await rowsOf("state = 'pending' AND lease_owner IS NULL AND lease_until IS NULL")).map((r) => r.id)).toEqual(["cb00000", "cb00001"]);
    expect(await live.releaseAll()).toBe(8);
  }, 30_000);

  test("with the database's clock (no `now` passed): a lease of 300 ms comes back after it", async () => {
    await outbox(3);
    const a = gateway("a");
    const b = gateway("b");
    expect(await a.claim(10, 300)).toHaveLength(3);
    expect(await b.claim(10, 300)).toHaveLength(0);
    await Bun.sleep(400);
    expect(await b.claim(10, 300)).toHaveLength(3);
  }, 30_000);
});
