import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eventually, freePort } from "../testing/wait";
import { startBscFixture, type BscFixture } from "../testing/bsc-fixture";
import { startRpcProxy, type ProxyFaults, type RpcProxy } from "../testing/rpc-proxy";
import { RpcClient, RpcError, redactUrl } from "./json-rpc";
import { TestClock } from "../lib/clock";

let fx: BscFixture;
const extra: RpcProxy[] = [];
beforeAll(async () => {
  fx = await startBscFixture();
});
afterAll(async () => {
  for (const p of extra) await p.stop();
  await fx?.stop();
});

async function proxy(faults: ProxyFaults): Promise<RpcProxy> {
  const p = await startRpcProxy(fx.node.url, faults);
  extra.push(p);
  return p;
}

/** An endpoint that takes the connection and resets it at the first request, unanswered (a node dying mid-call). */
function resetting(): string {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: (socket) => void socket.terminate() } });
  sockets.push(server);
  return `http://127.0.0.1:${server.port}`;
}
const sockets: Array<{ stop(closeActive?: boolean): void }> = [];
afterAll(() => {
  for (const s of sockets) s.stop(true);
});

describe("BSC JSON-RPC client", () => {
  const bad: Array<{ label: string; first: () => Promise<string>; timeoutMs?: number }> = [
    { label: "refuses connections (nothing listening)", first: async () => `http://127.0.0.1:${await freePort()}` },
    { label: "answers HTTP 503", first: async () => (await proxy({ down: true })).url },
    { label: "answers HTTP 429", first: async () => (await proxy({ rate429: 1 })).url },
    { label: "hangs past the request timeout", first: async () => (await proxy({ hangRate: 1, hangMs: 5_000 })).url, timeoutMs: 300 },
    { label: "resets the connection without answering (ECONNRESET)", first: async () => resetting() },
  ];
  test.each(bad)("fails over to the second URL when the first $label, and keeps using it while the first backs off", async ({ first, timeoutMs }) => {
    const good = await proxy({});
    const client = new RpcClient({ urls: [await first(), good.url], timeoutMs: timeoutMs ?? 2000, backoffBaseMs: 10_000 });
    expect(await client.request<string>("eth_chainId")).toBe("0x38");
    expect(await client.request<string>("eth_chainId")).toBe("0x38");
    expect(good.calls.get("eth_chainId")).toBe(2);
    const [h1, h2] = client.healthSnapshot();
    expect(h1.healthy).toBe(false);
    expect(h2.healthy).toBe(true);
  });

  test("an adapter whose first URL is dead still reads the chain through the second", async () => {
    const adapter = fx.adapter({ rpcUrls: [`http://127.0.0.1:${await freePort()}`, fx.proxy.url] });
    await adapter.start();
    expect((await adapter.head()).latest).toBe(await fx.node.blockNumber());
  });

  test("retries a flaky single endpoint with backoff until it answers", async () => {
    const flaky = await proxy({ failRate: 0.5, seed: 3 });
    const client = new RpcClient({ urls: [flaky.url], backoffBaseMs: 1, attempts: 20 });
    for (let i = 0; i < 20; i++) expect(await client.request<string>("eth_chainId")).toBe("0x38");
    expect(flaky.injected.fail).toBeGreaterThan(0);
  });

  test("gives up after the attempts with the last transport error", async () => {
    const dead = await proxy({ down: true });
    const client = new RpcClient({ urls: [dead.url], backoffBaseMs: 1, attempts: 3 });
    const err = await client.request("eth_chainId").catch((e) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ kind: "http", code: 503 });
    expect(dead.calls.get("eth_chainId")).toBe(3);
  });

  test("a JSON-RPC error is an answer: not retried, endpoint stays healthy", async () => {
    const p = await proxy({});
    const client = new RpcClient({ urls: [p.url] });
    const err = await client.request("eth_noSuchMethod").catch((e) => e);
    expect(err).toMatchObject({ kind: "rpc" });
    expect(p.calls.get("eth_noSuchMethod")).toBe(1);
    expect(client.healthSnapshot()[0].healthy).toBe(true);
  });

  test("a batch answers each call in order, errors in place, in one HTTP request", async () => {
    const p = await proxy({});
    const client = new RpcClient({ urls: [p.url] });
    const out = await client.batch([
      { method: "eth_chainId", params: [] },
      { method: "eth_noSuchMethod", params: [] },
      { method: "eth_getBlockByNumber", params: ["0x0", false] },
    ]);
    expect(out[0]).toBe("0x38");
    expect(out[1]).toBeInstanceOf(RpcError);
    expect((out[2] as { number: string }).number).toBe("0x0");
    expect(p.httpRequests()).toBe(1);
  });

  test("the proxy refuses eth_getLogs wider than its limit, inside a batch too", async () => {
    const p = await proxy({ maxLogRange: 5 });
    const client = new RpcClient({ urls: [p.url] });
    const logs = (from: number, to: number) => ({ method: "eth_getLogs", params: [{ fromBlock: "0x" + from.toString(16), toBlock: "0x" + to.toString(16) }] });
    const [ok, refused] = await client.batch([logs(0, 4), logs(0, 5)]);
    expect(Array.isArray(ok)).toBe(true);
    expect(refused).toMatchObject({ kind: "rpc", code: -32005 });
  });
});

test.each([
  ["https://bsc.example.com/v1/SECRETKEY123", "https://bsc.example.com/…"],
  ["https://user:pass@bsc.example.com/", "https://bsc.example.com/…"],
  ["https://bsc.example.com/?apikey=SECRET", "https://bsc.example.com/…"],
  ["http://127.0.0.1:8545", "http://127.0.0.1:8545"],
  ["http://127.0.0.1:8545/", "http://127.0.0.1:8545"],
])("an RPC URL is logged as %s -> %s", (url, shown) => {
  expect(redactUrl(url)).toBe(shown);
});

describe("endpoint health as /readyz and the metrics read it", () => {
  test("up until 3 requests in a row failed, up again at the first success; outcomes counted; close() ends calls at once", async () => {
    const p = await proxy({});
    // Backoff pauses run on this clock: the test moves it instead of waiting them out.
    const clock = new TestClock(Date.now());
    const client = new RpcClient({ urls: [p.url], backoffBaseMs: 1, clock });
    await client.request("eth_chainId");
    p.setFaults({ down: true });
    const twice = client.request("eth_chainId", [], { attempts: 2 }).catch(() => {});
    await eventually(() => p.injected.down === 1 && clock.pending === 1, 5000, "first attempt failed, the second waiting out the backoff");
    await clock.advance(10);
    await twice;
    expect(client.healthSnapshot()[0]).toMatchObject({ up: true, failures: 2 });
    await clock.advance(10); // past its backoff: the next call tries it at once
    await client.request("eth_chainId", [], { attempts: 1 }).catch(() => {});
    expect(client.healthSnapshot()[0]).toMatchObject({ up: false, failures: 3, lastError: expect.stringContaining("HTTP 503") });
    p.setFaults({});
    await clock.advance(10); // its backoff is over
    await client.request("eth_chainId");
    expect(client.healthSnapshot()[0]).toMatchObject({ up: true, failures: 0, outcomes: { ok: 2, http: 3 } });

    p.setFaults({ hangRate: 1, hangMs: 30_000 });
    const t0 = Date.now();
    const pending = client.request("eth_chainId").catch((e) => e);
    await eventually(() => p.injected.hang === 1, 5000, "the request is in flight, hanging");
    client.close();
    expect(await pending).toBeInstanceOf(RpcError);
    expect(Date.now() - t0).toBeLessThan(1000);
    p.setFaults({});
  });
});
