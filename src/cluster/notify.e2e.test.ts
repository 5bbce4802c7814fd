// LISTEN/NOTIFY between gateways on a real PostgreSQL (DESIGN 22 "Shared state"): two gateways'
// buses on pools of their own; an invalidation or wake-up sent in a transaction arrives at commit
// and never after a rollback; a cut listening connection comes back by itself, and its gateway
// drops every cache and wakes every waiter (what was sent meanwhile never arrives).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { eventually } from "../testing/wait";
import { ClusterBus, invalidate, parseMessage } from "./notify";

let db: TestDatabase;
let admin: SQL;
const pools: SQL[] = [];
const buses: ClusterBus[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  admin = new SQL({ url: db.url, max: 2 });
});
afterAll(async () => {
  for (const b of buses) await b.stop();
  for (const p of pools) await p.close();
  await admin.close();
  await db.drop();
});

async function gateway(self: string) {
  const pool = new SQL({ url: db.url, max: 3 });
  pools.push(pool);
  const bus = new ClusterBus(pool, { self });
  buses.push(bus);
  await bus.start();
  return { pool, bus };
}

const waitFor = async (what: string, ok: () => boolean, timeoutMs = 10_000) => void (await eventually(ok, timeoutMs, what, 10));

describe("cluster notifications over LISTEN/NOTIFY", () => {
  test("an invalidation and a wake-up reach the other gateway; a rolled-back transaction sends nothing", async () => {
    const a = await gateway("gw-a");
    const b = await gateway("gw-b");
    const seen: string[] = [];
    b.bus.onInvalidate("api_keys", (key, fromSelf) => seen.push(`api_keys:${key}:${fromSelf}`));
    b.bus.onInvalidate("merchant_settings", (key) => seen.push(`merchant_settings:${key}`));
    b.bus.onWake("payouts", (fromSelf) => seen.push(`wake payouts:${fromSelf}`));
    await a.pool.begin(async (tx) => {
      await a.bus.invalidate(tx, "api_keys", "key_1");
      await Bun.sleep(200);
      expect(seen).toEqual([]); // not before the commit
    });
    await waitFor("the invalidation", () => seen.length === 1);
    await a.pool
      .begin(async (tx) => {
        await a.bus.invalidate(tx, "merchant_settings", "7");
        throw new Error("rolled back");
      })
      .catch(() => {});
    await a.bus.wake(a.pool, "payouts");
    await waitFor("the wake-up", () => seen.length === 2);
    await Bun.sleep(200);
    // The rolled-back invalidation never arrived; the sender's own messages are marked as its own.
    expect(seen).toEqual(["api_keys:key_1:false", "wake payouts:false"]);
    const own: boolean[] = [];
    a.bus.onWake("callbacks", (fromSelf) => own.push(fromSelf));
    await a.bus.wake(a.pool, "callbacks");
    await waitFor("the own wake-up", () => own.length === 1);
    expect(own).toEqual([true]);
  }, 30_000);

  test("a cut listening connection: reconnected by itself, every cache dropped and every waiter woken, then messages flow again", async () => {
    const a = await gateway("gw-c");
    const b = await gateway("gw-d");
    const dropped: (string | undefined)[] = [];
    let woken = 0;
    let reconnected = 0;
    b.bus.onInvalidate("rates", (key) => dropped.push(key));
    b.bus.onWake("callbacks", () => woken++);
    b.bus.onReconnected(() => reconnected++);
    expect(b.bus.subscriptions).toBe(1);
    // Cut every listening session of the database (both gateways' listeners): as a network blip would.
    const t0 = performance.now();
    await admin.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`);
    await waitFor("the reconnect", () => reconnected === 1, 20_000);
    console.log(`listening connection back after ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    expect(dropped).toEqual([undefined]);
    expect(woken).toBe(1);
    await invalidate(a.pool, "rates", "EUR");
    await waitFor("the invalidation after the reconnect", () => dropped.length === 2);
    expect(dropped).toEqual([undefined, "EUR"]);
  }, 40_000);

  test("payloads that are not the gateway's messages are ignored", () => {
    expect(parseMessage("not json")).toBeNull();
    expect(parseMessage(JSON.stringify({ kind: "invalidate", topic: "nope", from: "x" }))).toBeNull();
    expect(parseMessage(JSON.stringify({ kind: "wake", topic: "payouts" }))).toBeNull();
    expect(parseMessage(JSON.stringify({ kind: "invalidate", topic: "rates", key: 5, from: "x" }))).toBeNull();
    expect(parseMessage(JSON.stringify({ kind: "wake", topic: "payouts", from: "x" }))).toEqual({ kind: "wake", topic: "payouts", from: "x" });
  });
});
