// The pipelined transaction client (db/tx-pg-pipe.ts) on the real server, through a TCP relay that
// counts round trips (the times the client waited for the server before sending again): BEGIN,
// SAVEPOINT and RELEASE share a round trip with the next statement, COMMIT is awaited and checked,
// an error of a statement sent ahead is the error of the statement behind it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { sql } from "drizzle-orm";
import { rolledBack, savepoint, writeTx, type Db } from "./client";
import { pgOf } from "./engine";
import { closePg, openPgDb, pgSend, pgSendUnflushed } from "./tx-pg";
import { CommitRolledBack } from "./tx-pg-pipe";
import { createTestDatabase } from "../testing/postgres";

/**
 * A relay between the client and PostgreSQL counting turns: a turn starts when the client sends
 * after the server last spoke. Each client chunk reaches the server 5 ms late (in order), so what
 * the client sends in one go is never split by an answer.
 */
async function turnCounter(target: { host: string; port: number }) {
  let turns = 0;
  let serverSpoke = true;
  // The client's messages (protocol 3: a type byte and a length, after the untyped startup and SSL
  // requests), parsed to count Execute ('E'): one per statement the server runs.
  let executes = 0;
  let pending = Buffer.alloc(0);
  let startup = true;
  const parse = (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (startup) {
        if (pending.length < 8) return;
        const len = pending.readInt32BE(0);
        if (pending.length < len) return;
        startup = pending.readInt32BE(4) === 80877103; // an SSLRequest: the startup message follows
        pending = pending.subarray(len);
        continue;
      }
      if (pending.length < 5) return;
      const len = pending.readInt32BE(1) + 1;
      if (pending.length < len) return;
      if (pending[0] === 0x45) executes++;
      pending = pending.subarray(len);
    }
  };
  const server = Bun.listen<{ up: Promise<Socket<unknown>>; chain: Promise<unknown> }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(down) {
        down.data = {
          up: Bun.connect({
            hostname: target.host,
            port: target.port,
            socket: {
              data(_up, chunk) {
                serverSpoke = true;
                down.write(chunk);
              },
              close() {
                down.end();
              },
            },
          }),
          chain: Promise.resolve(),
        };
      },
      data(down, chunk) {
        if (serverSpoke) turns++;
        serverSpoke = false;
        const copy = Buffer.from(chunk);
        parse(copy);
        down.data.chain = down.data.chain.then(async () => {
          await Bun.sleep(5);
          (await down.data.up).write(copy);
        });
      },
      close(down) {
        void down.data.up.then((u) => u.end());
      },
    },
  });
  return {
    port: server.port,
    async count(fn: () => Promise<unknown>): Promise<number> {
      const from = turns;
      await fn();
      return turns - from;
    },
    /** Statements the client had the server run during fn (Execute messages). */
    async statements(fn: () => Promise<unknown>): Promise<number> {
      const from = executes;
      await fn();
      return executes - from;
    },
    stop: () => server.stop(true),
  };
}

let db: Db;
let relay: Awaited<ReturnType<typeof turnCounter>>;
const q = async (h: Db, text: string) => (await pgOf(h).execute(sql.raw(text))) as unknown as Record<string, unknown>[];
const count = async (where: string) => Number((await q(db, `SELECT count(*)::int AS n FROM p WHERE ${where}`))[0]!.n);

beforeAll(async () => {
  const database = await createTestDatabase({ empty: true });
  const u = new URL(database.url);
  relay = await turnCounter({ host: u.hostname, port: Number(u.port) });
  u.port = String(relay.port);
  db = openPgDb(u.toString(), 1);
  await q(db, "CREATE TABLE p (id int PRIMARY KEY)");
});
afterAll(async () => {
  await closePg(db);
  relay.stop();
});

describe("the pipelined transaction", () => {
  test("BEGIN, SAVEPOINT and RELEASE cost no round trip of their own (two inserts, one in a savepoint: 3 round trips where Bun's begin took 6)", async () => {
    let id = 100;
    // statements with parameters, as the stores' (a query without any goes as a simple query, which Bun never pipelines)
    const insert = async (h: Db) => await pgOf(h).execute(sql`INSERT INTO p (id) VALUES (${id++})`);
    const body = () =>
      writeTx(db, async (tx) => {
        await insert(tx);
        await savepoint(tx, async (sp) => void (await insert(sp)));
      });
    await body(); // the connection opened, the statements prepared
    // BEGIN + insert; SAVEPOINT + insert; COMMIT (Bun's begin/savepoint: 6)
    expect(await relay.count(body)).toBe(3);
    expect(await count("id >= 100")).toBe(4);
  });

  test("a savepoint that ends right before COMMIT is not released (COMMIT keeps its work); one followed by a statement is, ahead of it", async () => {
    let id = -1000; // below the other tests' ids, which count upwards from theirs
    const insert = async (h: Db) => await pgOf(h).execute(sql`INSERT INTO p (id) VALUES (${id++})`);
    const last = () => writeTx(db, async (tx) => void (await savepoint(tx, async (sp) => void (await insert(sp)))));
    const followed = () =>
      writeTx(db, async (tx) => {
        await savepoint(tx, async (sp) => void (await insert(sp)));
        await insert(tx);
      });
    const nested = () =>
      writeTx(db, async (tx) => {
        await savepoint(tx, async (sp) => {
          await savepoint(sp, async (inner) => void (await insert(inner)));
          throw new Error("the outer savepoint's body fails after the inner one ended");
        }).catch(() => undefined);
        await insert(tx);
      });
    await last();
    await followed();
    await nested();
    // BEGIN, SAVEPOINT, insert, COMMIT
    expect(await relay.statements(last)).toBe(4);
    // BEGIN, SAVEPOINT, insert, RELEASE, insert, COMMIT
    expect(await relay.statements(followed)).toBe(6);
    // BEGIN, SAVEPOINT s0, SAVEPOINT s1, insert, ROLLBACK TO s0 (the inner RELEASE dropped with it), insert, COMMIT
    expect(await relay.statements(nested)).toBe(7);
    // every insert of last and followed committed; nested kept only the one outside its rolled-back savepoint
    expect(await count("id BETWEEN -1000 AND -900")).toBe(2 * (1 + 2) + 2);
  });

  test("a COMMIT the server answered with ROLLBACK (a statement failed, its error caught) is an error; nothing written", async () => {
    const e = await writeTx(db, async (tx) => {
      await q(tx, "INSERT INTO p (id) VALUES (1)");
      await q(tx, "SELECT 1/0").catch(() => undefined);
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CommitRolledBack);
    expect(await count("id = 1")).toBe(0);
    // the connection is clean for the next transaction
    await writeTx(db, async (tx) => void (await q(tx, "INSERT INTO p (id) VALUES (2)")));
    expect(await count("id = 2")).toBe(1);
  });

  test("a savepoint whose first statement fails rolls back to it; the transaction goes on and commits", async () => {
    await writeTx(db, async (tx) => {
      await q(tx, "INSERT INTO p (id) VALUES (3)");
      await expect(savepoint(tx, async (sp) => void (await q(sp, "INSERT INTO p (id) VALUES (3)")))).rejects.toThrow();
      await q(tx, "INSERT INTO p (id) VALUES (4)");
    });
    expect(await count("id IN (3, 4)")).toBe(2);
  });

  test("a failing first statement (sent behind BEGIN) rolls the transaction back; rolledBack leaves nothing", async () => {
    await expect(writeTx(db, async (tx) => void (await q(tx, "INSERT INTO nowhere VALUES (1)")))).rejects.toThrow();
    await rolledBack(db, async (tx) => void (await q(tx, "INSERT INTO p (id) VALUES (5)")));
    expect(await count("id = 5")).toBe(0);
    await writeTx(db, async (tx) => void (await q(tx, "INSERT INTO p (id) VALUES (6)")));
    expect(await count("id = 6")).toBe(1);
  });
});

describe("statements sent before they are awaited (issue 38: a signed create in 2 round trips)", () => {
  test("pgSend inside a transaction is on the wire at the call: BEGIN, it, SAVEPOINT and the savepoint's statement are one round trip", async () => {
    let id = 200;
    const body = () =>
      writeTx(db, async (tx) => {
        const first = pgSend(pgOf(tx), "INSERT INTO p (id) VALUES ($1) RETURNING id", [id++]);
        await savepoint(tx, async (sp) => void (await pgSend(pgOf(sp), "INSERT INTO p (id) VALUES ($1)", [id++])));
        expect((await first).length).toBe(1);
      });
    await body();
    // BEGIN + insert + SAVEPOINT + insert; RELEASE + COMMIT
    expect(await relay.count(body)).toBe(2);
    expect(await count("id >= 200")).toBe(4);
  });

  test("pgSendUnflushed outside a transaction: BEGIN, synchronous_commit off, the statement and COMMIT in one round trip; a failure writes nothing and leaves the connection usable", async () => {
    const send = (id: number, extra = "") => pgSendUnflushed<{ id: number; sc: string }>(pgOf(db), `INSERT INTO p (id) VALUES ($1) RETURNING id, current_setting('synchronous_commit') AS sc${extra}`, [id]);
    await send(300);
    let rows: { id: number; sc: string }[] = [];
    expect(await relay.count(async () => void (rows = await send(301)))).toBe(1);
    expect(rows).toEqual([{ id: 301, sc: "off" }]);
    await expect(send(301)).rejects.toThrow(); // a unique violation: its error, nothing written
    await expect(send(302, ", 1/0 AS boom")).rejects.toThrow();
    expect(await count("id >= 300")).toBe(2);
    // the setting is the transaction's only (the pool has one connection; the test cluster runs with it off)
    await q(db, "SET synchronous_commit = on");
    expect((await send(303))[0]!.sc).toBe("off");
    expect((await q(db, "SELECT current_setting('synchronous_commit') AS sc"))[0]!.sc).toBe("on");
    expect(await count("id >= 300")).toBe(3);
  });
});
