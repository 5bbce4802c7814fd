// TRON adapter against the fake node: start-up checks, head/finality, failover between
// URLs, backoff on TronGrid's 403/429, the API-key header, and what gets logged.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort } from "../../testing/wait";
import { startTronFixture, TRON_TOKENS, type TronFixture } from "../../testing/tron-fixture";
import { startTronNode, type TronNode } from "../../testing/tron-node";
import { TronRpc, TronRpcError } from "./rpc";

let fx: TronFixture;
const extra: TronNode[] = [];
beforeAll(async () => {
  fx = await startTronFixture({ solidLag: 3 });
  fx.node.mine(10);
});
afterAll(async () => {
  for (const n of extra) await n.stop();
  await fx?.stop();
});

describe("TRON adapter start-up", () => {
  test("starts when the configured decimals match the chain", async () => {
    await fx.adapter().start();
  });

  test("a decimals mismatch stops start-up and names the token", async () => {
    const tokens = TRON_TOKENS.map((t) => ({ ...t, decimals: 18 }));
    await expect(fx.adapter({ tokens }).start()).rejects.toThrow(/TRON USDT \(TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\) has 6 decimals on chain, config says 18/);
  });

  test("a contract address without a contract stops start-up", async () => {
    const tokens = TRON_TOKENS.map((t) => ({ ...t, contract: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7" }));
    await expect(fx.adapter({ tokens }).start()).rejects.toThrow(/TRON USDT: no token contract at TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7/);
  });

  test("head: latest from the full node, final from the solidified block", async () => {
    const h = await fx.adapter().head();
    expect(h.latest).toBe(BigInt(fx.node.chain.head.number));
    expect(h.final).toBe(h.latest - 3n);
    expect(h.time).toBe(fx.node.chain.head.timestamp);
    expect(await fx.adapter().blockHash(h.latest)).toBe(fx.node.chain.head.blockID);
    expect(await fx.adapter().blockHash(h.latest + 5n)).toBeNull();
  });
});

describe("TRON HTTP client", () => {
  const bad: Array<{ label: string; first: () => Promise<string> }> = [
    { label: "refuses connections", first: async () => `http://127.0.0.1:${await freePort()}` },
    { label: "answers HTTP 503", first: async () => (await node({ down: true })).url },
    { label: "answers HTTP 429", first: async () => (await node({ rate429: 1 })).url },
    { label: "answers HTTP 403 (TronGrid frequency limit)", first: async () => (await node({ rate403: 1 })).url },
  ];
  async function node(faults: Parameters<TronNode["setFaults"]>[0]) {
    const n = await startTronNode({ faults });
    extra.push(n);
    return n;
  }

  test.each(bad)("fails over to the second URL when the first $label, and keeps using it while the first backs off", async ({ first }) => {
    const rpc = new TronRpc({ urls: [await first(), fx.node.url], backoffBaseMs: 10_000, rateLimitBackoffMs: 10_000 });
    fx.node.resetCounts();
    await rpc.post("wallet/getnowblock");
    await rpc.post("wallet/getnowblock");
    expect(fx.node.calls.get("wallet/getnowblock")).toBe(2);
    const [h1, h2] = rpc.healthSnapshot();
    expect(h1.healthy).toBe(false);
    expect(h2.healthy).toBe(true);
  });

  test("a 403/429 pause is at least rateLimitBackoffMs, even on the first failure", async () => {
    const limited = await node({ rate429: 1 });
    const rpc = new TronRpc({ urls: [limited.url, fx.node.url], backoffBaseMs: 1, rateLimitBackoffMs: 60_000 });
    await rpc.post("wallet/getnowblock");
    for (let i = 0; i < 5; i++) await rpc.post("wallet/getnowblock");
    expect(limited.injected.http429).toBe(1);
  });

  test("one endpoint suspended for a while (TronGrid 403 + 30 s block, here 150 ms): the call waits it out and succeeds", async () => {
    const n = await node({});
    n.setFaults({ rate403: 1, suspendMs: 150 });
    const rpc = new TronRpc({ urls: [n.url], backoffBaseMs: 20, rateLimitBackoffMs: 60, attempts: 10 });
    // Turn the dice off after the first hit: only the suspension remains.
    setTimeout(() => n.setFaults({}), 100);
    const b = await rpc.post<{ blockID: string }>("wallet/getnowblock");
    expect(b.blockID).toBe(n.chain.head.blockID);
    expect(n.injected.http403).toBeGreaterThanOrEqual(1);
  });

  test("gives up after the attempts with the last HTTP error", async () => {
    const dead = await node({ down: true });
    const rpc = new TronRpc({ urls: [dead.url], backoffBaseMs: 1, attempts: 3 });
    const err = await rpc.post("wallet/getnowblock").catch((e) => e);
    expect(err).toBeInstanceOf(TronRpcError);
    expect(err).toMatchObject({ kind: "http", status: 503 });
    expect(dead.calls.get("wallet/getnowblock")).toBe(3);
  });

  test("the API key goes in TRON-PRO-API-KEY; a node requiring it answers; the key is never logged", async () => {
    const n = await node({ requireApiKey: "secret-key-123" });
    const lines: string[] = [];
    const logger = { info: (o: object) => lines.push(JSON.stringify(o)), warn: (o: object) => lines.push(JSON.stringify(o)), error: (o: object) => lines.push(JSON.stringify(o)) };
    const withKey = new TronRpc({ urls: [n.url], apiKey: "secret-key-123", logger });
    expect((await withKey.post<{ blockID: string }>("wallet/getnowblock")).blockID).toBe(n.chain.head.blockID);
    expect(n.apiKeys.has("secret-key-123")).toBe(true);
    // A key in the URL path (some providers): the fake does not serve that path, and the URL is logged redacted.
    const pathKey = new TronRpc({ urls: [n.url + "/SECRET2"], apiKey: "secret-key-123", backoffBaseMs: 1, attempts: 2, logger });
    await expect(pathKey.post("wallet/getnowblock")).rejects.toMatchObject({ status: 404 });
    expect(n.calls.get("SECRET2/wallet/getnowblock")).toBe(2);
    const noKey = new TronRpc({ urls: [n.url], backoffBaseMs: 1, attempts: 2, logger });
    await expect(noKey.post("wallet/getnowblock")).rejects.toMatchObject({ status: 401 });
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) {
      expect(l).not.toContain("secret-key-123");
      expect(l).not.toContain("SECRET2");
    }
  });

  test("an adapter whose first URL is dead reads the chain through the second", async () => {
    const a = fx.adapter({ rpcUrls: [`http://127.0.0.1:${await freePort()}`, fx.node.url] });
    await a.start();
    expect((await a.head()).latest).toBe(BigInt(fx.node.chain.head.number));
  });
});

describe("TRON addresses", () => {
  test("validated and normalised as base58check", () => {
    const a = fx.adapter();
    expect(a.isValidAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe(true);
    expect(a.isValidAddress("41a614f803b6fd780986a42c78ec9c7f77e6ded13c")).toBe(false);
    expect(a.normalizeAddress("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t");
  });
});
