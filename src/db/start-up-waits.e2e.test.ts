// Start-up and CLI commands wait out a lock another process holds (busy_timeout is the first
// pragma of every connection), then say which process held it (issue 37 "Start-up waits").
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { runCliAsync, tempSetups, type TempSetup } from "../testing/process";
import { acquireInstanceLock } from "./instance-lock";
import { BUSY_TIMEOUT_MS, PRAGMAS } from "./client";

const setup = tempSetups();

/** Another connection (as another process would) holding the database's write lock for `ms`, or until `until` settles. */
function holdWriteLock(s: TempSetup, until: number | Promise<unknown>): Promise<void> {
  const db = new Database(s.dbPath);
  db.run("PRAGMA busy_timeout = 5000");
  db.run("BEGIN IMMEDIATE");
  db.run("INSERT INTO settings (key, value, updated_at) VALUES ('lock-test', 'x', 1)");
  const release = () => {
    db.run("ROLLBACK");
    db.close();
  };
  if (typeof until !== "number") return until.then(release, release);
  return new Promise((resolve) =>
    setTimeout(() => {
      release();
      resolve();
    }, until),
  );
}

test("busy_timeout is the first pragma of a connection", () => {
  expect(PRAGMAS[0]).toBe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
});

test("merchant create beside a held write lock waits for it and succeeds", async () => {
  const s = await setup();
  const held = holdWriteLock(s, 1500);
  const r = await runCliAsync(["merchant", "create", "--name", "shop", "--json", "--config", s.configPath], s.env);
  await held;
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).merchantUid).toMatch(/^M\d{7}$/);
});

test("a lock held past the timeout: the command fails, changes nothing and names the process holding it", async () => {
  const s = await setup();
  // This process stands in for the serving gateway: it holds the instance lock (publishing its pid) and the write lock.
  const lock = acquireInstanceLock(s.dbPath);
  try {
    // Held until the command has ended, however long its start takes on a busy machine: it gives up by itself.
    const ended = Promise.withResolvers<void>();
    const held = holdWriteLock(s, ended.promise);
    const r = await runCliAsync(["merchant", "create", "--name", "shop", "--json", "--config", s.configPath], s.env);
    ended.resolve();
    await held;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the database ${s.dbPath} stayed locked for 5 s: the stablegate serving it (pid ${process.pid})`);
    const db = new Database(s.dbPath, { readonly: true });
    expect((db.query("SELECT count(*) AS n FROM merchants").get() as { n: number }).n).toBe(0);
    db.close();
  } finally {
    lock.release();
  }
});
