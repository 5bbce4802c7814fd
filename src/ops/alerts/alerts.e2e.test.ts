// Alert scenarios on a sandbox gateway: callbacks_failing, payout_failed,
// unmatched_deposit and reconciliation_mismatch each fire once (webhook verified
// with the standardwebhooks library, and the fake Telegram), resolve once, and a
// fresh engine on the same database (a restart) does not fire them again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { startTestGateway, type TestGateway } from "../../testing/harness";
import { seedRows } from "../../testing/seed";
import { startReceiver, type Receiver } from "../../testing/receiver";
import { sandboxClient } from "../../testing/sandbox";
import { startCallbackWorker } from "../../callbacks/worker";
import { addresses, ledgerEntries, transfers } from "../../db/schema";
import { cancelOrder } from "../../payin/operator";
import { dismissDeposit } from "../../payin/unmatched";
import { CLI_ACTOR } from "../../audit/log";
import { reconcileChain } from "../../payout/balances";
import { randomAddress } from "../../wallet/hd";
import { AlertEngine } from "./engine";
import { listAlerts } from "./store";
import { runCli } from "../../testing/process";
import { writeFileSync } from "node:fs";
import { TestClock } from "../../lib/clock";
import { eventually } from "../../testing/wait";
import { join } from "node:path";

type Obj = Record<string, any>;
const SECRET = "whsec_" + Buffer.from("alert-secret-for-tests-0123456789").toString("base64");
let gw: TestGateway;
let hook: Receiver;
let telegram: Receiver;
let sb: ReturnType<typeof sandboxClient>;
// Callback retries come due as the test moves this clock.
const clock = new TestClock(Date.now());

beforeAll(async () => {
  hook = startReceiver();
  telegram = startReceiver(() => ({ status: 200, body: '{"ok":true,"result":{}}' }));
  gw = await startTestGateway({
    clock,
    jobs: false,
    config: {
      callbacks: { retry_delays: ["100ms", "100ms"], timeout: "500ms" },
      alerts: { webhook_url: hook.url + "/alerts", webhook_secret: SECRET, telegram_bot_token: "123:bot-token-secret", telegram_chat_id: "-10042", telegram_api_base: telegram.url },
    },
  });
  sb = sandboxClient(gw.url);
});
afterAll(async () => {
  await gw?.stop();
  await hook?.stop();
  await telegram?.stop();
});

const tick = () => gw.gateway.runtime.ops.alerts.tick();
/** Webhook deliveries, each verified as Standard Webhooks; returns their parsed bodies. */
const webhookEvents = () =>
  hook.requests.map((r) => {
    const verified = new Webhook(SECRET).verify(r.text, r.headers) as Obj;
    return { type: verified.type as string, condition: verified.data.condition as string, subject: verified.data.subject as string, id: r.headers["webhook-id"] };
  });
const telegramTexts = () => telegram.requests.map((r) => JSON.parse(r.text) as { chat_id: string; text: string });
const count = (type: string, condition: string) => webhookEvents().filter((e) => e.type === type && e.condition === condition).length;

describe("alerts", () => {
  test("unmatched_deposit fires once, stays quiet while open, resolves once when the deposit is dismissed", async () => {
    const o = await gw.client.request<Obj>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "U-1", amount: "7", notifyUrl: "https://shop.example/cb" } });
    // The order is cancelled first: a different amount to an address with no open order is unmatched.
    await cancelOrder(gw.ctx, o.orderNo as string, CLI_ACTOR);
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "7.000001" });
    await sb.mine("TRON", 20);
    const r1 = await tick();
    expect(r1.fired.map((a) => a.condition)).toEqual(["unmatched_deposit"]);
    await tick();
    await tick();
    expect(count("alert.fired", "unmatched_deposit")).toBe(1);
    const tg = telegramTexts().filter((t) => t.text.includes("unmatched_deposit"));
    expect(tg).toHaveLength(1);
    expect(tg[0].chat_id).toBe("-10042");
    expect(tg[0].text).toContain("FIRING");
    expect(telegram.requests[0].path).toBe("/bot123:bot-token-secret/sendMessage");

    // A restart: a fresh engine on the same database does not fire it again.
    const fresh = new AlertEngine({ ctx: gw.ctx, watchers: gw.gateway.runtime.watchers, gas: gw.gateway.runtime.ops.gas, storage: gw.gateway.runtime.ops.storage });
    expect((await fresh.tick()).fired).toEqual([]);

    const t = gw.ctx.db.select().from(transfers).where(eq(transfers.disposition, "unmatched")).get()!;
    await dismissDeposit(gw.ctx, t.id, "returned to the payer off-chain", CLI_ACTOR);
    const r2 = await tick();
    expect(r2.resolved.map((a) => a.condition)).toEqual(["unmatched_deposit"]);
    await tick();
    expect(count("alert.resolved", "unmatched_deposit")).toBe(1);
    expect(telegramTexts().filter((x) => x.text.includes("RESOLVED unmatched_deposit"))).toHaveLength(1);
    expect((await listAlerts(gw.ctx.db)).find((a) => a.condition === "unmatched_deposit")).toMatchObject({ status: "resolved", subject: "gateway" });
  });

  test("callbacks_failing fires once when a callback gives up", async () => {
    const worker = await startCallbackWorker(gw.ctx);
    try {
      await gw.client.request<Obj>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "C-1", amount: "3", notifyUrl: "http://127.0.0.1:9/unreachable" } });
      const attempts = () => (gw.ctx.db.$client.query("SELECT count(*) AS n FROM callback_attempts").get() as { n: number }).n;
      const failed = () => (gw.ctx.db.$client.query("SELECT count(*) AS n FROM callbacks WHERE state = 'failed'").get() as { n: number }).n;
      for (const n of [1, 2]) {
        await eventually(() => attempts() >= n, 10_000, `delivery attempt ${n}`);
        await clock.advance(200); // the retry (100 ms) is due at the next poll (200 ms)
      }
      await eventually(failed, 10_000, "the callback gave up");
    } finally {
      await worker.stop();
    }
    expect((await tick()).fired.map((a) => a.condition)).toEqual(["callbacks_failing"]);
    await tick();
    expect(count("alert.fired", "callbacks_failing")).toBe(1);
    expect(telegramTexts().filter((x) => x.text.includes("FIRING callbacks_failing"))).toHaveLength(1);
  });

  test("payout_failed and reconciliation_mismatch fire once each", async () => {
    // A ledger credit the chain does not have: the node refuses the payout, reconciliation sees the gap.
    const b = await gw.client.request<Obj>("POST", "/openapi/payin/exclusive-bindings", { body: { chainCode: "TRON", tokenSymbol: "USDT", bindKey: "gap" } });
    await tick();
    const addressId = gw.ctx.db.select().from(addresses).where(eq(addresses.address, b.address)).get()!.id;
    await seedRows(gw.ctx.db, (tx) => void tx.insert(ledgerEntries).values({ addressId, chain: "TRON", token: "USDT", kind: "adjustment", amount: "5000000", refType: "test", refId: "gap-1", createdAt: Date.now() }).run());
    const p = await gw.client.request<Obj>("POST", "/openapi/payout/orders", {
      body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "PF-1", fromAddress: b.address, toAddress: randomAddress("TRON"), amount: "5", notifyUrl: "https://shop.example/po" },
    });
    expect(p.status).toBe("failed");
    await reconcileChain(gw.ctx, gw.ctx.chains.get("TRON")!);
    const r = await tick();
    expect(r.fired.map((a) => `${a.condition}:${a.subject}`).sort()).toEqual(["payout_failed:gateway", "reconciliation_mismatch:TRON"]);
    await tick();
    expect(count("alert.fired", "payout_failed")).toBe(1);
    expect(count("alert.fired", "reconciliation_mismatch")).toBe(1);
    const fired = await listAlerts(gw.ctx.db, { status: "firing" });
    expect(fired.find((a) => a.condition === "payout_failed")!.message).toContain(p.orderNo);
  });

  test("every delivery is signed and carries a distinct webhook-id; nothing was sent twice", () => {
    const events = webhookEvents();
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    const tampered = { ...hook.requests[0].headers };
    expect(() => new Webhook(SECRET).verify(hook.requests[0].text.replace("unmatched", "unmatcheD"), tampered)).toThrow();
    expect(gw.ctx.db.$client.query("SELECT count(*) AS n FROM alert_notifications WHERE state != 'sent'").get()).toEqual({ n: 0 });
    // The bot token never reaches a log line.
    expect(gw.logs.join("\n")).not.toContain("bot-token-secret");
  });

  test("stablegate alerts list --json shows the incidents, newest first; --firing only open ones", () => {
    const config = join(gw.dir, "cli.toml");
    writeFileSync(config, `[database]\npath = "${gw.ctx.config.database.path}"\n`);
    const env = { ...(process.env as Record<string, string>), STABLEGATE_MASTER_KEY: "test-master-key-" + gw.dir };
    const all = runCli(["alerts", "list", "--json", "--config", config], env);
    expect(all.stderr).toBe("");
    const rows = JSON.parse(all.stdout) as Obj[];
    expect(rows.map((r) => r.condition).sort()).toEqual(["callbacks_failing", "payout_failed", "reconciliation_mismatch", "unmatched_deposit"]);
    expect(rows[rows.length - 1]).toMatchObject({ condition: "unmatched_deposit", status: "resolved" });
    const firing = JSON.parse(runCli(["alerts", "list", "--firing", "--json", "--config", config], env).stdout) as Obj[];
    expect(firing.every((r) => r.status === "firing")).toBe(true);
    expect(firing).toHaveLength(3);
  });
});
