// The binary survives a rejected promise nobody awaits (review R11): Bun ends a process with exit 1
// on an unhandled rejection unless a handler is installed; src/main.ts installs one that logs it
// (masked) and lets the process run on. A preload makes the rejection once main.ts has started.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const dir = mkdtempSync(join(tmpdir(), "sg-unhandled-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = "mch_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2";
const preload = join(dir, "reject.ts");
// Rejects once the entry has installed its handler (module loading takes a few turns), or after
// REJECT_AFTER_MS (5 s; 0 for a script that installs none).
writeFileSync(
  preload,
  `const t0 = Date.now();
const t = setInterval(() => {
  if (!process.listeners("unhandledRejection").length && Date.now() - t0 < Number(process.env.REJECT_AFTER_MS ?? 5000)) return;
  clearInterval(t);
  void Promise.reject(new Error("a store write failed for ${key}"));
}, 1);
`,
);

function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([process.execPath, "--preload", preload, ...args], { cwd: resolve(import.meta.dir, "../.."), env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

test("R11: without a handler Bun exits 1 on the rejection (the reason for the handler)", () => {
  expect(run(["-e", "setTimeout(() => console.log('alive'), 500)"], { REJECT_AFTER_MS: "0" })).toMatchObject({ code: 1, stdout: "" });
});

test("R11: the binary logs the rejection masked, at error level, and exits normally", () => {
  const r = run(["src/main.ts", "--version"]);
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toMatch(/^\d+\.\d+/);
  const line = r.stderr.split("\n").find((l) => l.includes("unhandled promise rejection"));
  expect(line).toBeDefined();
  expect(JSON.parse(line!)).toMatchObject({ level: "error" });
  expect(line).toContain("a store write failed for mch_Zz9Y");
  expect(r.stderr).not.toContain(key);
});
