// Operations endpoints on a sandbox gateway: sandbox flag, Host header routing, and
// the Prometheus exposition read back with a real parser after a pay-in and a payout.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { randomAddress } from "../wallet/hd";
import { parseConfig } from "../config/load";
import { startReceiver } from "../testing/receiver";
import { startCallbackWorker } from "../callbacks/worker";
import { sql } from "drizzle-orm";
import { testSql } from "../testing/engine-rows";

type Obj = Record<string, any>;
const TOKEN = "metrics-token-0123456789";
let gw: TestGateway;
let sb: ReturnType<typeof sandboxClient>;

beforeAll(async () => {
  gw = await startTestGateway({ jobs: false, config: { ops: { metrics: true, metrics_token: TOKEN }, chains: { TRON: { confirmations: 3 } } } });
  sb = sandboxClient(gw.url);
});
afterAll(() => gw.stop());

/** One HTTP/1.1 request over a raw socket, so the Host header is exactly what we send. */
const rawGet = (port: number, path: string, host: string) => rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1", () => s.write(request));
    let out = "";
    s.on("data", (d) => (out += d.toString()));
    s.on("end", () => resolve(out));
    s.on("error", reject);
  });
}

describe("sandbox safety (DESIGN 8)", () => {
  test.each([
    [{ chains: { BSC: { mode: "rpc", rpc_urls: ["http://127.0.0.1:1"] } } }, true],
    [{ chains: { BSC: { mode: "rpc", rpc_urls: ["http://127.0.0.1:1"] } }, sandbox: { allow_mixed: true } }, false],
    [{ chains: { BSC: { mode: "rpc", rpc_urls: ["http://127.0.0.1:1"] }, TRON: { enabled: false }, SOL: { enabled: false } } }, false],
    [{}, false],
  ])("config %o refused: %p", (raw, refused) => {
    if (refused) expect(() => parseConfig(raw)).toThrow("sandbox.allow_mixed");
    else expect(() => parseConfig(raw)).not.toThrow();
  });

  test("a sandbox gateway says so in /healthz and /readyz", async () => {
    const h = await fetch(gw.url + "/healthz");
    expect(h.status).toBe(200);
    // DESIGN 22: a SQLite gateway is alone on its database, so it is the leader.
    expect(await h.json()).toMatchObject({ status: "ok", sandbox: true, role: "leader" });
    // Jobs are off here: until a watcher has read its chain's head the gateway is not ready.
    const before = await fetch(gw.url + "/readyz");
    expect(before.status).toBe(503);
    expect(((await before.json()) as Obj).reasons).toContain("TRON: the watcher has not read the chain head yet");
    for (const w of gw.gateway.runtime.watchers.values()) await w.tick();
    const r = await fetch(gw.url + "/readyz");
    const body = (await r.json()) as Obj;
    expect(r.status).toBe(200);
    expect(body).toMatchObject({ status: "ready", sandbox: true, database: { writable: true }, reasons: [] });
    expect(body.chains.map((c: Obj) => c.chainCode).sort()).toEqual(["BSC", "SOL", "TRON"]);
    expect(body.chains[0]).toMatchObject({ mode: "sandbox", rpc: [] });
  });

  test("the start-up warning names a non-loopback public_url", async () => {
    const other = await startTestGateway({ jobs: false, config: { server: { public_url: "https://pay.example.com" } } });
    try {
      expect(other.logs.some((l) => l.includes('"level":"warn"') && l.includes("sandbox mode on a public address"))).toBe(true);
      // ops.metrics is off by default: no /metrics at all.
      expect((await fetch(other.url + "/metrics")).status).toBe(404);
    } finally {
      await other.stop();
    }
    expect(gw.logs.some((l) => l.includes("sandbox mode on a public address"))).toBe(false);
  });
});

test.each(["api", "a", "localhost", "pay.example.com:8443"])("Host: %s routes normally", async (host) => {
  const res = await rawGet(gw.gateway.port, "/healthz?x=1", host);
  expect(res.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  expect(res).toContain('"status":"ok"');
  const docs = await rawGet(gw.gateway.port, "/openapi.json", host);
  expect(docs.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  // A body survives the re-addressing too.
  const body = JSON.stringify({ chainCode: "SOL", count: 1 });
  const post = await rawRequest(gw.gateway.port, `POST /sandbox/blocks HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  expect(post.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
  expect(post).toContain('"blockNumber"');
});

describe("/metrics", () => {
  test("needs the bearer token when ops.metrics_token is set", async () => {
    expect((await fetch(gw.url + "/metrics")).status).toBe(401);
    expect((await fetch(gw.url + "/metrics", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
  });

  test("every DESIGN 14 name parses with sane values after a pay-in and a payout", async () => {
    // A pay-in paid and completed.
    const o = await gw.client.request<Obj>("POST", "/openapi/payin/orders", { body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "M-1", amount: "12.5", notifyUrl: "https://shop.example/cb" } });
    await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: o.address, amount: "12.5" });
    await sb.mine("TRON", 2);
    expect((await gw.client.request<Obj>("GET", `/openapi/payin/orders/${o.orderNo}`)).status).toBe("completed");
    // A payout from that address, confirmed.
    const p = await gw.client.request<Obj>("POST", "/openapi/payout/orders", {
      body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "P-1", fromAddress: o.address, toAddress: randomAddress("TRON"), amount: "2", notifyUrl: "https://shop.example/po" },
    });
    await sb.mine("TRON", 3);
    expect((await gw.client.request<Obj>("GET", `/openapi/payout/orders/${p.orderNo}`)).status).toBe("confirmed");
    await fetch(gw.url + "/no/such/route/123");
    // Deliver the callbacks of the payout to a real receiver.
    const receiver = startReceiver();
    await testSql(gw.ctx.db, sql`UPDATE callbacks SET url = ${receiver.url + "/po"} WHERE order_no = ${p.orderNo}`);
    const worker = await startCallbackWorker(gw.ctx);
    try {
      worker.kick();
      await receiver.waitFor((r) => r.length >= 3, 10_000);
    } finally {
      await worker.stop();
      await receiver.stop();
    }

    const res = await fetch(gw.url + "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const families = new Map(parsePrometheusTextFormat(await res.text()).map((f) => [f.name, f]));
    const samples = (name: string) => {
      const f = families.get(name);
      expect(f, name).toBeDefined();
      return f!.metrics;
    };
    const value = (name: string, labels: Record<string, string> = {}) =>
      Number(samples(name).find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? NaN);

    // HTTP: labels are route templates, never raw paths.
    const routes = new Set(samples("stablegate_http_requests_total").map((m) => m.labels!.route));
    expect(routes.has("/openapi/payin/orders")).toBe(true);
    expect(routes.has("/openapi/payin/orders/:orderNo")).toBe(true);
    expect(routes.has("unmatched")).toBe(true);
    for (const r of routes) expect(r).not.toContain(o.orderNo);
    expect(value("stablegate_http_requests_total", { route: "/openapi/payin/orders", status: "200" })).toBeGreaterThanOrEqual(1);
    // (this parser keeps only the buckets of histogram samples)
    const inf = samples("stablegate_http_request_duration_seconds").map((m) => Number(m.buckets?.["+Inf"] ?? 0));
    expect(Math.max(...inf)).toBeGreaterThanOrEqual(1);
    expect(families.get("stablegate_http_request_duration_seconds")!.type).toBe("HISTOGRAM");

    // Chains.
    const head = value("stablegate_chain_head_block", { chain: "TRON" });
    expect(head).toBeGreaterThan(0);
    expect(value("stablegate_chain_scanned_block", { chain: "TRON" })).toBe(head);
    expect(value("stablegate_chain_scan_lag_seconds", { chain: "TRON" })).toBeGreaterThanOrEqual(0);
    // Sandbox chains have no RPC endpoints: the families exist, without samples.
    expect(families.has("stablegate_rpc_endpoint_up")).toBe(true);
    expect(families.has("stablegate_rpc_requests_total")).toBe(true);
    expect(families.has("stablegate_gas_wallet_balance")).toBe(true);

    // Orders and callbacks.
    for (const status of ["waiting_payment", "detected", "completed"]) expect(value("stablegate_payin_transitions_total", { chain: "TRON", token: "USDT", status })).toBeGreaterThanOrEqual(1);
    for (const status of ["broadcasted", "confirmed"]) expect(value("stablegate_payout_transitions_total", { chain: "TRON", token: "USDT", status })).toBeGreaterThanOrEqual(1);
    expect(value("stablegate_callbacks_pending")).toBeGreaterThanOrEqual(3); // the pay-in's: no worker ran for them
    expect(value("stablegate_callback_deliveries_total", { outcome: "delivered" })).toBeGreaterThanOrEqual(3);
    expect(value("stablegate_unmatched_deposits")).toBe(0);
    expect(value("stablegate_reconciliation_mismatches")).toBe(0);
    // DESIGN 22: alone on SQLite, always the leader.
    expect(value("stablegate_cluster_leader")).toBe(1);
  });
});
