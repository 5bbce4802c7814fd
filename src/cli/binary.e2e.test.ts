// `make build` output: a single executable that runs without bun, migrates its own database and serves.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetup } from "../testing/process";
import { VERSION } from "../version";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("the compiled binary migrates, serves /healthz, backs up and prints its version, with no bun on PATH", async () => {
  const s = await tempSetup();
  dirs.push(s.dir);
  const bin = join(s.dir, "stablegate");
  const build = Bun.spawnSync([BUN, "build", join(ROOT, "src/main.ts"), "--compile", "--outfile", bin], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  expect(build.exitCode).toBe(0);
  const env = { PATH: "/usr/bin:/bin", HOME: s.dir, STABLEGATE_MASTER_KEY: s.env.STABLEGATE_MASTER_KEY };
  expect(runCli(["--version"], env, [bin]).stdout.trim()).toBe(VERSION);
  const created = runCli(["merchant", "create", "--name", "bin", "--json", "--config", s.configPath], env, [bin]);
  expect(created.code).toBe(0);
  expect(JSON.parse(created.stdout).apiKey).toMatch(/^mch_/);
  const gw = await startGatewayProcess({ ...s, env }, { cmd: [bin] });
  try {
    const r = await fetch(s.url + "/healthz");
    expect(r.status).toBe(200);
    expect((await r.json()).version).toBe(VERSION);
    // The backup's copy and checks run on an inline worker, which the binary must carry.
    const out = join(s.dir, "bin-backup.db");
    const b = runCli(["backup", "--out", out, "--config", s.configPath], env, [bin]);
    expect(b.stdout).toContain("merchants=1");
    expect(runCli(["backup", "--verify", out], env, [bin]).code).toBe(0);
  } finally {
    expect(await gw.kill("SIGTERM")).toBe(0);
  }
});
