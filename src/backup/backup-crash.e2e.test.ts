// A backup killed half-way (SIGKILL at the crash points of src/backup/write.ts) leaves
// nothing at FILE, and the next backup into that folder succeeds and clears the leftover.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempSetup } from "../testing/process";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("backup SIGKILLed after the copy or after the check leaves no file at FILE; the next one works", async () => {
  const s = await tempSetup();
  dirs.push(s.dir);
  expect(runCli(["merchant", "create", "--name", "shop", "--config", s.configPath], s.env).code).toBe(0);
  const out = join(s.dir, "nightly.db");
  for (const point of ["backup-copied", "backup-checked"]) {
    const r = runCli(["backup", "--out", out, "--config", s.configPath], { ...s.env, STABLEGATE_CRASH_AT: point });
    expect(r.code).not.toBe(0);
    expect(existsSync(out)).toBe(false);
  }
  const leftovers = () => readdirSync(s.dir).filter((f) => f.endsWith(".partial"));
  expect(leftovers().length).toBeGreaterThan(0);
  const ok = runCli(["backup", "--out", out, "--config", s.configPath], s.env);
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain("merchants=1");
  expect(leftovers()).toEqual([]);
  expect(runCli(["backup", "--verify", out], s.env).code).toBe(0);
}, 60_000);
