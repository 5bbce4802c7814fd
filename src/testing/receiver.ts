// A real merchant callback endpoint for tests: Bun.serve on 127.0.0.1 that
// records each request's raw body bytes, headers and arrival time, and answers
// from a script (status, body, delay, or hang until stopped).
export interface ReceivedRequest {
  /** Date.now() at arrival. */
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  raw: Uint8Array;
  text: string;
}

export interface Reply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer after this long. */
  delayMs?: number;
  /** Never answer (until the receiver stops). */
  hang?: boolean;
}

/** n is the 0-based index of the request among all this receiver got. */
export type Script = (req: ReceivedRequest, n: number) => Reply;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  setScript(s: Script | Reply[]): void;
  /** Resolves when `pred(requests)` holds; rejects after timeoutMs. */
  waitFor(pred: (r: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<ReceivedRequest[]>;
  stop(): Promise<void>;
}

const toScript = (s: Script | Reply[] | undefined): Script => {
  if (!s) return () => ({ status: 200, body: "ok" });
  if (typeof s === "function") return s;
  // A list answers in turn; its last entry repeats.
  return (_r, n) => s[Math.min(n, s.length - 1)] ?? { status: 200 };
};

export function startReceiver(script?: Script | Reply[]): Receiver {
  let current = toScript(script);
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // slow and hanging replies are the point
    async fetch(req) {
      const at = Date.now();
      const raw = new Uint8Array(await req.arrayBuffer());
      const headers: Record<string, string> = {};
      req.headers.forEach((v, k) => (headers[k] = v));
      const rec: ReceivedRequest = {
        at,
        method: req.method,
        path: new URL(req.url).pathname + new URL(req.url).search,
        headers,
        raw,
        text: new TextDecoder().decode(raw),
      };
      const n = requests.push(rec) - 1;
      const reply = current(rec, n);
      if (reply.hang) {
        await new Promise<void>((resolve) => hanging.add(resolve));
        return new Response("stopped", { status: 503 });
      }
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      return new Response(reply.body ?? "", { status: reply.status ?? 200, headers: reply.headers });
    },
  });
  const port = server.port!;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setScript(s) {
      current = toScript(s);
    },
    async waitFor(pred, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pred(requests)) {
        if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs}ms (${requests.length} requests so far)`);
        await Bun.sleep(20);
      }
      return requests;
    },
    async stop() {
      for (const r of hanging) r();
      hanging.clear();
      await server.stop(true);
    },
  };
}
