// The payer sees the truth about money that does not match (DESIGN 5): the
// warning says a different amount is received and held for the merchant's
// review, and a frozen_abnormal order shows the amount received and that the
// merchant will review it, also when the order freezes while the page is open.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { MemoryCheckout, sampleOrder } from "../testing/checkout-memory";
import { checkoutRoutes } from "./routes";

const BROWSER_RETRY = { retry: 2 };
const store = new MemoryCheckout();
let server: { stop(): unknown };
let base = "";
let browser: Browser;

beforeAll(async () => {
  const app = new Elysia().use(checkoutRoutes(store.deps({ pollIntervalMs: 150 }))).listen({ hostname: "127.0.0.1", port: 0 });
  server = app;
  base = `http://127.0.0.1:${app.server!.port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  server?.stop();
});

async function open(path: string, locale = "en-US") {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, locale });
  const page = await ctx.newPage();
  await page.goto(`${base}${path}`);
  return { ctx, page };
}

describe("money that does not match, on the checkout page", () => {
  test.each([
    ["en-US", ["A different amount is still received", "held until Acme Coffee Roasters reviews it"]],
    ["zh-CN", ["金额不符的转账仍会被收到", "待 Acme Coffee Roasters 审核"]],
  ])("the warning (%s) says a different amount is received and held for review, never lost", async (locale, phrases) => {
    store.addOrder(`warn_${locale}`, sampleOrder());
    const { ctx, page } = await open(`/checkout/warn_${locale}`, locale);
    try {
      const warning = await page.getByTestId("warning").innerText();
      for (const p of phrases) expect(warning).toContain(p);
      expect(warning).not.toMatch(/different amount will not be credited|不同的金额不会计入/);
    } finally {
      await ctx.close();
    }
  });

  test("a frozen order shows the amount received and that the merchant will review it", async () => {
    store.addOrder("frozen_1", sampleOrder({ status: "frozen_abnormal", amount: "12.500000", paidAmount: "12.400000", txHash: "cd".repeat(32) }));
    const { ctx, page } = await open("/checkout/frozen_1");
    try {
      const panel = page.getByTestId("state-frozen_abnormal");
      expect(await panel.isVisible()).toBe(true);
      const text = await panel.innerText();
      expect(text).toContain("Received 12.40 USDT for this 12.50 USDT order. Acme Coffee Roasters will review the payment.");
      expect(text).toContain("Do not pay again");
    } finally {
      await ctx.close();
    }
  });

  test("an open page that freezes fills in the amount received from the status poll", async () => {
    store.addOrder("frozen_live", sampleOrder({ amount: "12.500000" }));
    const { ctx, page } = await open("/checkout/frozen_live", "zh-CN");
    try {
      expect(await page.getByTestId("state-waiting_payment").isVisible()).toBe(true);
      const o = store.orders.get("frozen_live")!;
      Object.assign(o, { status: "frozen_abnormal", paidAmount: "12.600000", txHash: "ef".repeat(32), confirmations: 1 });
      await page.getByTestId("state-frozen_abnormal").waitFor({ state: "visible" });
      const received = page.getByTestId("frozen-received");
      await received.waitFor({ state: "visible" });
      expect(await received.innerText()).toBe("已收到 12.60 USDT（订单金额 12.50 USDT）。Acme Coffee Roasters 将审核此笔付款。");
    } finally {
      await ctx.close();
    }
  }, BROWSER_RETRY);

  test("a frozen order with nothing received (operator freeze) does not claim a payment", async () => {
    store.addOrder("frozen_none", sampleOrder({ status: "frozen_abnormal" }));
    const { ctx, page } = await open("/checkout/frozen_none");
    try {
      expect(await page.getByTestId("state-frozen_abnormal").isVisible()).toBe(true);
      expect(await page.getByTestId("frozen-received").isHidden()).toBe(true);
    } finally {
      await ctx.close();
    }
  });

  // Why the money is on hold (issue 28): a short payment is not "received after expiry".
  test.each([
    ["en-US", "risk_settled", "short", "9.50", "Payment received, less than the amount", "Less than the order amount was received: 9.50 USDT of 10.00 USDT."],
    ["en-US", "frozen_abnormal", "short", "9.50", "Payment on hold", "Less than the order amount was received: 9.50 USDT of 10.00 USDT."],
    ["en-US", "frozen_abnormal", "over", "12.00", "Payment on hold", "More than the order amount was received: 12.00 USDT for 10.00 USDT."],
    ["en-US", "risk_settled", "late", "10.00", "Payment received after expiry", "The payment arrived after the order had expired."],
    ["en-US", "frozen_abnormal", "operator", null, "Payment on hold", "Acme Coffee Roasters put this payment on hold for review."],
    ["zh-CN", "risk_settled", "short", "9.50", "已收到付款，但少于订单金额", "收到的金额少于订单金额：收到 9.50 USDT，订单 10.00 USDT。"],
    ["zh-CN", "frozen_abnormal", "over", "12.00", "付款已冻结待审核", "收到的金额多于订单金额：收到 12.00 USDT，订单 10.00 USDT。"],
    ["zh-CN", "risk_settled", "late", "10.00", "付款在过期后到账", "付款在订单过期后才到账。"],
  ] as const)("%s %s (%s) says why the money is on hold", async (locale, status, reason, paid, title, why) => {
    const token = `hold_${locale}_${status}_${reason}`;
    store.addOrder(token, sampleOrder({ status, amount: "10.000000", paidAmount: paid ? `${paid}0000` : null, txHash: paid ? "ab".repeat(32) : null, holdReason: reason }));
    const { ctx, page } = await open(`/checkout/${token}`, locale);
    try {
      const panel = page.getByTestId(`state-${status}`);
      expect(await panel.getByRole("heading").innerText()).toBe(title);
      expect(await panel.getByTestId("hold-reason").innerText()).toBe(why);
      if (reason === "short") expect(await panel.innerText()).not.toMatch(/after expiry|after the time limit|过期后/);
    } finally {
      await ctx.close();
    }
  });
});
