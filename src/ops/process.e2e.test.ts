// The gateway as an operator runs it, as a child process: quiet streams, private
// file modes after `serve` and `backup`, and SIGTERM within 5 s while the only RPC
// endpoint hangs, with nothing lost (checked after a restart).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { startBscFixture, type BscFixture } from "../testing/bsc-fixture";
import { rpcChainSetup, runCli, startGatewayProcess, tempSetup, type GatewayProcess } from "../testing/process";
import { startReceiver, type Receiver } from "../testing/receiver";
import { VERSION } from "../version";
import { eventually } from "../testing/callbacks";

type Obj = Record<string, any>;
const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe("no library noise on any stream", () => {
  test("--version, migrate and merchant create --json print exactly their output", async () => {
    const s = await tempSetup();
    cleanups.push(() => rmSync(s.dir, { recursive: true, force: true }));
    expect(runCli(["--version"], s.env)).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    expect(runCli(["migrate", "--config", s.configPath], s.env)).toEqual({ code: 0, stdout: `migrated ${s.dbPath}\n`, stderr: "" });
    const made = runCli(["merchant", "create", "--name", "Quiet", "--json", "--config", s.configPath], s.env);
    expect(made.stderr).toBe("");
    expect(made.stdout.trim().split("\n")).toHaveLength(1);
    expect(Object.keys(JSON.parse(made.stdout)).sort()).toEqual(["apiKey", "merchantUid"]);
  });
});

describe("serve with a hanging RPC endpoint", () => {
  let fx: BscFixture;
  let receiver: Receiver;
  beforeAll(async () => {
    fx = await startBscFixture();
    receiver = startReceiver();
  });
  afterAll(async () => {
    await receiver?.stop();
    await fx?.stop();
  });

  test("file modes are private; SIGTERM exits within 5 s; the order and its callback survive the restart", async () => {
    const { s, client } = await rpcChainSetup("BSC", fx.proxy.url, { confirmations: 3, pollInterval: "200ms", merchantName: "ops" });
    cleanups.push(() => rmSync(s.dir, { recursive: true, force: true }));
    let g: GatewayProcess = await startGatewayProcess(s);
    cleanups.push(() => (g.proc.exitCode === null ? g.kill("SIGKILL") : undefined));

    // The callback target hangs too: its delivery is in flight when SIGTERM comes.
    receiver.setScript([{ hang: true }]);
    const o = await client.request<Obj>("POST", "/openapi/payin/orders", { body: { chainCode: "BSC", tokenSymbol: "USDT", merchantOrderNo: "SIG-1", amount: "5", notifyUrl: receiver.url + "/cb" } });
    await receiver.waitFor((r) => r.length >= 1);

    // Modes after serve: data folder 0700, database files 0600.
    expect(mode(dirname(s.dbPath))).toBe("700");
    for (const f of [s.dbPath, `${s.dbPath}-wal`, `${s.dbPath}-shm`]) {
      expect(existsSync(f)).toBe(true);
      expect(mode(f)).toBe("600");
    }
    const backup = join(s.dir, "backup.db");
    const b = runCli(["backup", "--out", backup, "--config", s.configPath], s.env);
    expect(b.code).toBe(0);
    expect(mode(backup)).toBe("600");

    // The node stops answering; watcher ticks hang inside RPC calls.
    const hungBefore = fx.proxy.injected.hang;
    fx.proxy.setFaults({ hangRate: 1, hangMs: 120_000 });
    await eventually(() => fx.proxy.injected.hang > hungBefore, 5000, "a watcher tick hanging on the node");
    const started = Date.now();
    g.proc.kill("SIGTERM");
    await g.proc.exited;
    const took = Date.now() - started;
    if (g.proc.exitCode !== 0) console.log(g.stderr().slice(-3000));
    expect(took).toBeLessThan(5000);
    expect(g.proc.exitCode).toBe(0);
    // A hung node at shutdown is expected: nothing logged as an error.
    expect(g.stderr()).not.toContain('"level":"error"');

    // Restart with the node back and the receiver answering: the order is there and its callback arrives.
    fx.proxy.setFaults({});
    receiver.setScript([{ status: 200, body: "ok" }]);
    const before = receiver.requests.length;
    g = await startGatewayProcess(s);
    expect((await client.request<Obj>("GET", `/openapi/payin/orders/${o.orderNo}`)).status).toBe("waiting_payment");
    const got = await receiver.waitFor((r) => r.length > before, 15_000);
    expect(JSON.parse(got[got.length - 1].text)).toMatchObject({ orderNo: o.orderNo, status: "waiting_payment" });
    await g.kill("SIGTERM");
  }, 60_000);
});
