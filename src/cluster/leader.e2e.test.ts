// Leader election and the epoch fence on a real PostgreSQL (DESIGN 22 "Cluster roles"): electors
// in this process on connections of their own, and one in a child process killed with SIGKILL or
// stopped with SIGSTOP (a hung leader whose connection stays open). The takeover times are
// measured and printed (docs/operations.md "More than one gateway" quotes them).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "../testing/postgres";
import { eventually } from "../testing/wait";
import { assertEpoch, LeaderElector, leaderTimings, NotLeader } from "./leader";
import { electedRole, noLeader } from "../ops/cluster-role";
import { whileLeader } from "./while-leader";

const ROOT = join(import.meta.dir, "../..");
const DEFAULT_TAKEOVER_MS = 15_000;

let db: TestDatabase;
let admin: SQL;
const electors: LeaderElector[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  admin = new SQL({ url: db.url, max: 2 });
});
afterAll(async () => {
  for (const e of electors) await e.stop();
  await admin.close();
  await db.drop();
});

function elector(owner: string, takeoverAfterMs: number): LeaderElector {
  const e = new LeaderElector({ url: db.url, takeoverAfterMs, owner });
  electors.push(e);
  return e;
}

const waitFor = async (what: string, ok: () => boolean, timeoutMs = 10_000) => void (await eventually(ok, timeoutMs, what, 10));

/** Ends the leader's lock session from outside (a cut connection), as an operator or a network would. */
async function cutLeaderConnection(): Promise<void> {
  await admin.unsafe(`SELECT pg_terminate_backend(backend_pid::int) FROM cluster_leader WHERE id = 1`);
}

/** Stores a stand-in for a signed transaction behind the fence, on the request pool (as a payout store would). */
async function storeSigned(pool: SQL, epoch: number, key: string): Promise<void> {
  await pool.begin(async (tx) => {
    await assertEpoch(tx, epoch);
    await tx`INSERT INTO settings (key, value, updated_at) VALUES (${key}, 'signed-tx', 0)`;
  });
}

const stored = async (key: string) => ((await admin`SELECT count(*)::int AS n FROM settings WHERE key = ${key}`) as { n: number }[])[0]!.n;

describe("leader election on PostgreSQL", () => {
  test("the timings follow takeover_after: try and heartbeat every T/5, self step-down at 2T/5, a stale leader ended at 3T/5", () => {
    expect(leaderTimings(15_000)).toEqual({ takeoverAfterMs: 15_000, tickMs: 3000, selfStaleMs: 6000, staleMs: 9000, keepalive: { idleS: 3, intervalS: 2, count: 3 } });
  });

  test("three electors: exactly one leads; a clean stop hands over, with the epoch raised", async () => {
    const [a, b, c] = [elector("A", 2000), elector("B", 2000), elector("C", 2000)];
    await Promise.all([a.start(), b.start(), c.start()]);
    const leaders = () => [a, b, c].filter((e) => e.isLeader());
    expect(leaders()).toHaveLength(1);
    const first = leaders()[0]!;
    const epoch = first.epoch()!;
    expect((await first.row())?.owner).toBe(first.owner);
    const t0 = performance.now();
    await first.stop();
    await waitFor("a new leader", () => leaders().length === 1, 2000);
    const next = leaders()[0]!;
    console.log(`clean handover: ${((performance.now() - t0) / 1000).toFixed(2)} s (takeover_after 2 s)`);
    expect(next).not.toBe(first);
    expect(next.epoch()).toBe(epoch + 1);
    for (const e of [a, b, c]) await e.stop();
  }, 30_000);

  test("no_leader: a follower tells how long nobody has led, from the heartbeat's age on the database's clock", async () => {
    const a = elector("A", 2000);
    await a.start();
    const leaderRole = electedRole(a);
    expect(leaderRole.role()).toBe("leader");
    expect(await leaderRole.leaderlessFor()).toBe(0);
    // B is not started (it never tries): it only reads, as a follower that cannot take over would.
    const b = elector("B", 2000);
    const followerRole = electedRole(b);
    expect(followerRole.role()).toBe("follower");
    expect(await followerRole.leaderlessFor()).toBe(0);
    await a.stop();
    await Bun.sleep(4100);
    const ms = await followerRole.leaderlessFor();
    expect(ms).toBeGreaterThanOrEqual(4000);
    expect(noLeader(ms, followerRole.takeoverAfterMs)).toBe(true);
    await b.stop();
  }, 30_000);

  test("the epoch fence: a leader whose connection is cut loses at once; after B takes over, A's signed transaction with its old epoch is refused", async () => {
    // A long takeover_after: the test drives B's try by hand, so A's own retries do not race it.
    const a = elector("A", DEFAULT_TAKEOVER_MS);
    const b = elector("B", DEFAULT_TAKEOVER_MS);
    const events: string[] = [];
    a.on("gained", (e) => events.push(`A gained ${e}`));
    a.on("lost", (e) => events.push(`A lost ${e}`));
    b.on("gained", (e) => events.push(`B gained ${e}`));
    await a.start();
    await b.start();
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    const old = a.epoch()!;
    const pool = new SQL({ url: db.url, max: 2 });
    try {
      await storeSigned(pool, old, "fence-before");
      expect(await stored("fence-before")).toBe(1);

      const t0 = performance.now();
      await cutLeaderConnection();
      await waitFor("A's lost event", () => !a.isLeader(), 5000);
      console.log(`lost after the connection was cut: ${(performance.now() - t0).toFixed(0)} ms`);
      await b.tick();
      expect(b.isLeader()).toBe(true);
      expect(b.epoch()).toBe(old + 1);
      expect(events).toEqual([`A gained ${old}`, `A lost ${old}`, `B gained ${old + 1}`]);

      // A, deposed, still has its old epoch in hand (a job that read it before the cut): refused, nothing stored.
      const refused = await storeSigned(pool, old, "fence-after").catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(NotLeader);
      expect((refused as NotLeader).current).toBe(old + 1);
      expect(await stored("fence-after")).toBe(0);
      // The new leader's epoch passes.
      await storeSigned(pool, b.epoch()!, "fence-new");
      expect(await stored("fence-new")).toBe(1);
    } finally {
      await pool.close();
      await a.stop();
      await b.stop();
    }
  }, 60_000);

  test("the leader's work runs while it leads: started with the epoch on gained, stopped at once on lost, started on the new leader", async () => {
    const a = elector("A", DEFAULT_TAKEOVER_MS);
    const b = elector("B", DEFAULT_TAKEOVER_MS);
    const log: string[] = [];
    const work = (name: string) => async (epoch: number) => {
      log.push(`${name} started ${epoch}`);
      return { stop: async () => void log.push(`${name} stopped ${epoch}`) };
    };
    const wa = whileLeader(a, work("A"));
    const wb = whileLeader(b, work("B"));
    await a.start();
    await b.start();
    const epoch = a.epoch()!;
    await waitFor("A's work", () => log.length === 1);
    expect(wa.epoch()).toBe(epoch);
    expect(wb.epoch()).toBeNull();
    await cutLeaderConnection();
    await waitFor("A's work stopped", () => log.length === 2, 5000);
    await b.tick();
    await waitFor("B's work", () => log.length === 3);
    expect(log).toEqual([`A started ${epoch}`, `A stopped ${epoch}`, `B started ${epoch + 1}`]);
    expect(wa.epoch()).toBeNull();
    await wb.stop();
    await wa.stop();
    expect(log.at(-1)).toBe(`B stopped ${epoch + 1}`);
    await a.stop();
    await b.stop();
  }, 60_000);

  test("the fence holds the epoch row: a takeover waits for a transaction in flight, which stores under the epoch it checked", async () => {
    const a = elector("A", DEFAULT_TAKEOVER_MS);
    const b = elector("B", DEFAULT_TAKEOVER_MS);
    await a.start();
    await b.start();
    const old = a.epoch()!;
    const pool = new SQL({ url: db.url, max: 2 });
    try {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let checked!: () => void;
      const afterCheck = new Promise<void>((r) => (checked = r));
      const inFlight = pool.begin(async (tx) => {
        await assertEpoch(tx, old);
        checked();
        await held;
        await tx`INSERT INTO settings (key, value, updated_at) VALUES ('fence-inflight', 'signed-tx', 0)`;
      });
      await afterCheck;
      await cutLeaderConnection();
      await waitFor("A's lost event", () => !a.isLeader(), 5000);
      const takeover = b.tick();
      await Bun.sleep(300);
      expect(b.isLeader()).toBe(false); // the epoch raise waits on the row the fence holds
      release();
      await inFlight;
      await takeover;
      expect(b.isLeader()).toBe(true);
      expect(b.epoch()).toBe(old + 1);
      expect(await stored("fence-inflight")).toBe(1);
    } finally {
      await pool.close();
      await a.stop();
      await b.stop();
    }
  }, 60_000);
});

interface Child {
  proc: ReturnType<typeof Bun.spawn>;
  waitLine(pred: (ev: { event: string; epoch?: number }) => boolean, timeoutMs: number): Promise<void>;
}

/** An elector in a process of its own (src/testing/cluster-elector.ts). */
function childElector(owner: string, takeoverAfterMs: number): Child {
  const proc = Bun.spawn([process.execPath, join(ROOT, "src/testing/cluster-elector.ts"), db.url, String(takeoverAfterMs), owner], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
  const seen: { event: string; epoch?: number }[] = [];
  void (async () => {
    let buf = "";
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += new TextDecoder().decode(value);
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith("{")) seen.push(JSON.parse(line) as { event: string; epoch?: number });
      }
    }
  })();
  return { proc, waitLine: (pred, ms) => waitFor("the child's event", () => seen.some(pred), ms) };
}

describe("takeover from a leader in another process (takeover_after at its default, 15 s)", () => {
  for (const [how, signal] of [
    ["killed with SIGKILL (its socket closes)", "SIGKILL"],
    ["hung with its connection open (SIGSTOP: the heartbeat-age rule ends its session)", "SIGSTOP"],
  ] as const) {
    test(`a leader ${how}: another gateway takes over within takeover_after`, async () => {
      await admin`DELETE FROM cluster_leader`;
      const child = childElector("child", DEFAULT_TAKEOVER_MS);
      try {
        await child.waitLine((e) => e.event === "gained", 20_000);
        const b = elector("B", DEFAULT_TAKEOVER_MS);
        const c = elector("C", DEFAULT_TAKEOVER_MS);
        await b.start();
        await c.start();
        expect(b.isLeader() || c.isLeader()).toBe(false);
        const epoch = ((await admin`SELECT epoch FROM cluster_leader`) as { epoch: string }[])[0]!.epoch;
        const t0 = performance.now();
        child.proc.kill(signal);
        await waitFor("a takeover", () => b.isLeader() || c.isLeader(), DEFAULT_TAKEOVER_MS + 5000);
        const seconds = (performance.now() - t0) / 1000;
        console.log(`takeover after a leader ${signal === "SIGKILL" ? "killed (SIGKILL)" : "hung (SIGSTOP)"}: ${seconds.toFixed(2)} s (takeover_after 15 s)`);
        expect(seconds).toBeLessThan(DEFAULT_TAKEOVER_MS / 1000);
        const leader = b.isLeader() ? b : c;
        expect(leader.epoch()).toBe(Number(epoch) + 1);
        expect([b, c].filter((e) => e.isLeader())).toHaveLength(1);
        await b.stop();
        await c.stop();
      } finally {
        child.proc.kill("SIGKILL");
        await child.proc.exited;
      }
    }, 60_000);
  }
});
