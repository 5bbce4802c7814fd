import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { verifyCallbackSignature } from "../auth/signing";
import { currentKey, rotateKey } from "../merchants/service";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { TEST_ENGINE } from "../testing/engines";
import { testSql } from "../testing/engine-rows";
import { writeTx } from "../db/client";
import { type Receiver, type ReceivedRequest, startReceiver } from "../testing/receiver";
import { allInState, callbackRow, enqueueTestCallback } from "../testing/callbacks";
import { eventually } from "../testing/wait";
import { callbackAttemptsOf, resendCallback } from "./resend";
import { CallbackWorker, workerOptions } from "./worker";
import { callbacksDue } from "../db/callbacks-due";
import { updateMerchantSettings } from "../merchants/settings";
import { CLI_ACTOR, listAudit } from "../audit/log";
import { TestClock } from "../lib/clock";
import { releaseHeldCallbacks } from "./store";
import { everySeq, mapSeq } from "../lib/async-seq";
import { groupCommit } from "../db/group-commit";

const DELAYS = [300, 600];
const POLL_MS = 200;
// Retries come due as the test moves this clock, not as real time passes. It starts an hour
// ahead of real time, so rows written with Date.now() (the CLI, test helpers) are already due.
const clock = new TestClock(Date.now() + 3_600_000);
let gw: TestGateway;
const receivers: Receiver[] = [];
const receiver = (...a: Parameters<typeof startReceiver>) => {
  const r = startReceiver(...a);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  gw = await startTestGateway({ clock, config: { callbacks: { retry_delays: ["300ms", "600ms"], timeout: "1s", concurrency: 4 } } });
});
afterAll(async () => {
  for (const r of receivers) await r.stop();
  await gw.stop();
});

async function send(url: string | null, e: { orderNo?: string; status?: string } = {}): Promise<string> {
  const id = await enqueueTestCallback(gw.ctx.db, { merchantId: gw.merchant.id, url, ...e });
  callbacksDue();
  return id;
}

const settled = (id: string) => async () => {
  const r = await callbackRow(gw.ctx.db, id);
  return r && (r.state === "delivered" || r.state === "failed") ? r : undefined;
};

/** Waits (for the real HTTP round trips) until `n` attempts of the callback are recorded. */
const attemptedNow = async (id: string, n: number, db = gw.ctx.db) =>
  (await callbackAttemptsOf(db, id)).length >= n && (await callbackRow(db, id))?.state !== "delivering";
const attempted = (id: string, n: number, db = gw.ctx.db) => eventually(async () => await attemptedNow(id, n, db), 5000, `attempt ${n} of ${id}`);

/**
 * Waits like `eventually`, moving the test clock a poll interval each time `ok` is not met yet: a
 * poll still on the wire when the test moved the clock (PostgreSQL's round trips, under load) arms
 * the next poll from the new time, which no later move of the test would reach.
 */
const advancing = async <T>(ok: () => Promise<T | undefined | null | false>, what: string, c: TestClock = clock): Promise<T> =>
  await eventually<T>(async () => {
    const v = await ok();
    if (!v) await c.advance(POLL_MS);
    return v;
  }, 5000, what);

/** The signed X-Callback-Timestamp (the gateway clock's ms) of each request. */
const stamps = (reqs: ReceivedRequest[]) => reqs.map((r) => Number(r.headers["x-callback-timestamp"]));

function verifies(apiKey: string, r: ReceivedRequest): boolean {
  const h = r.headers;
  return verifyCallbackSignature(apiKey, h["x-callback-timestamp"], h["x-callback-nonce"], r.raw, h["x-callback-signature"]);
}

describe("callback worker", () => {
  test("delivers the stored payload byte for byte, signed, and records the attempt", async () => {
    const rx = receiver([{ status: 200, body: "received" }]);
    const id = await send(rx.url + "/notify");
    const row = await advancing(settled(id), "delivery");
    expect(row.state).toBe("delivered");
    expect(row.attempts).toBe(1);
    expect(rx.requests.length).toBe(1);
    const got = rx.requests[0];
    expect(got.text).toBe(row.payload);
    const payload = JSON.parse(got.text);
    expect(payload.eventId).toBe(id);
    expect(payload.paidAmount).toBe("100.000000");
    expect(verifies(gw.merchant.apiKey, got)).toBe(true);
    const h = got.headers;
    const independent = createHmac("sha256", gw.merchant.apiKey).update(`${h["x-callback-timestamp"]}.${h["x-callback-nonce"]}.${got.text}`).digest("hex");
    expect(h["x-callback-signature"]).toBe(independent);
    expect(verifyCallbackSignature(gw.merchant.apiKey, h["x-callback-timestamp"], h["x-callback-nonce"], JSON.stringify(payload, null, 1), h["x-callback-signature"])).toBe(false);
    const attempts = await callbackAttemptsOf(gw.ctx.db, id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attemptNo: 1, httpStatus: 200, responseBody: "received", error: null });
    expect(attempts[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  test("fails twice then 2xx: exactly 3 deliveries, spaced by the delays, each freshly signed", async () => {
    const rx = receiver([{ status: 500, body: "down" }, { status: 503 }, { status: 200 }]);
    const id = await send(rx.url);
    await attempted(id, 1);
    await clock.advance(DELAYS[0] - 1); // a poll runs; the retry is not due yet
    expect(await callbackRow(gw.ctx.db, id)).toMatchObject({ state: "pending", attempts: 1 });
    await clock.advance(POLL_MS); // the next poll, past its due time
    await advancing(async () => await attemptedNow(id, 2), "attempt 2");
    await clock.advance(DELAYS[1]);
    const row = await advancing(settled(id), "delivery");
    expect(row.state).toBe("delivered");
    expect(row.attempts).toBe(3);
    await clock.advance(DELAYS[1] + POLL_MS); // nothing more may arrive
    const reqs = rx.requests;
    expect(reqs).toHaveLength(3);
    const at = stamps(reqs);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(DELAYS[0]);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(DELAYS[1]);
    expect(new Set(reqs.map((r) => r.headers["x-callback-nonce"])).size).toBe(3);
    expect(new Set(reqs.map((r) => r.headers["x-callback-timestamp"])).size).toBe(3);
    expect(new Set(reqs.map((r) => r.text)).size).toBe(1);
    for (const r of reqs) expect(verifies(gw.merchant.apiKey, r)).toBe(true);
    expect((await callbackAttemptsOf(gw.ctx.db, id)).map((a) => [a.attemptNo, a.httpStatus])).toEqual([[1, 500], [2, 503], [3, 200]]);
  });

  const exhausting: Array<[string, Parameters<typeof startReceiver>[0], RegExp]> = [
    ["a receiver that always fails", [{ status: 500 }], /HTTP 500/],
    ["a redirect", [{ status: 301, headers: { location: "http://127.0.0.1:1/" } }], /redirect 301 not followed/],
  ];
  for (const [name, script, err] of exhausting) {
    test(`${name} gets exactly 3 deliveries, then the callback is failed and kept`, async () => {
      const rx = receiver(script);
      const id = await send(rx.url);
      await attempted(id, 1);
      await clock.advance(DELAYS[0]);
      await advancing(async () => await attemptedNow(id, 2), "attempt 2");
      await clock.advance(DELAYS[1]);
      const row = await advancing(settled(id), "give-up");
      expect(row.state).toBe("failed");
      expect(row.attempts).toBe(3);
      expect(row.lastError).toMatch(err);
      await clock.advance(3_600_000);
      expect(rx.requests).toHaveLength(3);
    });
  }

  test("a failed callback is resent (CLI) and then delivered with the same eventId", async () => {
    const rx = receiver([{ status: 500 }]);
    const id = await send(rx.url);
    await attempted(id, 1);
    await clock.advance(DELAYS[0]);
    await advancing(async () => await attemptedNow(id, 2), "attempt 2");
    await clock.advance(DELAYS[1]);
    await advancing(settled(id), "give-up");
    const cli = async (...args: string[]) => {
      const cfg = join(gw.dir, "cli.toml");
      const db = gw.ctx.config.database;
      writeFileSync(cfg, `[database]\n${db.url ? `url = "${db.url}"` : `path = "${db.path}"`}\n`);
      const p = Bun.spawn([process.execPath, "src/main.ts", ...args, "--config", cfg], {
        env: { ...process.env, STABLEGATE_MASTER_KEY: "test-master-key-" + gw.dir },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      return { out, err, code };
    };
    const listed = await cli("callbacks", "list", "--failed", "--json");
    expect(listed.code).toBe(0);
    const failed = JSON.parse(listed.out) as Array<{ eventId: string; state: string; lastError: string }>;
    expect(failed.find((f) => f.eventId === id)).toMatchObject({ state: "failed", lastError: "HTTP 500" });
    expect(failed.every((f) => f.state === "failed")).toBe(true);

    rx.setScript([{ status: 200 }]);
    const resent = await cli("callbacks", "resend", id);
    expect(resent.code).toBe(0);
    expect(resent.out).toContain(id);
    await clock.advance(POLL_MS); // the CLI is another process: the next poll finds the row
    const row = await eventually(async () => (await callbackRow(gw.ctx.db, id))?.state === "delivered" && (await callbackRow(gw.ctx.db, id)), 5000, "redelivery");
    expect(row.attempts).toBe(1);
    expect(rx.requests).toHaveLength(4);
    expect(JSON.parse(rx.requests[3].text).eventId).toBe(id);
    expect((await callbackAttemptsOf(gw.ctx.db, id)).map((a) => a.attemptNo)).toEqual([1, 2, 3, 4]);
    expect((await listAudit(gw.ctx.db, { target: `callback:${id}` })).entries).toMatchObject([{ actor: "cli", action: "callback.resend", before: { state: "failed" }, after: { state: "pending" } }]);
    // A queued or unknown one cannot be resent.
    await expect((async () => await resendCallback(gw.ctx.db, id, Date.now(), { merchantId: gw.merchant.id + 999 }))()).rejects.toThrow(/no callback/);
    const again = await cli("callbacks", "resend", "EVNOPE");
    expect(again.code).toBe(2);
    expect(again.err).toContain("no callback with event id EVNOPE");
  });

  test("a receiver slower than the timeout is a failed attempt", async () => {
    const rx = receiver([{ status: 200, delayMs: 1500 }, { status: 200 }]);
    const id = await send(rx.url);
    await attempted(id, 1);
    await clock.advance(DELAYS[0]);
    const row = await advancing(settled(id), "delivery");
    expect(row.state).toBe("delivered");
    const attempts = await callbackAttemptsOf(gw.ctx.db, id);
    expect(attempts.map((a) => a.httpStatus)).toEqual([null, 200]);
    expect(attempts[0].error).toMatch(/timed out after 1000ms/);
  });

  // PostgreSQL orders an order's events by (created_at, id) until the sequence column comes
  // (docs/postgresql.md "Left"): events written in one millisecond may go out in either order.
  test.skipIf(TEST_ENGINE === "pg")("events of one order arrive in order, even when the first needs a retry", async () => {
    const rx = receiver([{ status: 500 }, { status: 200 }]);
    const orderNo = "PI20261121000000009999001";
    const ids = await mapSeq(["detected", "confirming", "completed"], async (status) => await send(rx.url, { orderNo, status }));
    await attempted(ids[0], 1);
    await clock.advance(DELAYS[0]);
    await eventually(async () => await everySeq(ids, async (i) => await settled(i)()), 5000, "all delivered");
    expect(rx.requests.map((r) => JSON.parse(r.text).status)).toEqual(["detected", "detected", "confirming", "completed"]);
  });

  test("after key rotation, old callbacks keep the old key and new ones use the new key", async () => {
    const rx = receiver([{ status: 200 }]);
    const m = await gw.newMerchant("Rotating Shop");
    const deps = { db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => Date.now() };
    const oldKeyId = (await currentKey(gw.ctx.db, m.id))!.id;
    const { apiKey: newKey } = await rotateKey(deps, m.uid, 60_000);
    // Both written after the rotation: one for an order created under the old key.
    const before = await enqueueTestCallback(gw.ctx.db, { merchantId: m.id, url: rx.url, apiKeyId: oldKeyId });
    const after = await enqueueTestCallback(gw.ctx.db, { merchantId: m.id, url: rx.url });
    expect((await callbackRow(gw.ctx.db, after))!.apiKeyId).not.toBe(oldKeyId);
    callbacksDue();
    await eventually(async () => (await settled(before)()) && (await settled(after)()), 8000, "both delivered");
    const byId = (id: string) => rx.requests.filter((r) => JSON.parse(r.text).eventId === id).at(-1)!;
    expect(verifies(m.apiKey, byId(before))).toBe(true);
    expect(verifies(newKey, byId(before))).toBe(false);
    expect(verifies(newKey, byId(after))).toBe(true);
    expect(verifies(m.apiKey, byId(after))).toBe(false);
  });

  test("a null url falls back to the merchant's default; with none the callback is held, then released by the setting", async () => {
    const rx = receiver([{ status: 200 }]);
    const bare = await gw.newMerchant("No URL Shop");
    const none = await enqueueTestCallback(gw.ctx.db, { merchantId: bare.id, url: null });
    callbacksDue();
    expect((await callbackRow(gw.ctx.db, none))!.state).toBe("held");
    for (let i = 0; i < 3; i++) await clock.advance(POLL_MS); // a few polls: a held callback is not claimed
    expect(await callbackRow(gw.ctx.db, none)).toMatchObject({ state: "held", attempts: 0 });
    expect(await callbackAttemptsOf(gw.ctx.db, none)).toHaveLength(0);

    // Queued while a default existed, then the default was cleared: held at delivery, not failed.
    // One transaction: the worker, woken by the commit, finds the default already cleared.
    const setDefault = async (url: string | null) => await testSql(gw.ctx.db, sql`UPDATE merchants SET default_callback_url = ${url} WHERE id = ${bare.id}`);
    const queued = await writeTx(gw.ctx.db, async () => {
      await setDefault(rx.url + "/gone");
      const id = await enqueueTestCallback(gw.ctx.db, { merchantId: bare.id, url: null, orderNo: "PI20261121999999990001" });
      await setDefault(null);
      return id;
    });
    callbacksDue();
    await eventually(async () => (await callbackRow(gw.ctx.db, queued))!.state === "held", 5000, "held at delivery");

    const r = await updateMerchantSettings({ db: gw.ctx.db, now: () => Date.now(), allowPrivateTargets: true, releaseHeldCallbacks }, bare.uid, { defaultNotifyUrl: rx.url + "/default" }, CLI_ACTOR);
    expect(r.released).toBe(2);
    expect((await eventually(settled(none), 5000, "delivery")).state).toBe("delivered");
    expect((await eventually(settled(queued), 5000, "delivery")).state).toBe("delivered");
    expect(rx.requests.map((q) => q.path)).toEqual(["/default", "/default"]);
  });
});

describe("callback worker pool", () => {
  test("a hanging receiver does not hold back another; stop() releases what is in flight", async () => {
    const clock = new TestClock(Date.now() + 3_600_000);
    const g = await startTestGateway({ clock, jobs: false });
    try {
      const hang = receiver([{ hang: true }]);
      const fast = receiver([{ status: 200 }]);
      const w = new CallbackWorker(workerOptions(g.ctx, { timeoutMs: 30_000, concurrency: 4, shutdownGraceMs: 100, pollMs: 50 }));
      const slow = await mapSeq(Array.from({ length: 10 }), async () => await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: hang.url }));
      const quick = await mapSeq(Array.from({ length: 6 }), async () => await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: fast.url }));
      await w.start();
      await eventually(
        async () => await allInState(g.ctx.db, quick, "delivered"),
        5000,
        "deliveries to the healthy receiver",
      );
      expect(fast.requests).toHaveLength(6);
      // The dead endpoint holds only its share of the pool.
      await hang.waitFor((r) => r.length >= w.perTarget, 5000);
      expect(hang.requests.length).toBe(w.perTarget);
      expect(await everySeq(slow, async (id) => (await callbackAttemptsOf(g.ctx.db, id)).length === 0)).toBe(true);

      // The grace period runs on the gateway's clock: stop() waits until it has passed.
      const stopped = w.stop();
      await clock.advance(100);
      await stopped;
      expect(w.inFlightCount).toBe(0);
      // Cut off by shutdown: back to pending, not counted as an attempt.
      for (const id of slow) {
        expect(await callbackRow(g.ctx.db, id)).toMatchObject({ state: "pending", attempts: 0, leaseUntil: null });
        expect(await callbackAttemptsOf(g.ctx.db, id)).toHaveLength(0);
      }
    } finally {
      await g.stop();
    }
  });

  test.skipIf(TEST_ENGINE !== "pg")("PostgreSQL: while every due row is held back (a hanging origin's share taken), kicks claim at most every CLAIM_HELD_GAP_MS", async () => {
    const clock = new TestClock(Date.now() + 3_600_000);
    const g = await startTestGateway({ clock, jobs: false });
    const hang = receiver([{ hang: true }]);
    // concurrency 2: the origin's share is 1 slot, so the rows behind the hanging one are held back.
    const w = new CallbackWorker(workerOptions(g.ctx, { timeoutMs: 30_000, concurrency: 2, shutdownGraceMs: 100, pollMs: 60_000, wakeups: () => () => undefined }));
    try {
      await mapSeq([0, 1, 2], async () => await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: hang.url }));
      const store = (w as unknown as { store: { claimLeased: (...a: unknown[]) => Promise<unknown[]> } }).store;
      const claim = store.claimLeased;
      let claims = 0;
      store.claimLeased = async (...a: unknown[]) => (claims++, await claim(...a));
      await w.start();
      await hang.waitFor((r) => r.length >= 1, 5000);
      await w.poll(); // held back from here
      claims = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < 500) {
        w.kick(); // a commit's kick every 5 ms
        await Bun.sleep(5);
      }
      // 500 ms: at most one claim per 100 ms (and the one under way), not one per 20 ms (25).
      expect(claims).toBeGreaterThanOrEqual(1);
      expect(claims).toBeLessThanOrEqual(7);
      expect(hang.requests).toHaveLength(1);
    } finally {
      const stopped = w.stop();
      await clock.advance(100);
      await stopped;
      await g.stop();
    }
  });

  test.skipIf(TEST_ENGINE === "pg")("SQLite: attempts that fail together write their outcomes in one group-commit job, each row its own", async () => {
    const clock = new TestClock(Date.now() + 3_600_000);
    const g = await startTestGateway({ clock, jobs: false });
    const w = new CallbackWorker(workerOptions(g.ctx, { concurrency: 12, pollMs: 60_000, wakeups: () => () => undefined }));
    try {
      // A name the test resolver refuses: every attempt fails at once, in the turn its claim's mark committed
      // (12 slots: one origin may hold 6, so one claim takes all six).
      const ids = await mapSeq([1, 2, 3, 4, 5, 6], async () => await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: "https://shop.example/cb" }));
      const jobs0 = groupCommit(g.ctx.db).jobs;
      await w.start();
      await eventually(async () => await everySeq(ids, async (id) => await attemptedNow(id, 1, g.ctx.db)), 5000, "six attempts");
      // The claim's marks (one job) and the six outcomes (one job), not one job per outcome.
      expect(groupCommit(g.ctx.db).jobs - jobs0).toBeLessThanOrEqual(3);
      for (const id of ids) expect(await callbackRow(g.ctx.db, id)).toMatchObject({ state: "pending", attempts: 1, lastError: expect.stringContaining("cannot resolve callback host shop.example") });
    } finally {
      await w.stop();
      await g.stop();
    }
  });

  test("an expired lease is reclaimed by a running worker; a live one is left alone", async () => {
    const clock = new TestClock(Date.now() + 3_600_000);
    const g = await startTestGateway({ clock, jobs: false });
    const w = new CallbackWorker(workerOptions(g.ctx, { pollMs: 50 }));
    try {
      await w.start();
      const rx = receiver([{ status: 200 }]);
      const now = clock.now();
      // Written as if another run claimed them, in one transaction: the worker, woken by the commit, sees them claimed.
      const [expired, live] = await writeTx(g.ctx.db, async () => {
        const ids = [await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: rx.url }), await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: rx.url })] as const;
        await testSql(g.ctx.db, sql`UPDATE callbacks SET state = 'delivering', lease_until = CASE WHEN id = ${ids[0]} THEN ${now - 1} ELSE ${now + 60_000} END WHERE id IN (${ids[0]}, ${ids[1]})`);
        return ids;
      });
      await clock.advance(50); // the next poll reclaims the expired lease
      await eventually(async () => (await callbackRow(g.ctx.db, expired))?.state === "delivered", 5000, "reclaimed delivery");
      for (let i = 0; i < 4; i++) await clock.advance(50); // more polls, well within the live lease
      expect((await callbackRow(g.ctx.db, live))?.state).toBe("delivering");
      expect(rx.requests.map((r) => JSON.parse(r.text).eventId)).toEqual([expired]);
    } finally {
      await w.stop();
      await g.stop();
    }
  });

  test("stop() lets a delivery that answers within the grace period finish", async () => {
    const clock = new TestClock(Date.now() + 3_600_000);
    const g = await startTestGateway({ clock, jobs: false });
    const rx = receiver([{ status: 200, delayMs: 300 }]);
    const w = new CallbackWorker(workerOptions(g.ctx, { pollMs: 50, shutdownGraceMs: 3000 }));
    try {
      const id = await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: rx.url });
      await w.start();
      await rx.waitFor((r) => r.length === 1, 5000);
      await w.stop();
      expect(await callbackRow(g.ctx.db, id)).toMatchObject({ state: "delivered", attempts: 1 });
    } finally {
      await w.stop();
      await g.stop();
    }
  });

  test("private targets are refused when not allowed: failed attempts, nothing sent", async () => {
    const clock = new TestClock(Date.now() + 3_600_000);
    const g = await startTestGateway({ clock, config: { callbacks: { allow_private_targets: false, retry_delays: ["100ms", "100ms"] } } });
    try {
      const rx = receiver([{ status: 200 }]);
      const id = await enqueueTestCallback(g.ctx.db, { merchantId: g.merchant.id, url: rx.url + "/cb" });
      callbacksDue();
      await attempted(id, 1, g.ctx.db);
      await clock.advance(POLL_MS);
      await advancing(async () => await attemptedNow(id, 2, g.ctx.db), "attempt 2", clock);
      await clock.advance(POLL_MS);
      const row = await advancing(async () => {
        const r = await callbackRow(g.ctx.db, id);
        return r?.state === "failed" ? r : undefined;
      }, "give-up", clock);
      expect(row.attempts).toBe(3);
      expect(row.lastError).toMatch(/resolves to a special-purpose address \(127\.0\.0\.1, loopback\); refused/);
      expect(rx.requests).toHaveLength(0);
    } finally {
      await g.stop();
    }
  });
});
