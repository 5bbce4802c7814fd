// WAL checkpoints and planner statistics off the event loop (issue 23, DESIGN 11 "Growth": no job
// holds the loop for more than 50 ms). bun:sqlite is synchronous, so SQLite's own housekeeping ran
// on the gateway's thread:
// - the automatic checkpoint (every 1,000 WAL pages) copies pages into the database file and
//   fsyncs it inside whichever commit crossed the mark: on a 4 GB database with a cold cache that
//   commit held the loop for hundreds of ms;
// - ANALYZE (PRAGMA optimize) read a big table in one statement (src/db/stats.ts).
// A worker thread with its own connection now does both: a PASSIVE checkpoint every
// CHECKPOINT_EVERY_MS when the WAL grew (it never takes the write lock and never waits: in WAL mode the writer goes
// on appending while it copies), and the statistics by reads, which the gateway writes in one
// short transaction. Under steady writes it also has the WAL rewound (REWIND_FRAMES): a pass under
// the gateway's write mutex, so the next write starts the WAL over. The gateway's connection keeps
// an automatic checkpoint only as a backstop (BACKSTOP_PAGES, reached only if the worker falls far
// behind, a reader pins old frames, or the worker dies; a dead worker puts SQLite's default back). The worker's code is inline (a Blob URL) like the backup worker's, so
// `bun build --compile` needs no extra entry point.
import { BUSY_TIMEOUT_MS, type Db } from "./client";
import { acquireWrite } from "./write-lock";
import type { Logger } from "../lib/logger";
import { applyStats, gatherStats, REANALYZE_FACTOR, type StatRow } from "./stats";

export const CHECKPOINT_EVERY_MS = 250;
/** The gateway's own automatic checkpoint while the worker runs (pages of 4 KiB: 40 MB of WAL). */
export const BACKSTOP_PAGES = 10_000;
/**
 * WAL frames past which the worker has the WAL rewound (pages of 4 KiB: 16 MB). SQLite writes the
 * WAL from its start again only when a write transaction begins with every frame checkpointed.
 * Under steady writes the worker's PASSIVE checkpoint never catches the last frame (commits keep
 * coming while it copies), so the WAL grew to the backstop, where the gateway's own COMMIT
 * checkpointed on the event loop: 10-15 ms of a blocked loop every ~1,400 creates at full load
 * (docs/performance.md "Issue 37: the WAL's rewind"). Past this mark the worker asks for the
 * gateway's write mutex and, while the gateway holds it for it, checkpoints the frames its last
 * pass left (writes queue meanwhile; the loop runs on); the next write then rewinds the WAL.
 */
export const REWIND_FRAMES = 4000;
/** SQLite's default, put back when the worker stops. */
const DEFAULT_AUTOCHECKPOINT = 1000;

const workerSource = () => `
import { Database } from "bun:sqlite";
const gatherStats = ${gatherStats.toString()};
let db = null;
let timer = null;
let seen = -1;
let behind = true;
let rewindFrames = 0;
let asked = false;
const checkpoint = () => {
  const r = db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  behind = r.log > r.checkpointed;
  // The WAL is long: the gateway takes its write mutex and sends "rewind".
  if (rewindFrames > 0 && r.log >= rewindFrames && !asked) {
    asked = true;
    postMessage({ id: 0, ok: true, event: "rewind", value: r });
  }
  return r;
};
// Only when the WAL grew: a commit by the gateway since the last look (data_version moves), or
// frames the last checkpoint could not copy yet (a reader held them). An idle gateway's worker
// then reads one counter instead of taking the checkpoint locks 4 times a second (issue 37).
const checkpointIfGrown = () => {
  const v = db.query("PRAGMA data_version").get().data_version;
  if (v === seen && !behind) return;
  seen = v;
  checkpoint();
};
self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.op === "open") {
      db = new Database(m.path, { readwrite: true, create: false });
      // First pragma: the statistics' reads wait out a lock (a WAL recovery after a kill -9);
      // a PASSIVE checkpoint never calls the busy handler, so it still never waits.
      db.run("PRAGMA busy_timeout = " + m.busyMs);
      rewindFrames = m.rewindFrames;
      timer = setInterval(() => {
        try {
          checkpointIfGrown();
        } catch (err) {
          postMessage({ id: 0, ok: false, error: String((err && err.message) || err) });
        }
      }, m.everyMs);
      postMessage({ id: m.id, ok: true });
    } else if (m.op === "rewind") {
      // The gateway holds its write mutex: this pass copies every frame (but those a reader of an
      // older snapshot still needs) and the next write transaction starts the WAL over. PASSIVE,
      // not RESTART: RESTART would lock the readers' marks and make the gateway's reads spin.
      asked = false;
      postMessage({ id: m.id, ok: true, value: checkpoint() });
    } else if (m.op === "checkpoint") {
      postMessage({ id: m.id, ok: true, value: checkpoint() });
    } else if (m.op === "stats") {
      postMessage({ id: m.id, ok: true, value: gatherStats(db, m.factor) });
    } else if (m.op === "close") {
      clearInterval(timer);
      db.close();
      postMessage({ id: m.id, ok: true });
    }
  } catch (err) {
    postMessage({ id: m.id, ok: false, error: String((err && err.message) || err) });
  }
};
`;

let url: string | null = null;

type Checkpointed = { busy: number; log: number; checkpointed: number };
type Reply = { id: number; ok: true; value?: unknown; event?: "rewind" } | { id: number; ok: false; error: string };

export class DbMaintenance {
  private readonly worker: Worker;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private failed = false;
  private stopped = false;
  /** WAL rewinds run (the worker's checkpoints under the gateway's write mutex). */
  rewinds = 0;
  /** Wall time the gateway's write mutex was held for them, in all. */
  rewindMs = 0;

  /** Starts the worker on the database file of `db` (a file, not :memory:). */
  constructor(
    private readonly db: Db,
    path: string,
    private readonly logger: Logger,
    everyMs = CHECKPOINT_EVERY_MS,
    rewindFrames = REWIND_FRAMES,
  ) {
    url ??= URL.createObjectURL(new Blob([workerSource()], { type: "application/javascript" }));
    this.worker = new Worker(url);
    (this.worker as Worker & { unref(): void }).unref(); // never what keeps the process alive
    this.worker.onmessage = (e: MessageEvent<Reply>) => {
      const r = e.data;
      if (r.ok && r.event === "rewind") return void this.rewindWal();
      const w = this.waiting.get(r.id);
      if (w) {
        this.waiting.delete(r.id);
        if (r.ok) w.resolve(r.value);
        else w.reject(new Error(r.error));
      } else if (!r.ok) this.logger.warn("database maintenance: checkpoint failed", { error: r.error });
    };
    this.worker.onerror = (e) => this.fail(`database maintenance worker failed: ${(e as ErrorEvent).message ?? e}`);
    db.$client.run(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    this.call({ op: "open", path, everyMs, busyMs: BUSY_TIMEOUT_MS, rewindFrames }).catch((e) => this.fail(String((e as Error).message)));
  }

  private fail(why: string): void {
    if (this.failed || this.stopped) return;
    this.failed = true;
    this.logger.error("database maintenance stopped: checkpoints back on the gateway's connection", { error: why });
    this.db.$client.run(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    for (const w of this.waiting.values()) w.reject(new Error(why));
    this.waiting.clear();
  }

  private call(msg: Record<string, unknown>): Promise<unknown> {
    if (this.failed) return Promise.reject(new Error("database maintenance worker is not running"));
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id });
    });
  }

  /**
   * Has the WAL rewound (REWIND_FRAMES): the gateway's write mutex is taken (a group under way
   * finishes first; the next ones queue, the loop keeps parsing requests and reading), the worker
   * checkpoints what its last pass left, the mutex is released, and the next write transaction
   * finds every frame copied and writes the WAL from its start. When a reader still needed old
   * frames (or another process wrote meanwhile) the WAL goes on growing; the worker asks again on a
   * later pass, and the backstop stays.
   */
  private async rewindWal(): Promise<void> {
    if (this.failed || this.stopped) return;
    const release = await acquireWrite(this.db.$client);
    const t0 = performance.now();
    try {
      if (this.failed || this.stopped) return;
      await this.call({ op: "rewind" });
      this.rewinds++;
    } catch (e) {
      this.logger.warn("database maintenance: WAL rewind failed", { error: String((e as Error).message ?? e) });
    } finally {
      release();
      this.rewindMs += performance.now() - t0;
    }
  }

  /** A PASSIVE checkpoint now (tests; the worker runs one every CHECKPOINT_EVERY_MS by itself). */
  checkpoint(): Promise<Checkpointed> {
    return this.call({ op: "checkpoint" }) as Promise<Checkpointed>;
  }

  /**
   * Planner statistics of the tables that need them, gathered by the worker and written here
   * (one short transaction); the tables refreshed.
   */
  async refreshStats(): Promise<string[]> {
    const s = (await this.call({ op: "stats", factor: REANALYZE_FACTOR })) as { tables: string[]; rows: StatRow[] };
    if (this.stopped) return [];
    await applyStats(this.db, s);
    return s.tables;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    try {
      // A statistics run in progress is not waited for past a second (shutdown has 5 s in all).
      if (!this.failed) await Promise.race([this.call({ op: "close" }), Bun.sleep(1000)]);
    } catch {
      // Closing a worker that failed: nothing to wait for.
    } finally {
      this.stopped = true;
      this.worker.terminate();
      this.db.$client.run(`PRAGMA wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    }
  }
}
