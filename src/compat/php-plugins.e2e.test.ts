// Real shop plugins, their own PHP code unchanged (src/vendor/plugins/), run by Debian's php-cli
// against the gateway (DESIGN 24, issue 39): each shop is PHP's built-in server with a harness
// that stubs only the host framework (src/compat/php/). The payer's side (the pick page, the
// chain) is driven here; the plugin creates the order, and verifies and answers the callback.
// - v2board's EPay class: no `type`, its URL setting entered with a trailing slash (`//submit.php`);
//   the callback is answered `success`.
// - v2board's BEpusdt class (wyx2685 fork): `trade_type`, JSON; answered `ok`; tron.trx refused.
// - EPusdt for WooCommerce 1.0.4 (GMPay's fork): pid, currency, token, network; answered `success`.
// The 彩虹易支付 SDK and the unlicensed epusdt plugins are tested by their wire format
// (./second-pass.e2e.test.ts, ./compat.e2e.test.ts); docs/plugins.md says which is which.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { callbacks, payinOrders } from "../db/schema";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startCallbackWorker, type CallbackWorker } from "../callbacks/worker";
import { setCompatKeys } from "../merchants/compat-keys";
import { CLI_ACTOR } from "../audit/log";
import { eventually } from "../testing/wait";
import { PHP, startPhpShop, type PhpShop } from "../testing/php-shop";
import { sandboxPay } from "../testing/compat-client";
import { tableRow } from "../testing/engine-rows";

const TOKEN = "epusdt-token-php-plugins";
const KEY = "epay-key-php-plugins";
const HERE = import.meta.dir;
// Plugins without a licence to copy them, fetched by scripts/fetch-plugins.sh (pinned, checked); absent: skipped.
const FETCHED = join(HERE, "../../test-output/plugins");
const hasSdk = existsSync(join(FETCHED, "caihong-sdk-api/EpayCore.class.php")) && existsSync(join(FETCHED, "caihong-sdk-query/EpayCore.class.php"));
const hasDonghan = existsSync(join(FETCHED, "donghan-epusdt/Epusdt.php"));

describe("real shop plugins in PHP", () => {
  let gw: TestGateway;
  let worker: CallbackWorker;
  let v2board: PhpShop;
  let woo: PhpShop;
  let sdk: PhpShop | undefined;

  const byShopId = (id: string) => eventually(async () => (await tableRow(gw.ctx.db, payinOrders, { merchantOrderNo: id })), 5000, `order ${id}`);
  const callbackOf = (orderNo: string) =>
    eventually(async () => {
      const r = (await tableRow(gw.ctx.db, callbacks, { orderNo }));
      return r && r.state !== "delivering" && r.attempts >= 1 && r;
    }, 15_000, `${orderNo}'s callback attempted`);
  /** The payer pays `order` in full on its chain; its callback's first attempt, once recorded. */
  async function payAndCallback(order: typeof payinOrders.$inferSelect, amount: string) {
    await sandboxPay(gw.url, order.chain, order.token, order.address, amount);
    return callbackOf(order.orderNo);
  }
  const decode = (s: string) => s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));

  beforeAll(async () => {
    expect(existsSync(PHP)).toBe(true); // `make test` installs php-cli (scripts/ensure-php.sh)
    gw = await startTestGateway({ jobs: false, config: { rates: { source: "fixed", fixed: { CNY: "7.10" } }, chains: { TRON: { confirmations: 1 }, BSC: { confirmations: 1 }, SOL: { enabled: false } } } });
    await setCompatKeys({ db: gw.ctx.db, cipher: gw.ctx.cipher, now: () => Date.now() }, gw.merchant.uid, { epusdt: TOKEN, epay: KEY }, CLI_ACTOR);
    worker = await startCallbackWorker(gw.ctx);
    const pid = gw.merchant.uid.replace(/\D/g, "");
    v2board = await startPhpShop(join(HERE, "php/v2board.php"), {
      PLUGINS: FETCHED,
      // DongHan's plugin asks for its URL "with the last slash"; entered without one, it joins "…M1000001api/v1/…".
      DONGHAN_URL: `${gw.url}/compat/epusdt/${gw.merchant.uid}`,
      // As a v2board admin enters them: the EPay URL with its trailing slash (the class appends "/submit.php").
      EPAY_URL: `${gw.url}/compat/epay/`,
      EPAY_PID: pid,
      EPAY_KEY: KEY,
      BEPUSDT_URL: `${gw.url}/compat/epusdt/${gw.merchant.uid}`,
      BEPUSDT_TOKEN: TOKEN,
      BEPUSDT_TRADE_TYPE: "usdt.trc20",
    });
    if (hasSdk) sdk = await startPhpShop(join(HERE, "php/epay-sdk.php"), { PLUGINS: FETCHED, EPAY_URL: `${gw.url}/compat/epay/`, EPAY_PID: pid, EPAY_KEY: KEY });
    woo = await startPhpShop(join(HERE, "php/woocommerce.php"), {
      API_URL: `${gw.url}/compat/epusdt/${gw.merchant.uid}`,
      PID: "1000", // the plugin requires a PID; stablegate signs it and echoes it, nothing more
      SECRET: TOKEN,
      TOKEN: "usdt",
      NETWORK: "tron",
      CURRENCY: "cny",
    });
  });
  afterAll(async () => {
    await v2board?.stop();
    await woo?.stop();
    await sdk?.stop();
    await worker?.stop();
    await gw?.stop();
  });

  test("v2board EPay (no type, URL with a trailing slash): the payer picks TRON USDT, pays; the class verifies the callback and answers success", async () => {
    const made = JSON.parse((await v2board.get("/epay/pay?trade_no=2026112900001&total_amount=3000")).text);
    expect(made.ok).toBe(true);
    const payUrl: string = made.result.data;
    expect(payUrl).toStartWith(`${gw.url}/compat/epay//submit.php?`);
    expect(new URL(payUrl).searchParams.has("type")).toBe(false);
    // The payer's browser: the pick page, then TRON USDT.
    const page = await fetch(payUrl, { redirect: "manual" });
    expect(page.status).toBe(200);
    const html = await page.text();
    const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [decode(m[1]!), decode(m[2]!)]));
    expect(fields).toMatchObject({ out_trade_no: "2026112900001", money: "30", sign_type: "MD5" });
    const picked = await fetch(`${gw.url}/compat/epay/pick`, { method: "POST", redirect: "manual", body: new URLSearchParams({ ...fields, network: "TRON:USDT" }) });
    expect(picked.status).toBe(302);
    const order = await byShopId("2026112900001");
    expect([order.chain, order.amount]).toEqual(["TRON", "4225353"]);
    const cb = await payAndCallback(order, "4.225353");
    expect([cb.kind, cb.state, cb.attempts]).toEqual(["epay", "delivered", 1]);
    expect(JSON.parse((await v2board.get("/state")).text).paid).toEqual({ "2026112900001": order.orderNo });
  });

  test("v2board BEpusdt (trade_type usdt.trc20, JSON): created, paid, callback verified and answered ok; tron.trx is refused with a reason the shop shows", async () => {
    const made = JSON.parse((await v2board.get("/bepusdt/pay?trade_no=2026112900002&total_amount=2840")).text);
    expect(made).toMatchObject({ ok: true, result: { type: 1, data: expect.stringContaining("/checkout/") } });
    const order = await byShopId("2026112900002");
    expect([order.chain, order.token, order.amount]).toEqual(["TRON", "USDT", "4000000"]);
    const cb = await payAndCallback(order, "4");
    expect([cb.kind, cb.state, cb.attempts]).toEqual(["epusdt", "delivered", 1]);
    expect(JSON.parse((await v2board.get("/state")).text).paid["2026112900002"]).toBe(order.orderNo);

    const trx = JSON.parse((await v2board.get("/bepusdt/pay?trade_no=2026112900003&total_amount=2840&trade_type=tron.trx")).text);
    expect(trx.ok).toBe(false);
    expect(trx.message).toContain("tron.trx");
    expect(trx.message).toContain("stablecoins only");
    const bep20 = JSON.parse((await v2board.get("/bepusdt/pay?trade_no=2026112900004&total_amount=2840&trade_type=usdt.bep20")).text);
    expect(bep20.ok).toBe(true);
    expect((await byShopId("2026112900004")).chain).toBe("BSC");
  });

  test("EPusdt for WooCommerce (GMPay fork: pid, currency, token, network): checkout, pay, the plugin verifies the callback, answers success and completes the order", async () => {
    const made = JSON.parse((await woo.get("/shop/checkout?order=42&total=28.40")).text);
    expect(made.notices).toEqual([]);
    expect(made.result).toEqual({ result: "success", redirect: expect.stringContaining(`${gw.url}/checkout/`) });
    expect(made.order.status).toBe("on-hold");
    const outTradeNo: string = made.order.meta._wordpress_epusdt_out_trade_no;
    expect(outTradeNo).toMatch(/^wpeu_42_\d+$/);
    const order = await byShopId(outTradeNo);
    expect([order.chain, order.token, order.amount]).toEqual(["TRON", "USDT", "4000000"]);
    const cb = await payAndCallback(order, "4");
    expect([cb.kind, cb.state, cb.attempts, cb.lastError]).toEqual(["epusdt", "delivered", 1, null]);
    const after = JSON.parse((await woo.get("/shop/order?order=42")).text);
    expect(after.status).toBe("processing");
    expect(after.transaction_id).toBe((await tableRow(gw.ctx.db, payinOrders, { id: order.id }))!.txHash);
  });

  test.skipIf(!hasSdk)("彩虹易支付 SDK (fetched): apiPay → mapi.php; getPayLink without type → the pick page; verifyNotify answers success; queryOrder/orderStatus see it paid", async () => {
    const api = JSON.parse((await sdk!.get("/sdk/mapi?out_trade_no=SDK-1&money=30&type=usdt.trc20")).text);
    const tradeNo: string = api.trade_no;
    expect([api.code, tradeNo, api.payurl]).toEqual([1, expect.stringMatching(/^PI/), expect.stringContaining("/checkout/")]);
    const before = JSON.parse((await sdk!.get(`/sdk/query?trade_no=${tradeNo}`)).text);
    expect(before).toMatchObject({ order: { code: 1, trade_no: tradeNo, out_trade_no: "SDK-1", status: 0 }, paid: false });
    const link = JSON.parse((await sdk!.get("/sdk/link?out_trade_no=SDK-2&money=30")).text) as string;
    expect(link).toStartWith(`${gw.url}/compat/epay/submit.php?`);
    const page = await fetch(link, { redirect: "manual" });
    expect([page.status, (await page.text()).includes('value="TRON:USDT"')]).toEqual([200, true]);
    const order = await byShopId("SDK-1");
    const cb = await payAndCallback(order, "4.225353");
    expect([cb.kind, cb.state, cb.attempts]).toEqual(["epay", "delivered", 1]);
    expect(JSON.parse((await sdk!.get("/state")).text).paid).toEqual({ "SDK-1": tradeNo });
    const after = JSON.parse((await sdk!.get(`/sdk/query?trade_no=${tradeNo}`)).text);
    expect(after).toMatchObject({ order: { code: 1, status: 1 }, paid: true });
  });

  test.skipIf(!hasDonghan)("DongHan's v2board epusdt plugin (fetched; JSON posted as a form, base URL without its slash): usdt.trc20 is created, paid and its callback answered success; tron.trx is refused with the reason", async () => {
    const made = JSON.parse((await v2board.get("/donghan/pay?trade_no=2026112900008&total_amount=3000&trade_type=usdt.trc20")).text);
    expect(made).toMatchObject({ ok: true, result: { type: 1 } });
    const order = await byShopId("2026112900008");
    const cb = await payAndCallback(order, "4.225353");
    expect([cb.kind, cb.state, cb.attempts]).toEqual(["epusdt", "delivered", 1]);
    expect(JSON.parse((await v2board.get("/state")).text).paid["2026112900008"]).toBe(order.orderNo);
    const trx = JSON.parse((await v2board.get("/donghan/pay?trade_no=2026112900009&total_amount=3000&trade_type=tron.trx")).text);
    expect(trx.ok).toBe(false);
    expect(trx.message).toContain("trade_type tron.trx is a native coin");
    expect((await tableRow(gw.ctx.db, payinOrders, { merchantOrderNo: "2026112900009" }))).toBeUndefined();
  });
});
