// The one-time form token (src/once/once.ts) on the test engine's database (SQLite or PostgreSQL): which tokens are taken, the
// first POST runs and its answer is given again, two at once run once, a failed action lets the
// token go, another scope is refused, a claim with no answer is never run again by itself.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeTx, type Db } from "../db/client";
import { openTestDb, type TestDb } from "../testing/engines";
import { Cipher } from "../secrets/cipher";
import { newOnceToken, once, ONCE_TTL_MS, readOnceToken, type OnceDeps, type OnceRefusal } from "./once";
import { claimSubmission, submissionByToken } from "./store";

const NOW = Date.parse("2026-11-29T08:00:00Z");
let t: TestDb;
let db: Db;
let d: OnceDeps;
beforeAll(async () => {
  t = await openTestDb();
  db = t.db;
  d = { db, cipher: new Cipher(randomBytes(32)), now: () => NOW };
});
afterAll(async () => await t.close());

const refuse = (why: OnceRefusal) => new Response(why, { status: 409 });

describe("readOnceToken", () => {
  const good = newOnceToken(NOW);
  test.each([
    ["absent", undefined, null],
    ["empty", "", null],
    ["a fresh token", good, { token: good }],
    ["an hour old", newOnceToken(NOW - 3600_000), "ok"],
    ["a day and a minute old", newOnceToken(NOW - ONCE_TTL_MS - 60_000), { refused: "expired" }],
    ["an hour in the future", newOnceToken(NOW + 3600_000), { refused: "malformed" }],
    ["no random part", NOW.toString(36), { refused: "malformed" }],
    ["a short random part", `${NOW.toString(36)}.abc`, { refused: "malformed" }],
    ["two values (a form with two tokens)", [good, good], { refused: "malformed" }],
  ] as const)("%s", (_name, value, expected) => {
    const r = readOnceToken(value, NOW);
    if (expected === "ok") expect(r).toHaveProperty("token");
    else expect(r).toEqual(expected as never);
  });
});

describe("once", () => {
  test("the first POST runs and its answer is kept (sealed); the second gets it again, marked replay", async () => {
    const token = newOnceToken(NOW);
    let runs = 0;
    const run = async () => new Response(`secret page ${++runs}`, { status: 200, headers: { "content-type": "text/html", "set-cookie": "s=1" } });
    const a = await once(d, token, "bo:1:/x", run, refuse);
    const b = await once(d, token, "bo:1:/x", run, refuse);
    expect([await a.text(), await b.text()]).toEqual(["secret page 1", "secret page 1"]);
    expect([a.headers.get("x-once"), b.headers.get("x-once")]).toEqual([null, "replay"]);
    expect(b.headers.get("content-type")).toBe("text/html");
    expect(b.headers.get("set-cookie")).toBeNull();
    expect(runs).toBe(1);
    expect((await submissionByToken(db, token))!.body).not.toContain("secret");
  });

  test("two at once: one runs, the other waits for its answer", async () => {
    const token = newOnceToken(NOW);
    let runs = 0;
    const run = async () => {
      runs++;
      await Bun.sleep(200);
      return new Response(null, { status: 303, headers: { location: "/done" } });
    };
    const both = await Promise.all([once(d, token, "s", run, refuse), once(d, token, "s", run, refuse)]);
    expect(runs).toBe(1);
    expect(both.map((r) => [r.status, r.headers.get("location")])).toEqual([[303, "/done"], [303, "/done"]]);
  });

  test("an action that fails (throws or answers 5xx) lets the token go: sent again, it runs", async () => {
    const token = newOnceToken(NOW);
    await expect(once(d, token, "s", async () => { throw new Error("disk full"); }, refuse)).rejects.toThrow("disk full");
    expect(await submissionByToken(db, token)).toBeUndefined();
    expect((await once(d, token, "s", async () => new Response("x", { status: 503 }), refuse)).status).toBe(503);
    expect((await once(d, token, "s", async () => new Response("ok"), refuse)).status).toBe(200);
  });

  test("another scope is refused; a claim with no answer is never run again by itself; no token runs as before", async () => {
    const token = newOnceToken(NOW);
    await once(d, token, "bo:1:/x", async () => new Response("ok"), refuse);
    const other = await once(d, token, "bo:2:/x", async () => new Response("ran"), refuse);
    expect(await other.text()).toBe("elsewhere");
    // A claim whose process stopped mid-action (inserted here by hand): after the wait, refused.
    const stuck = newOnceToken(NOW);
    await writeTx(db, async (tx) => await claimSubmission(tx, { token: stuck, scope: "s", createdAt: NOW }));
    const started = Date.now();
    const r = await once({ ...d, waitMs: 300 }, stuck, "s", async () => new Response("ran"), refuse);
    expect(await r.text()).toBe("unrecorded");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    let runs = 0;
    for (let i = 0; i < 2; i++) await once(d, undefined, "s", async () => new Response(String(++runs)), refuse);
    expect(runs).toBe(2);
  });
});
