// JSON-RPC proxy on 127.0.0.1 in front of a node: counts calls per method and injects the
// faults public BSC endpoints show (getLogs range limits, 429, hangs, random failures).

export interface ProxyFaults {
  /** eth_getLogs spanning more than this many blocks answers -32005 "limit exceeded". */
  maxLogRange?: number;
  /** Fraction of HTTP requests answered with HTTP 429. */
  rate429?: number;
  /** Every `every429`-th HTTP request (the 3rd, 6th… with 3) is answered HTTP 429, whatever the dice say. */
  every429?: number;
  /** Seconds sent as Retry-After with the every429 answers. */
  retryAfter?: number;
  /** Fraction of HTTP requests that never get an answer (until the proxy stops or hangMs passes). */
  hangRate?: number;
  /** Fraction of HTTP requests that fail: HTTP 502 or a JSON-RPC -32603 error, alternately. */
  failRate?: number;
  /** Every request answers HTTP 503, as a dead endpoint behind a load balancer would. */
  down?: boolean;
  /** How long a hung request waits before the proxy gives up on it. Default 30 s. */
  hangMs?: number;
  /** Seed of the fault dice, so a failing run can be replayed. Default 1. */
  seed?: number;
  /**
   * Answers a call itself instead of the node (a lagging or forked endpoint): the JSON-RPC
   * `result` or `error` to send, or undefined to forward the call.
   */
  answer?: (method: string, params: unknown[]) => { result: unknown } | { error: { code: number; message: string } } | undefined;
}

export interface RpcProxy {
  url: string;
  /** Calls received per JSON-RPC method (batch elements count one each), faults included. */
  calls: Map<string, number>;
  /** HTTP requests received. */
  httpRequests(): number;
  totalCalls(): number;
  injected: { range: number; http429: number; hang: number; fail: number; down: number };
  setFaults(f: ProxyFaults): void;
  resetCounts(): void;
  stop(): Promise<void>;
}

/**
 * An `answer` fault: every block-range eth_getLogs answers an empty list (a node that drops logs,
 * so the block scan sees nothing); eth_getLogs by block hash and every other call still reach the node.
 */
export const emptyRangeLogs: NonNullable<ProxyFaults["answer"]> = (method, params) => {
  const filter = (params[0] ?? {}) as { blockHash?: string };
  return method === "eth_getLogs" && !filter.blockHash ? { result: [] } : undefined;
};

/** Small seeded PRNG (mulberry32): same seed, same fault sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

export async function startRpcProxy(target: string, faults: ProxyFaults = {}): Promise<RpcProxy> {
  let f = { ...faults };
  let rand = seededRandom(f.seed ?? 1);
  const calls = new Map<string, number>();
  let http = 0;
  const injected = { range: 0, http429: 0, hang: 0, fail: 0, down: 0 };
  const hung = new Set<() => void>();
  let failToggle = false;

  async function upstream(body: unknown): Promise<unknown> {
    const res = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return res.json();
  }

  async function latest(): Promise<bigint> {
    const r = (await upstream({ jsonrpc: "2.0", id: 0, method: "eth_blockNumber", params: [] })) as { result: string };
    return BigInt(r.result);
  }

  async function blockArg(v: unknown, head: () => Promise<bigint>): Promise<bigint> {
    if (typeof v === "string" && v.startsWith("0x")) return BigInt(v);
    if (v === "earliest") return 0n;
    return head();
  }

  /** The -32005 answer when this call is an eth_getLogs over too many blocks, else null. */
  async function rangeRefusal(c: Call): Promise<unknown | null> {
    if (c.method !== "eth_getLogs" || f.maxLogRange === undefined) return null;
    const filter = (c.params?.[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };
    if (filter.blockHash) return null;
    let h: bigint | undefined;
    const head = async () => (h ??= await latest());
    const from = await blockArg(filter.fromBlock ?? "latest", head);
    const to = await blockArg(filter.toBlock ?? "latest", head);
    if (to - from + 1n <= BigInt(f.maxLogRange)) return null;
    injected.range++;
    return { jsonrpc: "2.0", id: c.id, error: { code: -32005, message: "limit exceeded" } };
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      http++;
      let body: unknown;
      try {
        body = await req.json();
      } catch {
        return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      }
      const batch = Array.isArray(body);
      const list = (batch ? body : [body]) as Call[];
      for (const c of list) calls.set(String(c?.method), (calls.get(String(c?.method)) ?? 0) + 1);

      if (f.down) {
        injected.down++;
        return new Response("service unavailable", { status: 503 });
      }
      if (f.every429 && http % f.every429 === 0) {
        injected.http429++;
        return new Response("too many requests", { status: 429, headers: f.retryAfter ? { "retry-after": String(f.retryAfter) } : {} });
      }
      // One roll per HTTP request decides its fate, in a fixed order so a seed replays exactly.
      const roll = rand();
      let edge = 0;
      if (roll < (edge += f.rate429 ?? 0)) {
        injected.http429++;
        return new Response("too many requests", { status: 429 });
      }
      if (roll < (edge += f.hangRate ?? 0)) {
        injected.hang++;
        await new Promise<void>((resolve) => {
          const done = () => {
            hung.delete(done);
            clearTimeout(t);
            resolve();
          };
          const t = setTimeout(done, f.hangMs ?? 30_000);
          hung.add(done);
        });
        return new Response("gateway timeout", { status: 504 });
      }
      if (roll < (edge += f.failRate ?? 0)) {
        injected.fail++;
        failToggle = !failToggle;
        if (failToggle) return new Response("bad gateway", { status: 502 });
        const err = (c: Call) => ({ jsonrpc: "2.0", id: c?.id ?? null, error: { code: -32603, message: "internal error (injected)" } });
        return Response.json(batch ? list.map(err) : err(list[0]));
      }

      const answers: unknown[] = new Array(list.length);
      const forward: number[] = [];
      for (let i = 0; i < list.length; i++) {
        const own = f.answer?.(String(list[i]?.method), list[i]?.params ?? []);
        const refusal = own ? { jsonrpc: "2.0", id: list[i]?.id, ...own } : await rangeRefusal(list[i]);
        if (refusal) answers[i] = refusal;
        else forward.push(i);
      }
      if (forward.length > 0) {
        const up = batch ? await upstream(forward.map((i) => list[i])) : [await upstream(list[0])];
        const byId = new Map<unknown, unknown>();
        for (const a of up as Array<{ id?: unknown }>) byId.set(a?.id, a);
        for (const i of forward) answers[i] = byId.get(list[i].id) ?? (up as unknown[])[forward.indexOf(i)];
      }
      return Response.json(batch ? answers : answers[0]);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    injected,
    httpRequests: () => http,
    totalCalls: () => [...calls.values()].reduce((a, b) => a + b, 0),
    setFaults(nf) {
      f = { ...nf };
      rand = seededRandom(f.seed ?? 1);
    },
    resetCounts() {
      calls.clear();
      http = 0;
      for (const k of Object.keys(injected) as Array<keyof typeof injected>) injected[k] = 0;
    },
    async stop() {
      for (const done of [...hung]) done();
      await server.stop(true);
    },
  };
}
