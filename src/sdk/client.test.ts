import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { ApiError, StablegateClient, type PayinOrder } from "./client";

let gw: TestGateway;
let client: StablegateClient;
beforeAll(async () => {
  gw = await startTestGateway({ jobs: false });
  client = new StablegateClient({ baseUrl: gw.url + "/", merchantUid: gw.merchant.uid, apiKey: gw.merchant.apiKey });
});
afterAll(() => gw.stop());

const failure = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected an ApiError");
};

/** Distinct nonces the gateway recorded for the test merchant. */
const recordedNonces = () =>
  (gw.ctx.db.$client.query("SELECT nonce FROM nonces WHERE merchant_id = ?").all(gw.merchant.id) as Array<{ nonce: string }>).map((r) => r.nonce);

describe("pay-in methods against a real gateway", () => {
  test("createPayinOrder and getPayinOrder give typed orders", async () => {
    const created: PayinOrder = await client.createPayinOrder({
      chainCode: "TRON",
      tokenSymbol: "USDT",
      merchantOrderNo: "sdk-1",
      amount: "10.5",
      notifyUrl: "https://shop.example/cb",
    });
    expect(created.orderNo).toMatch(/^PI/);
    expect(created.status).toBe("waiting_payment");
    const again = await client.getPayinOrder(created.orderNo);
    expect(again.orderNo).toBe(created.orderNo);
    expect(again.amount).toBe(created.amount);
  });

  test("createExclusiveBinding and getExclusiveBinding with a bindKey that needs encoding", async () => {
    const bindKey = "user/42 ?#%é";
    const b = await client.createExclusiveBinding({ chainCode: "BSC", tokenSymbol: "USDC", bindKey, label: "Zoë" });
    expect(b.bindKey).toBe(bindKey);
    expect(b.addressType).toBe("exclusive");
    const detail = await client.getExclusiveBinding(bindKey, { chainCode: "BSC", tokenSymbol: "USDC", recentLimit: 3 });
    expect(detail.bindingId).toBe(b.bindingId);
    expect(detail.stats.totalOrders).toBe(0);
    expect(detail.recentOrders).toEqual([]);
  });

  test("errors are ApiErrors with the spec body: code, message, requestId", async () => {
    const e = await failure(client.getPayinOrder("PI-does-not/exist"));
    expect(e.status).toBe(404);
    expect(e.code).toBe(40108);
    expect(e.message).toBe("Pay-in order does not exist");
    expect(e.requestId).toMatch(/^req_/);
    expect(e.isAuthFailure).toBe(false);

    const v = await failure(client.createPayinOrder({ chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "sdk-bad", amount: "1.1234567", notifyUrl: "https://shop.example/cb" }));
    expect(v.code).toBe(10001);
    expect(v.data).toMatchObject({ fields: { amount: expect.any(String) } });

    const c = await failure(client.getExclusiveBinding("k", { chainCode: "ETH" as never, tokenSymbol: "USDT" }));
    expect(c.code).toBe(31001);
  });

  test("a wrong key is an auth failure", async () => {
    const bad = new StablegateClient({ baseUrl: gw.url, merchantUid: gw.merchant.uid, apiKey: "mch_nope" });
    const e = await failure(bad.getPayinOrder("PI1"));
    expect(e.code).toBe(20005);
    expect(e.isAuthFailure).toBe(true);
  });
});

describe("payout methods against a real gateway", () => {
  test("getPayoutOrder and submitPayoutOrder of an unknown order: 54001", async () => {
    expect((await failure(client.getPayoutOrder("PO-none"))).code).toBe(54001);
    expect((await failure(client.submitPayoutOrder("PO-none", { remark: "retry" }))).code).toBe(54001);
  });

  test("createPayoutOrder validates like the server says", async () => {
    const e = await failure(
      client.createPayoutOrder({ chainCode: "TRON", tokenSymbol: "USDC", toAddress: "TQ8mV8bP9yZ9mPZcKpDqRyQm4pA7a7f2Fh", amount: "1", merchantOrderNo: "po-1", notifyUrl: "https://shop.example/cb" }),
    );
    expect(e.code).toBe(31003);
  });
});

describe("retries", () => {
  /** A real HTTP front that answers 503 to the first `failFirst` requests, then forwards to the gateway. */
  function flakyFront(failFirst: number) {
    const seen: Array<{ nonce: string | null; timestamp: string | null }> = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        seen.push({ nonce: req.headers.get("x-nonce"), timestamp: req.headers.get("x-timestamp") });
        if (seen.length <= failFirst) return new Response("upstream down", { status: 503 });
        const url = new URL(req.url);
        return fetch(gw.url + url.pathname + url.search, { method: req.method, headers: req.headers, body: req.method === "GET" ? undefined : await req.arrayBuffer() });
      },
    });
    return { url: `http://127.0.0.1:${server.port}`, seen, stop: () => server.stop(true) };
  }

  test("5xx is retried, each attempt freshly signed; the last attempt succeeds", async () => {
    const front = flakyFront(2);
    try {
      const c = new StablegateClient({ baseUrl: front.url, merchantUid: gw.merchant.uid, apiKey: gw.merchant.apiKey, retries: 2, retryDelayMs: 1 });
      const b = await c.createExclusiveBinding({ chainCode: "TRON", tokenSymbol: "USDT", bindKey: "retry-1" });
      expect(b.bindKey).toBe("retry-1");
      expect(front.seen).toHaveLength(3);
      expect(new Set(front.seen.map((s) => s.nonce)).size).toBe(3);
      expect(recordedNonces()).toContain(front.seen[2]!.nonce!);
    } finally {
      void front.stop();
    }
  });

  test("without retries a 5xx becomes an ApiError carrying the status", async () => {
    const front = flakyFront(1);
    try {
      const c = new StablegateClient({ baseUrl: front.url, merchantUid: gw.merchant.uid, apiKey: gw.merchant.apiKey });
      const e = await failure(c.getPayinOrder("PI1"));
      expect(e.status).toBe(503);
      expect(e.code).toBe(10000);
      expect(front.seen).toHaveLength(1);
    } finally {
      void front.stop();
    }
  });

  test("a network error is retried with a new nonce; 4xx answers are not retried", async () => {
    const nonces: string[] = [];
    let calls = 0;
    const c = new StablegateClient({
      baseUrl: gw.url,
      merchantUid: gw.merchant.uid,
      apiKey: gw.merchant.apiKey,
      retries: 3,
      retryDelayMs: 1,
      fetch: async (url, init) => {
        nonces.push((init.headers as Record<string, string>)["x-nonce"]!);
        if (++calls === 1) throw new TypeError("connection reset");
        return fetch(url, init);
      },
    });
    const e = await failure(c.getPayinOrder("PI-missing"));
    expect(e.code).toBe(40108);
    expect(calls).toBe(2);
    expect(new Set(nonces).size).toBe(2);
  });

  test("a refused connection fails after the retries", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}`;
    void closed.stop(true);
    const c = new StablegateClient({ baseUrl: url, merchantUid: "M1", apiKey: "mch_x", retries: 1, retryDelayMs: 1 });
    await expect(c.getPayinOrder("PI1")).rejects.toThrow();
  });
});

test("the SDK imports nothing but its own files and node built-ins (no server code, no packages)", () => {
  const dir = import.meta.dir;
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
    const specs = [...readFileSync(join(dir, f), "utf8").matchAll(/^\s*(?:import|export)\b[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]!);
    // NodeNext needs the extension on relative imports.
    for (const spec of specs) expect(spec, `${f} imports ${spec}`).toMatch(/^(\.\/[a-z-]+\.js|node:[a-z]+)$/);
  }
});
