// The routes over real HTTP on 127.0.0.1: headers, JSON shapes, 404s, escaping.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { MemoryCheckout, sampleDeposit, sampleOrder } from "../testing/checkout-memory";
import { checkoutRoutes } from "./routes";

const store = new MemoryCheckout();
const logged: unknown[] = [];
let app: { stop(): unknown; server: { port?: number } | null };
let base = "";

beforeAll(() => {
  store.addOrder("tok_waiting", sampleOrder());
  store.addOrder("tok_evil", sampleOrder({ merchantName: `<img src=x onerror=alert(1)>"'&`, orderNo: "<b>PI1</b>" }));
  store.addOrder("tok_paid", sampleOrder({ status: "completed", paidAmount: "12.345600", confirmations: 3, txHash: "ab" }));
  store.addOrder("tok_rpc", sampleOrder({ chainCode: "BSC", tokenSymbol: "USDC" }));
  store.deposits.set("dep_1", sampleDeposit({ label: "<i>vip</i>" }));
  store.sandboxChains.delete("BSC");
  const server = new Elysia()
    .use(
      checkoutRoutes({
        ...store.deps(),
        onError: (_context, err) => logged.push(err),
        findOrder: async (t) => {
          if (t === "tok_boom") throw new Error("database is locked at /secret/path.ts:12");
          return store.findOrder(t);
        },
      }),
    )
    .listen({ hostname: "127.0.0.1", port: 0 });
  app = server as unknown as typeof app;
  base = `http://127.0.0.1:${server.server!.port}`;
});

afterAll(() => {
  app.stop();
});

const NOT_FOUND_JSON = { code: 10002, message: "not found", data: null, requestId: null };

describe("checkout page", () => {
  test("is served with strict security headers whose nonce matches the inline style and script", async () => {
    const res = await fetch(`${base}/checkout/tok_waiting`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    const html = await res.text();
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(html).toContain(`<script nonce="${nonce}">`);
    // No inline handlers or style attributes: the CSP would block them.
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/\sstyle=/i);
    // Everything comes from the gateway itself.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  test("a fresh nonce per response", async () => {
    const a = (await fetch(`${base}/checkout/tok_waiting`)).headers.get("content-security-policy");
    const b = (await fetch(`${base}/checkout/tok_waiting`)).headers.get("content-security-policy");
    expect(a).not.toBe(b);
  });

  test("escapes every interpolated value", async () => {
    const html = await (await fetch(`${base}/checkout/tok_evil`)).text();
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("<b>PI1</b>");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
    expect(html).toContain("&lt;b&gt;PI1&lt;/b&gt;");
  });

  test("shows amount, network, address and an inline QR", async () => {
    const html = await (await fetch(`${base}/checkout/tok_waiting`)).text();
    expect(html).toContain("12.3456");
    expect(html).toContain("USDT on TRON (TRC20)");
    expect(html).toContain("TJRabPrwbZy45sbavfcjinPJC18kjpRTv8");
    expect(html).toMatch(/<svg class="qr"[^>]*role="img"/);
    expect(html).toContain('data-testid="sandbox-badge"');
  });

  test("no sandbox badge or simulate button on a chain in rpc mode", async () => {
    const html = await (await fetch(`${base}/checkout/tok_rpc`)).text();
    expect(html).toContain("USDC on BNB Smart Chain (BEP20)");
    expect(html).not.toContain('data-testid="sandbox-badge"');
    expect(html).not.toContain('data-action="simulate"');
  });

  test.each(["/checkout/nope", "/checkout/..%2F..%2Fetc", `/checkout/${"a".repeat(200)}`, "/deposit/nope"])(
    "%s is a friendly 404 page",
    async (path) => {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
      const html = await res.text();
      expect(html).toContain("Payment link not found");
    },
  );

  test("the 404 page follows Accept-Language", async () => {
    const html = await (await fetch(`${base}/checkout/nope`, { headers: { "accept-language": "zh-CN" } })).text();
    expect(html).toContain("找不到付款链接");
  });

  test("a failing lookup shows a friendly page, not the error", async () => {
    const res = await fetch(`${base}/checkout/tok_boom`);
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(html).toContain("Something went wrong");
    expect(html).not.toContain("database is locked");
    expect(html).not.toContain("/secret/path.ts");
    const json = await fetch(`${base}/checkout/tok_boom/status`);
    expect(json.status).toBe(500);
    expect(await json.text()).not.toContain("database is locked");
    // The operator still gets the real error.
    expect(logged.map(String).join()).toContain("database is locked");
  });
});

describe("status JSON", () => {
  test("an open order", async () => {
    const before = Date.now();
    const res = await fetch(`${base}/checkout/tok_waiting/status`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const json = (await res.json()) as Record<string, unknown>;
    expect(json).toMatchObject({ status: "waiting_payment", amount: "12.345600", paidAmount: null, confirmations: 0 });
    expect(json.serverTime as number).toBeGreaterThanOrEqual(before);
    expect(JSON.stringify(json)).not.toContain("Acme");
  });

  test.each(["/checkout/nope/status", "/deposit/nope/status"])("%s is a 404 JSON error", async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(NOT_FOUND_JSON);
  });
});

describe("simulate", () => {
  test("404 outside sandbox, for unknown orders and on GET", async () => {
    for (const path of ["/checkout/tok_rpc/simulate", "/checkout/nope/simulate"]) {
      const res = await fetch(`${base}${path}`, { method: "POST" });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual(NOT_FOUND_JSON);
    }
    expect((await fetch(`${base}/checkout/tok_waiting/simulate`)).status).toBe(404);
  });

  test("409 once the order is no longer waiting", async () => {
    const res = await fetch(`${base}/checkout/tok_paid/simulate`, { method: "POST" });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { code: number }).code).toBe(10001);
  });

  test("moves a waiting order to detected", async () => {
    store.addOrder("tok_sim", sampleOrder());
    store.allow(0);
    const res = await fetch(`${base}/checkout/tok_sim/simulate`, { method: "POST" });
    expect(res.status).toBe(200);
    const json = (await (await fetch(`${base}/checkout/tok_sim/status`)).json()) as Record<string, unknown>;
    expect(json).toMatchObject({ status: "detected", paidAmount: "12.345600", confirmations: 1 });
    store.allow(Number.POSITIVE_INFINITY);
  });
});

describe("deposit page", () => {
  test("shows address, network and escaped label; status lists deposits", async () => {
    const res = await fetch(`${base}/deposit/dep_1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = await res.text();
    expect(html).toContain("0x52908400098527886E0F7030069857D2E4169EE7");
    expect(html).toContain("USDC on BNB Smart Chain (BEP20)");
    expect(html).toContain("&lt;i&gt;vip&lt;/i&gt;");
    expect(html).toMatch(/<svg class="qr"/);
    const json = (await (await fetch(`${base}/deposit/dep_1/status`)).json()) as Record<string, unknown>;
    expect(json.recentDeposits).toEqual([]);
    expect(Object.keys(json).sort()).toEqual(["chainCode", "recentDeposits", "serverTime", "tokenSymbol"]);
  });
});
