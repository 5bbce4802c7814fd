// The yardstick of DESIGN 11: a bare Bun.serve + bun:sqlite endpoint that
// verifies the same HMAC and commits comparable rows with the same durability.
import { Database } from "bun:sqlite";
import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalBody } from "../src/auth/signing";

const [port, dbPath, apiKey, uid] = process.argv.slice(2);
const db = new Database(dbPath, { create: true });
for (const p of ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA busy_timeout = 5000"]) db.run(p);
db.run("CREATE TABLE IF NOT EXISTS nonces (merchant_id INTEGER, nonce TEXT, expires_at INTEGER, PRIMARY KEY (merchant_id, nonce))");
db.run("CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, order_no TEXT UNIQUE, merchant_order_no TEXT, amount TEXT, address TEXT, status TEXT, created_at INTEGER, UNIQUE (merchant_order_no))");
db.run("CREATE TABLE IF NOT EXISTS outbox (id TEXT PRIMARY KEY, order_no TEXT, payload TEXT, created_at INTEGER)");
const insNonce = db.prepare("INSERT INTO nonces VALUES (1, ?, ?) ON CONFLICT DO NOTHING");
const insOrder = db.prepare("INSERT INTO orders (order_no, merchant_order_no, amount, address, status, created_at) VALUES (?, ?, ?, 'T', 'waiting_payment', ?)");
const insOutbox = db.prepare("INSERT INTO outbox VALUES (?, ?, ?, ?)");
let seq = 0;

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/healthz") return new Response("ok");
    const body = await req.json();
    const h = req.headers;
    const text = [uid, h.get("x-timestamp"), h.get("x-nonce"), "POST", url.pathname, "", canonicalBody(body)].join("\n");
    const want = createHmac("sha256", apiKey).update(text).digest("hex");
    const got = h.get("x-signature") ?? "";
    if (got.length !== want.length || !timingSafeEqual(Buffer.from(got), Buffer.from(want))) return new Response("bad sig", { status: 401 });
    const now = Date.now();
    const orderNo = `PI${now}${++seq}`;
    db.transaction(() => {
      if (insNonce.run(h.get("x-nonce"), now).changes !== 1) throw new Error("replay");
      insOrder.run(orderNo, body.merchantOrderNo, body.amount, now);
      insOutbox.run("EV" + orderNo, orderNo, JSON.stringify(body), now);
    }).immediate();
    return Response.json({ orderNo, status: "waiting_payment" });
  },
});
