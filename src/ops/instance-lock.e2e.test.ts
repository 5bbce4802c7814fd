// DESIGN 16 "One instance": two `serve` processes on one database. The second exits
// non-zero naming the first; CLI commands still run beside the gateway; after the first
// is SIGKILLed (no clean-up at all) a new one starts at once.
import { afterAll, expect, test } from "bun:test";
import { rmSync, writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, runCli, startGatewayProcess, tempSetup, type TempSetup } from "../testing/process";
import { freePort } from "../testing/wait";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The same database behind another port (a port clash must not be what stops the second). */
async function secondConfig(s: TempSetup): Promise<TempSetup> {
  const port = await freePort();
  const configPath = join(s.dir, "second.toml");
  writeFileSync(configPath, readFileSync(s.configPath, "utf8").replace(`port = ${s.port}`, `port = ${port}`));
  return { ...s, configPath, port, url: `http://127.0.0.1:${port}` };
}

test("a second serve on the same database exits non-zero naming the first; after SIGKILL of the first a new one starts", async () => {
  const s = await tempSetup();
  dirs.push(s.dir);
  const first = await startGatewayProcess(s);
  try {
    // CLI commands run beside the serving gateway.
    const made = runCli(["merchant", "create", "--name", "beside", "--json", "--config", s.configPath], s.env);
    expect(made.code).toBe(0);
    expect(runCli(["backup", "--out", join(s.dir, "beside.db"), "--config", s.configPath], s.env).code).toBe(0);

    const s2 = await secondConfig(s);
    const second = Bun.spawn([BUN, join(ROOT, "src/main.ts"), "serve", "--config", s2.configPath], { cwd: ROOT, env: s2.env, stdout: "pipe", stderr: "pipe" });
    // Today's failure mode was a second gateway that keeps running: give it 20 s, then stop it.
    const code = await Promise.race([second.exited, Bun.sleep(20_000).then(() => (second.kill("SIGKILL"), "still running"))]);
    const err = await new Response(second.stderr).text();
    expect(code).not.toBe(0);
    expect(err.trim()).toBe(`another stablegate is serving ${s.dbPath} (pid ${first.proc.pid})`);
    expect(await fetch(s2.url + "/healthz").catch(() => null)).toBeNull();
    // The first is untouched.
    expect((await fetch(s.url + "/healthz")).status).toBe(200);

    expect(await first.kill("SIGKILL")).not.toBe(0);
    const third = await startGatewayProcess(s2);
    expect((await fetch(s2.url + "/healthz")).status).toBe(200);
    expect(await third.kill("SIGTERM")).toBe(0);
  } finally {
    first.proc.kill("SIGKILL");
  }
}, 60_000);
