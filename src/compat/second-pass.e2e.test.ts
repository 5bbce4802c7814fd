// DESIGN 24 (issue 39): what real shop plugins do that the protocols' own servers tolerate, one
// test per gap the issue found, each driven over HTTP by a client written here from the
// protocols' descriptions (BEpusdt's trade types, GMPay's fork, 彩虹易支付's mapi.php/api.php).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { callbacks, payinOrders } from "../db/schema";
import { TestClock } from "../lib/clock";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { startCallbackWorker, type CallbackWorker } from "../callbacks/worker";
import { setCompatKeys } from "../merchants/compat-keys";
import { CLI_ACTOR } from "../audit/log";
import { eventually } from "../testing/wait";
import { meantPath } from "./routes";
import { md5Sign, sandboxPay } from "../testing/compat-client";
import { tableRow } from "../testing/engine-rows";

const T0 = Date.parse("2026-11-28T08:00:00Z");
const TOKEN = "epusdt_token_second_pass";
const KEY = "epay_key_second_pass";

const epusdtSigned = (p: Record<string, unknown>) => ({ ...p, signature: md5Sign(p, TOKEN, ["signature"]) });
const epaySigned = (p: Record<string, string>) => ({ ...p, sign: md5Sign(p, KEY, ["sign", "sign_type"]), sign_type: "MD5" });

describe("shop plugins, second pass (DESIGN 24)", () => {
  let gw: TestGateway;
  let rx: Receiver;
  let worker: CallbackWorker;
  const clock = new TestClock(T0);
  let pid: string;
  let epusdtBase: string;

  const order = async (orderNo: string) => (await tableRow(gw.ctx.db, payinOrders, { orderNo }))!;
  const byShopId = async (id: string) => (await tableRow(gw.ctx.db, payinOrders, { merchantOrderNo: id }));
  async function post(url: string, body: string, contentType: string) {
    const res = await fetch(url, { method: "POST", headers: { "content-type": contentType }, body, redirect: "manual" });
    return { status: res.status, text: await res.text(), location: res.headers.get("location") };
  }
  const create = async (p: Record<string, unknown>, path = "/api/v1/order/create-transaction") => JSON.parse((await post(epusdtBase + path, JSON.stringify(epusdtSigned(p)), "application/json")).text);
  const chainPay = (chainCode: string, tokenSymbol: string, address: string, amount: string) => sandboxPay(gw.url, chainCode, tokenSymbol, address, amount);
  const delivered = (orderNo: string) =>
    eventually(async () => {
      const r = (await tableRow(gw.ctx.db, callbacks, { orderNo }));
      return r && r.state !== "delivering" && r.attempts >= 1 && r;
    }, 10_000, `${orderNo}'s callback attempted`);

  beforeAll(async () => {
    rx = startReceiver();
    gw = await startTestGateway({ clock, jobs: false, config: { rates: { source: "fixed", fixed: { CNY: "7.10" } }, chains: { TRON: { confirmations: 1 }, BSC: { confirmations: 1 }, SOL: { enabled: false } } } });
    pid = gw.merchant.uid.replace(/\D/g, "");
    epusdtBase = `${gw.url}/compat/epusdt/${gw.merchant.uid}`;
    await setCompatKeys({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => clock.now() }, gw.merchant.uid, { epusdt: TOKEN, epay: KEY }, CLI_ACTOR);
    worker = await startCallbackWorker(gw.ctx);
  });
  afterAll(async () => {
    await worker.stop();
    await gw.stop();
    await rx.stop();
  });

  test("gap 1: EPay without type (v2board), empty (Blesta) or alipay: the payer picks the network; a BEpusdt type selects it", async () => {
    const base = { pid, out_trade_no: "", notify_url: rx.url + "/epay", return_url: "http://shop.test/r", name: "Plan", money: "30" };
    for (const [id, type] of [["NT-none", undefined], ["NT-empty", ""], ["NT-alipay", "alipay"]] as const) {
      const p = epaySigned({ ...base, out_trade_no: id, ...(type === undefined ? {} : { type }) });
      const page = await fetch(`${gw.url}/compat/epay/submit.php?${new URLSearchParams(p)}`, { redirect: "manual" });
      const html = await page.text();
      expect([id, page.status, page.headers.get("content-type")]).toEqual([id, 200, "text/html; charset=utf-8"]);
      expect(html).toContain('value="TRON:USDT"');
      expect(html).toContain('value="BSC:USDC"');
      expect(await byShopId(id)).toBeUndefined(); // nothing written until the payer picks
    }
    // The payer picks BNB Smart Chain USDT: the signed request comes back with the choice.
    const p = epaySigned({ ...base, out_trade_no: "NT-none" });
    const picked = await post(`${gw.url}/compat/epay/pick`, new URLSearchParams({ ...p, network: "BSC:USDT" }).toString(), "application/x-www-form-urlencoded");
    expect(picked.status).toBe(302);
    expect(picked.location).toStartWith(`${gw.url}/checkout/`);
    expect([(await byShopId("NT-none"))!.chain, (await byShopId("NT-none"))!.token]).toEqual(["BSC", "USDT"]);
    // The same request again goes to that order; a tampered pick (another money) is refused.
    const again = await fetch(`${gw.url}/compat/epay/submit.php?${new URLSearchParams(p)}`, { redirect: "manual" });
    expect([again.status, again.headers.get("location")]).toEqual([302, picked.location]);
    const tampered = await post(`${gw.url}/compat/epay/pick`, new URLSearchParams({ ...p, money: "1", out_trade_no: "NT-x", network: "TRON:USDT" }).toString(), "application/x-www-form-urlencoded");
    expect(tampered.status).toBe(401);
    const notOffered = await post(`${gw.url}/compat/epay/pick`, new URLSearchParams({ ...epaySigned({ ...base, out_trade_no: "NT-sol" }), network: "SOL:USDT" }).toString(), "application/x-www-form-urlencoded");
    expect(notOffered.status).toBe(400);
    // A BEpusdt trade type (or GMPay's token.network) as type selects the network at once.
    for (const [id, type, chain, token] of [["NT-bep20", "usdt.bep20", "BSC", "USDT"], ["NT-gm", "usdc.bsc", "BSC", "USDC"], ["NT-trc20", "usdt.trc20", "TRON", "USDT"]] as const) {
      const r = await fetch(`${gw.url}/compat/epay/submit.php?${new URLSearchParams(epaySigned({ ...base, out_trade_no: id, type }))}`, { redirect: "manual" });
      expect([id, r.status, (await byShopId(id))?.chain, (await byShopId(id))?.token]).toEqual([id, 302, chain, token]);
    }
  });

  test("gap 2: mapi.php answers trade_no, payurl and qrcode; api.php act=query/order/orders as 彩虹易支付, never the key", async () => {
    const p = epaySigned({ pid, type: "usdt.trc20", out_trade_no: "API-1", notify_url: rx.url + "/epay-api", name: "Plan", money: "71", clientip: "192.0.2.1" });
    const m = JSON.parse((await post(`${gw.url}/compat/epay/mapi.php`, new URLSearchParams(p).toString(), "application/x-www-form-urlencoded")).text);
    expect(m).toEqual({ code: 1, msg: "success", trade_no: expect.stringMatching(/^PI/), payurl: expect.stringContaining("/checkout/"), qrcode: expect.stringMatching(/^tron:/) });
    const o = await order(m.trade_no);
    expect(o.amount).toBe("10000000"); // 71 CNY at 7.10
    const api = async (q: Record<string, string>) => JSON.parse(await (await fetch(`${gw.url}/compat/epay/api.php?${new URLSearchParams(q)}`)).text());
    const query = await api({ act: "query", pid, key: KEY });
    expect(query).toMatchObject({ code: 1, pid, active: 1, orders: expect.any(Number) });
    expect(JSON.stringify(query)).not.toContain(KEY);
    expect(await api({ act: "order", pid, key: KEY, trade_no: m.trade_no })).toMatchObject({ code: 1, trade_no: m.trade_no, out_trade_no: "API-1", money: "71", type: "usdt.trc20", status: 0 });
    await chainPay("TRON", "USDT", o.address, "10");
    await eventually(async () => (await order(m.trade_no)).status === "completed", 10_000, "paid");
    expect(await api({ act: "order", pid, key: KEY, out_trade_no: "API-1" })).toMatchObject({ code: 1, trade_no: m.trade_no, status: 1, endtime: expect.any(String) });
    const list = await api({ act: "orders", pid, key: KEY, limit: "50" });
    expect(list.code).toBe(1);
    expect(list.data.map((x: { out_trade_no: string }) => x.out_trade_no)).toContain("API-1");
    expect(await api({ act: "order", pid, key: "wrong", trade_no: m.trade_no })).toEqual({ code: -3, msg: "KEY校验失败" });
    expect(await api({ act: "order", pid, key: KEY, trade_no: "PI-nope" })).toEqual({ code: -1, msg: "订单号不存在" });
    expect((await api({ act: "refund", pid, key: KEY, trade_no: m.trade_no })).code).toBe(-5);
    // mapi.php refusals are JSON too.
    const bad = JSON.parse((await post(`${gw.url}/compat/epay/mapi.php`, new URLSearchParams({ ...p, money: "72" }).toString(), "application/x-www-form-urlencoded")).text);
    expect(bad.code).toBe(-1);
  });

  test("gap 3: a doubled slash (…/compat/epay//submit.php) and a missing one (…/M1000001api/v1/…) reach the endpoint", async () => {
    expect(meantPath("/compat/epay//submit.php")).toBe("/compat/epay/submit.php");
    expect(meantPath("/compat/epusdt/M1000001api/v1/order/create-transaction")).toBe("/compat/epusdt/M1000001/api/v1/order/create-transaction");
    const p = epaySigned({ pid, type: "usdt.trc20", out_trade_no: "SL-1", notify_url: rx.url + "/epay", name: "Plan", money: "30" });
    const r = await fetch(`${gw.url}/compat/epay//submit.php?${new URLSearchParams(p)}`, { redirect: "manual" });
    expect(r.status).toBe(302);
    const e = JSON.parse((await post(`${epusdtBase}api/v1/order/create-transaction`, JSON.stringify(epusdtSigned({ order_id: "SL-2", amount: 10, notify_url: rx.url + "/e" })), "application/json")).text);
    expect(e.status_code).toBe(200);
    const e2 = JSON.parse((await post(`${epusdtBase}//api/v1/order/create-transaction`, JSON.stringify(epusdtSigned({ order_id: "SL-3", amount: 10, notify_url: rx.url + "/e" })), "application/json")).text);
    expect(e2.status_code).toBe(200);
  });

  test("gap 4: a JSON body labelled as a form (curl's default) is read as JSON", async () => {
    const body = JSON.stringify(epusdtSigned({ order_id: "JF-1", amount: 10, notify_url: rx.url + "/e", redirect_url: "http://shop.test/r" }));
    const r = JSON.parse((await post(`${epusdtBase}/api/v1/order/create-transaction`, body, "application/x-www-form-urlencoded")).text);
    expect(r).toMatchObject({ status_code: 200, data: { order_id: "JF-1", amount: 10 } });
  });

  test("gap 5: an epusdt callback answered `success` (any case, trimmed) is delivered at once", async () => {
    rx.setScript((r) => (r.path === "/ack" ? { status: 200, body: " SUCCESS\n" } : { status: 200, body: "ok" }));
    const r = await create({ order_id: "ACK-1", amount: 14.2, notify_url: rx.url + "/ack" });
    await chainPay("TRON", "USDT", r.data.token, String(r.data.actual_amount));
    const cb = await delivered(r.data.trade_id);
    expect([cb.state, cb.attempts]).toEqual(["delivered", 1]);
  });

  test("gap 6: GMPay's fork: create-transaction with pid, currency, token, network; check-status; its callback", async () => {
    rx.setScript((r) => (r.path === "/gm" ? { status: 200, body: "success" } : { status: 200, body: "ok" }));
    const p = { pid: "1000", order_id: "GM-1", currency: "cny", token: "usdt", network: "tron", amount: 28.4, notify_url: rx.url + "/gm", redirect_url: "http://shop.test/done", name: "Shop Order #1" };
    const r = await create(p, "/payments/gmpay/v1/order/create-transaction");
    expect(r).toMatchObject({ status_code: 200, message: "success" });
    expect(r.data).toEqual({
      trade_id: expect.stringMatching(/^PI/),
      order_id: "GM-1",
      amount: 28.4,
      currency: "CNY",
      actual_amount: 4,
      receive_address: expect.stringMatching(/^T/),
      token: "USDT",
      status: 1,
      expiration_time: expect.any(Number),
      payment_url: expect.stringContaining("/checkout/"),
    });
    const status = async () => JSON.parse(await (await fetch(`${epusdtBase}/pay/check-status/${r.data.trade_id}`)).text()).data.status;
    expect(await status()).toBe(1);
    await chainPay("TRON", "USDT", r.data.receive_address, "4");
    const cb = await delivered(r.data.trade_id);
    expect([cb.state, cb.attempts]).toEqual(["delivered", 1]);
    expect(await status()).toBe(2);
    const got = JSON.parse(rx.requests.find((x) => x.path === "/gm")!.text);
    expect(got).toEqual({ pid: "1000", trade_id: r.data.trade_id, order_id: "GM-1", amount: 28.4, actual_amount: 4, receive_address: r.data.receive_address, token: "USDT", block_transaction_id: expect.any(String), signature: expect.any(String), status: 2 });
    expect(got.signature).toBe(md5Sign(got, TOKEN, ["signature"]));
    // Without pid or currency: 10009; a bad signature: 401 (all in epusdt's envelope).
    const { pid: _p, ...noPid } = p;
    expect((await create({ ...noPid, order_id: "GM-2" }, "/payments/gmpay/v1/order/create-transaction")).status_code).toBe(10009);
    const forged = JSON.parse((await post(`${epusdtBase}/payments/gmpay/v1/order/create-transaction`, JSON.stringify({ ...epusdtSigned({ ...p, order_id: "GM-3" }), amount: 1 }), "application/json")).text);
    expect(forged.status_code).toBe(401);
  });

  test("gap 7: BEpusdt's trade_type picks the network; tron.trx and networks not enabled are refused clearly, never replaced", async () => {
    const r = await create({ order_id: "TT-1", amount: 10, notify_url: rx.url + "/e", trade_type: "usdt.bep20" });
    expect(r.status_code).toBe(200);
    expect([(await order(r.data.trade_id)).chain, (await order(r.data.trade_id)).token]).toEqual(["BSC", "USDT"]);
    const trx = await create({ order_id: "TT-2", amount: 10, notify_url: rx.url + "/e", trade_type: "tron.trx" });
    expect([trx.status_code, trx.data]).toEqual([400, null]);
    expect(trx.message).toContain("tron.trx");
    expect(trx.message).toContain("stablecoins");
    for (const t of ["usdt.xlayer", "usdc.xlayer", "usdt.plasma", "usdt.ton", "usdt.solana", "usdc.polygon"]) {
      const x = await create({ order_id: `TT-${t}`, amount: 10, notify_url: rx.url + "/e", trade_type: t });
      expect([t, x.status_code]).toEqual([t, 10003]);
      expect(x.message).toContain(`trade_type ${t}`);
      expect(await byShopId(`TT-${t}`)).toBeUndefined();
    }
    expect((await create({ order_id: "TT-3", amount: 10, notify_url: rx.url + "/e", trade_type: "doge.doge" })).status_code).toBe(400);
  });
});
