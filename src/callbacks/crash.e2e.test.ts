// At-least-once across a crash: the gateway runs as a real child process, is
// killed with SIGKILL mid-burst, restarted, and every callback still arrives.
import { afterAll, expect, test } from "bun:test";
import { writeTx } from "../db/client";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { loadConfig } from "../config/load";
import { openStore } from "../app/context";
import { initDataFolder } from "../app/data-folder";
import { createMerchant } from "../merchants/service";
import { callbacks } from "../db/schema";
import { startReceiver } from "../testing/receiver";
import { enqueueTestCallback } from "../testing/callbacks";
import { eventually } from "../testing/wait";
import { mapSeq } from "../lib/async-seq";

const dir = mkdtempSync(join(tmpdir(), "stablegate-crash-"));
const env = { ...process.env, STABLEGATE_MASTER_KEY: "crash-test-master-key" };
const children: Subprocess[] = [];
const receiver = startReceiver([{ status: 200, delayMs: 40 }]);
let store: Awaited<ReturnType<typeof openStore>> | null = null;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill(9);
  await Promise.all(children.map((c) => c.exited));
  await receiver.stop();
  store?.db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const cfgPath = join(dir, "stablegate.toml");
writeFileSync(
  cfgPath,
  `[server]
host = "127.0.0.1"
port = 0
[database]
path = "${join(dir, "stablegate.db")}"
[log]
level = "warn"
[callbacks]
allow_private_targets = true
retry_delays = ["300ms", "600ms"]
timeout = "2s"
concurrency = 16
[chains.TRON]
enabled = false
[chains.BSC]
enabled = false
[chains.SOL]
enabled = false
`,
);

async function serve(): Promise<Subprocess<"ignore", "pipe", "pipe">> {
  const child = Bun.spawn([process.execPath, "src/main.ts", "serve", "--config", cfgPath], { env, stdout: "pipe", stderr: "pipe" });
  children.push(child);
  // Ready once the banner is out.
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("is running")) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`gateway exited before it was ready: ${await new Response(child.stderr).text()}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return child;
}

test("SIGKILL mid-burst, restart: every callback is delivered at least once", async () => {
  const loaded = loadConfig(cfgPath);
  await initDataFolder(loaded, env);
  store = await openStore(loaded, env);
  const { db, cipher } = store;
  const { merchant } = await createMerchant({ db, cipher, now: () => Date.now() }, { name: "Crash Shop" });

  const first = await serve();
  // BEGIN IMMEDIATE waits (busy_timeout) for the running gateway; a deferred transaction would fail with SQLITE_BUSY.
  const ids = await writeTx(db, async () => await mapSeq(Array.from({ length: 300 }), async () => await enqueueTestCallback(db, { merchantId: merchant.id, url: receiver.url + "/cb" })));
  await receiver.waitFor((r) => r.length >= 60, 20_000);
  first.kill(9);
  expect(await first.exited).not.toBe(0);

  const states = db.select({ state: callbacks.state }).from(callbacks).all();
  const delivered = states.filter((s) => s.state === "delivered").length;
  // Killed mid-burst: work was cut off in flight and much was still queued.
  expect(delivered).toBeLessThan(300);

  const second = await serve();
  await eventually(
    () => db.select({ state: callbacks.state }).from(callbacks).all().every((s) => s.state === "delivered"),
    30_000,
    "all callbacks delivered after restart",
  );
  const arrived = new Set(receiver.requests.map((r) => JSON.parse(r.text).eventId as string));
  expect(ids.filter((id) => !arrived.has(id))).toEqual([]);

  // Graceful stop after the burst.
  second.kill("SIGTERM");
  expect(await second.exited).toBe(0);
}, 60_000);
