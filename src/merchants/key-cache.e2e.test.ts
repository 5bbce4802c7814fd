// The server caches keys and merchant rows; changes made by the CLI (another
// process, another connection) while it serves take effect on the next request.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ApiError, StablegateClient } from "../sdk/client";
import { runCli, startGatewayProcess, tempSetup, type GatewayProcess, type TempSetup } from "../testing/process";

let s: TempSetup;
let gw: GatewayProcess | undefined;
afterAll(async () => {
  await gw?.kill("SIGKILL");
  if (s) rmSync(s.dir, { recursive: true, force: true });
});

const order = (client: StablegateClient, n: string) =>
  client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: n, amount: "1.5", notifyUrl: "https://shop.example/cb" }).then(
    () => ({ ok: true as const }),
    (e: ApiError) => ({ ok: false as const, code: e.code }),
  );

test("disable, enable and key rotation by the CLI reach the running server's cache at once", async () => {
  s = await tempSetup(`[log]\nlevel = "warn"\n[auth]\nrotation_grace = "0s"`);
  const { merchantUid, apiKey } = JSON.parse(runCli(["merchant", "create", "--name", "cached", "--json", "--config", s.configPath], s.env).stdout);
  gw = await startGatewayProcess(s);
  const client = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey });
  // Cached now.
  expect((await order(client, "c-1")).ok).toBe(true);
  expect((await client.getPayinOrder("PI-nope").catch((e: ApiError) => e)) as ApiError).toMatchObject({ code: 40108 });

  expect(runCli(["merchant", "disable", merchantUid, "--config", s.configPath], s.env).code).toBe(0);
  expect(await order(client, "c-2")).toEqual({ ok: false, code: 51002 });

  expect(runCli(["merchant", "enable", merchantUid, "--config", s.configPath], s.env).code).toBe(0);
  expect((await order(client, "c-3")).ok).toBe(true);

  // Rotation with no grace: the old key stops signing requests, the new one works.
  const rotated = JSON.parse(runCli(["key", "rotate", merchantUid, "--json", "--config", s.configPath], s.env).stdout) as { apiKey: string };
  expect(await order(client, "c-4")).toEqual({ ok: false, code: 20005 });
  const next = new StablegateClient({ baseUrl: s.url, merchantUid, apiKey: rotated.apiKey });
  expect((await order(next, "c-5")).ok).toBe(true);
}, 60_000);

test("outside a transaction the version read is reused for RECHECK_MS at most, and never across a commit of this process", async () => {
  const { startTestGateway } = await import("../testing/harness");
  const { keyCache, RECHECK_MS } = await import("./key-cache");
  const { setMerchantStatus } = await import("./service");
  const { Database } = await import("bun:sqlite");
  const tg = await startTestGateway({ jobs: false });
  try {
    const { db, cipher } = tg.ctx;
    const cache = keyCache(db, cipher);
    const deps = { db, cipher, now: () => Date.now() };
    expect((await cache.lookup(tg.merchant.apiKey))?.merchant.status).toBe("active");
    // This process's change goes through a commit: the very next lookup sees it.
    await setMerchantStatus(deps, tg.merchant.uid, "disabled");
    expect((await cache.lookup(tg.merchant.apiKey))?.merchant.status).toBe("disabled");
    await setMerchantStatus(deps, tg.merchant.uid, "active");
    expect((await cache.lookup(tg.merchant.apiKey))?.merchant.status).toBe("active");
    // Another connection's change (the CLI's): seen once RECHECK_MS has passed.
    const other = new Database(tg.ctx.config.database.path);
    other.run("PRAGMA busy_timeout = 5000");
    other.run("UPDATE merchants SET status = 'disabled' WHERE id = ?", [tg.merchant.id]);
    other.close();
    await Bun.sleep(RECHECK_MS + 1);
    expect((await cache.lookup(tg.merchant.apiKey))?.merchant.status).toBe("disabled");
  } finally {
    await tg.stop();
  }
});
