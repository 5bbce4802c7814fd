// The instance lock in one process (two handles conflict like two processes do); the
// two-process case with SIGKILL is in src/ops/instance-lock.e2e.test.ts.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { acquireInstanceLock, AnotherInstance, lockPathOf, servingPid } from "./instance-lock";

const dir = mkdtempSync(join(tmpdir(), "stablegate-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("one holder per database; the second is told who holds it; released, it can be taken again", () => {
  const db = join(dir, "a.db");
  expect(servingPid(db)).toBeNull();
  const lock = acquireInstanceLock(db, process.pid);
  expect((statSync(lockPathOf(db)).mode & 0o777).toString(8)).toBe("600");
  expect(servingPid(db)).toBe(process.pid);
  let err: unknown;
  try {
    acquireInstanceLock(db, 5555);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(AnotherInstance);
  expect((err as Error).message).toBe(`another stablegate is serving ${db} (pid ${process.pid})`);
  // Another database beside it is independent.
  acquireInstanceLock(join(dir, "b.db")).release();
  lock.release();
  expect(servingPid(db)).toBeNull();
  const again = acquireInstanceLock(db, process.ppid);
  expect(servingPid(db)).toBe(process.ppid);
  again.release();
});
