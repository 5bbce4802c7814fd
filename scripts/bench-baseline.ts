// The yardsticks of DESIGN 11: bare Bun.serve + bun:sqlite endpoints with the
// same HMAC and the same durability (WAL, synchronous FULL, one commit per
// request). What they lack is the gateway itself: key lookup, validation, the
// address pool, idempotency, the framework. Modes:
// - full:   create; nonce + order + outbox rows in minimal tables (no secondary indexes);
// - schema: create; the same rows in the gateway's own schema (its indexes);
// - get:    signed GET; verify, record the nonce durably, read the order row (gateway schema).
import { Database } from "bun:sqlite";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { canonicalBody } from "../src/auth/signing";
import { migrations } from "../migrations/index";
import { PRAGMAS } from "../src/db/client";

const [port, dbPath, apiKey, uid, mode = "schema"] = process.argv.slice(2);
const db = new Database(dbPath, { create: true });
for (const p of PRAGMAS) db.run(p);
if (mode === "full") {
  db.run("CREATE TABLE nonces (merchant_id INTEGER NOT NULL, nonce TEXT NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (merchant_id, nonce))");
  db.run(`CREATE TABLE payin_orders (id INTEGER PRIMARY KEY, order_no TEXT NOT NULL, merchant_id INTEGER NOT NULL, merchant_order_no TEXT NOT NULL, mode TEXT, chain TEXT, token TEXT,
          decimals INTEGER, amount TEXT, address_id TEXT, address TEXT, notify_url TEXT, api_key_id TEXT, status TEXT, checkout_token TEXT, expire_at INTEGER, created_at INTEGER, updated_at INTEGER)`);
  db.run(`CREATE TABLE callbacks (id TEXT PRIMARY KEY, merchant_id INTEGER, kind TEXT, order_no TEXT, order_status TEXT, api_key_id TEXT, url TEXT, payload TEXT, state TEXT,
          next_attempt_at INTEGER, created_at INTEGER, updated_at INTEGER)`);
} else {
  for (const m of migrations) for (const s of m.sql.split("--> statement-breakpoint")) if (s.trim()) db.run(s);
}
db.run("PRAGMA foreign_keys = OFF"); // no merchant/address rows to point at
const insNonce = db.prepare("INSERT INTO nonces (merchant_id, nonce, expires_at) VALUES (1, ?, ?) ON CONFLICT DO NOTHING");
const insOrder = db.prepare(
  `INSERT INTO payin_orders (order_no, merchant_id, merchant_order_no, mode, chain, token, decimals, amount, address_id, address, notify_url, api_key_id, status, checkout_token, expire_at, created_at, updated_at)
   VALUES (?, 1, ?, 'shared', 'TRON', 'USDT', 6, ?, 'AD1', 'T', ?, 'AK1', 'waiting_payment', ?, ?, ?, ?)`,
);
const insOutbox = db.prepare(
  `INSERT INTO callbacks (id, merchant_id, kind, order_no, order_status, api_key_id, url, payload, state, next_attempt_at, created_at, updated_at)
   VALUES (?, 1, 'payin', ?, 'waiting_payment', 'AK1', ?, ?, 'pending', ?, ?, ?)`,
);
const byOrderNo = db.prepare<Record<string, unknown>, [string]>("SELECT * FROM payin_orders WHERE order_no = ? AND merchant_id = 1");
let seq = 0;

if (mode === "get") {
  // The orders the GETs read (bench sends order numbers G0..G{n-1}).
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < 5000; i++) insOrder.run(`G${i}`, `get-${i}`, String(i + 1), "https://shop.example/cb", randomBytes(18).toString("base64url"), now + 1_800_000, now, now);
  })();
}

function verify(req: Request, url: URL, body: string): boolean {
  const h = req.headers;
  const text = [uid, h.get("x-timestamp"), h.get("x-nonce"), req.method, url.pathname, "", body].join("\n");
  const want = createHmac("sha256", apiKey).update(text).digest("hex");
  const got = h.get("x-signature") ?? "";
  return got.length === want.length && timingSafeEqual(Buffer.from(got), Buffer.from(want));
}

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/healthz") return new Response("ok");
    const now = Date.now();
    if (req.method === "GET") {
      if (!verify(req, url, "")) return new Response("bad sig", { status: 401 });
      const fresh = db.transaction(() => insNonce.run(req.headers.get("x-nonce"), now + 600_000).changes === 1).immediate();
      if (!fresh) return new Response("replay", { status: 401 });
      const row = byOrderNo.get(decodeURIComponent(url.pathname.split("/").pop()!));
      return row ? Response.json(row) : new Response("not found", { status: 404 });
    }
    const body = await req.json();
    if (!verify(req, url, canonicalBody(body))) return new Response("bad sig", { status: 401 });
    const orderNo = `PI${now}${++seq}`;
    const payload = JSON.stringify({ orderNo, merchantOrderNo: body.merchantOrderNo, amount: body.amount, status: "waiting_payment" });
    db.transaction(() => {
      if (insNonce.run(req.headers.get("x-nonce"), now + 600_000).changes !== 1) throw new Error("replay");
      insOrder.run(orderNo, body.merchantOrderNo, body.amount, body.notifyUrl, randomBytes(18).toString("base64url"), now + 1_800_000, now, now);
      insOutbox.run("EV" + orderNo, orderNo, body.notifyUrl, payload, now, now, now);
    }).immediate();
    return Response.json({ orderNo, status: "waiting_payment" });
  },
});
