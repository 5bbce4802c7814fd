// The yardstick of DESIGN 11: a bare Bun.serve + bun:sqlite endpoint that
// verifies the same HMAC and commits the same rows (the gateway's own schema:
// nonce, pay-in order, outbox callback) in one transaction with the same
// pragmas (WAL, synchronous FULL). What it lacks is the gateway itself: key
// lookup, validation, the address pool, idempotency, the framework.
import { Database } from "bun:sqlite";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { canonicalBody } from "../src/auth/signing";
import { migrations } from "../migrations/index";
import { PRAGMAS } from "../src/db/client";

const [port, dbPath, apiKey, uid] = process.argv.slice(2);
const db = new Database(dbPath, { create: true });
for (const p of PRAGMAS) db.run(p);
for (const m of migrations) for (const s of m.sql.split("--> statement-breakpoint")) if (s.trim()) db.run(s);
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
    const payload = JSON.stringify({ orderNo, merchantOrderNo: body.merchantOrderNo, amount: body.amount, status: "waiting_payment" });
    db.transaction(() => {
      if (insNonce.run(h.get("x-nonce"), now + 600_000).changes !== 1) throw new Error("replay");
      insOrder.run(orderNo, body.merchantOrderNo, body.amount, body.notifyUrl, randomBytes(18).toString("base64url"), now + 1_800_000, now, now);
      insOutbox.run("EV" + orderNo, orderNo, body.notifyUrl, payload, now, now, now);
    }).immediate();
    return Response.json({ orderNo, status: "waiting_payment" });
  },
});
