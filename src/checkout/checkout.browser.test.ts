// The hosted pages in Debian's Chromium at a phone viewport: what a payer sees
// and does, from the cashierUrl to a completed payment, without a reload.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { dropBrowserConnection, launchBrowser, screenshotDir } from "../testing/browser";
import { MemoryCheckout, sampleDeposit, sampleOrder } from "../testing/checkout-memory";
import { checkoutRoutes } from "./routes";
import type { PayinStatus } from "./types";

// playwright-core under Bun now and then loses a protocol object ("Cannot find parent object
// request@…"); a retry of the whole test is the workaround until that is fixed upstream (the
// launchBrowser handle replaces a connection that closed, so the retry runs on a fresh one).
const BROWSER_RETRY = { retry: 2 };

const PHONE = { width: 390, height: 844 };
const store = new MemoryCheckout();
let server: { stop(): unknown };
let base = "";
let browser: Browser;
let shots = "";

beforeAll(async () => {
  const app = new Elysia().use(checkoutRoutes(store.deps({ pollIntervalMs: 150 }))).listen({ hostname: "127.0.0.1", port: 0 });
  server = app;
  base = `http://127.0.0.1:${app.server!.port}`;
  browser = await launchBrowser();
  shots = screenshotDir();
});

afterAll(async () => {
  await browser?.close();
  server?.stop();
});

interface Session {
  ctx: BrowserContext;
  page: Page;
  requests: string[];
  /** Script errors and console errors of the page. */
  errors: string[];
  navigations: () => number;
}

/** A phone-sized tab that records every request and every main-frame navigation. */
async function open(path: string, options: { locale?: string } = {}): Promise<Session> {
  const ctx = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: options.locale ?? "en-US" });
  const page = await ctx.newPage();
  const requests: string[] = [];
  let navs = 0;
  page.on("request", (r) => requests.push(r.url()));
  page.on("framenavigated", (f) => {
    if (f === page.mainFrame()) navs++;
  });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`${base}${path}`);
  return { ctx, page, requests, errors, navigations: () => navs };
}

function expectOnlyGateway(s: Session) {
  expect(s.requests.length).toBeGreaterThan(0);
  for (const url of s.requests) {
    if (url.startsWith("data:")) continue;
    expect(new URL(url).origin).toBe(base);
  }
}

const shot = (s: Session, name: string) => s.page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

describe("checkout page in Chromium", () => {
  test("a payer sees the order, copies the address, simulates the payment and watches it complete", async () => {
    store.addOrder("flow_order_1", sampleOrder());
    store.allow(0);
    const s = await open("/checkout/flow_order_1");
    try {
      const { page } = s;
      await expect(page.getByTestId("amount").innerText()).resolves.toBe("12.3456 USDT");
      await expect(page.getByTestId("network").innerText()).resolves.toContain("USDT on TRON (TRC20)");
      await expect(page.getByTestId("address").innerText()).resolves.toBe("TJRabPrwbZy45sbavfcjinPJC18kjpRTv8");
      const qr = page.getByRole("img", { name: "QR code of the payment request" });
      expect(await qr.isVisible()).toBe(true);
      const box = await qr.boundingBox();
      expect(box!.width).toBeGreaterThanOrEqual(160);
      expect(await page.getByTestId("countdown").innerText()).toMatch(/\d\d:\d\d/);
      const warning = await page.getByTestId("warning").innerText();
      expect(warning).toContain("Send only USDT on TRON (TRC20)");
      expect(warning).toContain("exactly 12.3456 USDT");
      expect(await page.getByTestId("sandbox-badge").isVisible()).toBe(true);

      // Copy: the clipboard holds the address and the payer is told so.
      await s.ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
      await page.getByRole("button", { name: "Copy address" }).click();
      await page.getByTestId("copy-feedback").getByText("Copied").waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("TJRabPrwbZy45sbavfcjinPJC18kjpRTv8");
      await shot(s, "checkout-1-waiting");

      await page.getByRole("button", { name: "Simulate payment" }).click();
      await page.getByTestId("state-detected").waitFor({ state: "visible" });
      expect(await page.getByTestId("pay").isHidden()).toBe(true);
      await shot(s, "checkout-2-detected");

      store.allow(1);
      await page.getByTestId("state-confirming").waitFor({ state: "visible" });
      expect(await page.getByTestId("state-confirming").innerText()).toMatch(/2\s*\/\s*3/);
      await shot(s, "checkout-3-confirming");

      store.allow(Number.POSITIVE_INFINITY);
      await page.getByTestId("state-completed").waitFor({ state: "visible" });
      const done = await page.getByTestId("state-completed").innerText();
      expect(done).toContain("Payment complete");
      expect(done).toContain("Acme Coffee Roasters has received your payment");
      expect(await page.getByTestId("checkout").innerText()).toContain("abababab");
      expect(await page.getByTestId("checkout").innerText()).toContain("12.3456 USDT");
      await shot(s, "checkout-4-completed");
      // Screen readers hear the state change once, not every tick of the countdown.
      expect(await page.locator("[data-bind=announce]").textContent()).toBe("Payment complete");

      expect(store.simulateCalls).toBe(1);
      expect(s.navigations()).toBe(1); // the first load only: every state arrived without a reload
      expect(s.requests.filter((u) => u.endsWith("/status")).length).toBeGreaterThanOrEqual(3);
      expectOnlyGateway(s);
      expect(s.errors).toEqual([]);
    } finally {
      await s.ctx.close();
    }
  }, BROWSER_RETRY);

  test("copy and simulate are reachable with Tab and named for assistive tech", async () => {
    store.addOrder("keyboard_order", sampleOrder());
    store.allow(0);
    const s = await open("/checkout/keyboard_order");
    try {
      const reached = new Set<string>();
      for (let i = 0; i < 12 && reached.size < 3; i++) {
        await s.page.keyboard.press("Tab");
        const name = await s.page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          return el ? (el.getAttribute("aria-label") ?? el.textContent ?? "").trim() : "";
        });
        if (["Copy address", "Copy amount", "Simulate payment"].includes(name)) reached.add(name);
      }
      expect([...reached].sort()).toEqual(["Copy address", "Copy amount", "Simulate payment"]);
      // The focused simulate button works from the keyboard too.
      await s.page.keyboard.press("Enter");
      await s.page.getByTestId("state-detected").waitFor({ state: "visible" });
      expect(s.navigations()).toBe(1);
    } finally {
      store.allow(Number.POSITIVE_INFINITY);
      await s.ctx.close();
    }
  }, BROWSER_RETRY);

  const finalStates: Array<[PayinStatus, string]> = [
    ["expired", "This payment request has expired"],
    ["risk_settled", "Payment received after expiry"],
    ["frozen_abnormal", "Payment on hold"],
    ["cancelled", "Order cancelled"],
  ];
  test.each(finalStates)("%s has its own message and no payment instructions", async (status, title) => {
    const paid = status === "risk_settled" || status === "frozen_abnormal";
    store.addOrder(`state_${status}`, sampleOrder({ status, paidAmount: paid ? "12.345600" : null, txHash: paid ? "cd".repeat(32) : null }));
    const s = await open(`/checkout/state_${status}`);
    try {
      const panel = s.page.getByTestId(`state-${status}`);
      expect(await panel.isVisible()).toBe(true);
      expect(await panel.innerText()).toContain(title);
      expect(await s.page.getByTestId("pay").isHidden()).toBe(true);
      expect(await s.page.getByRole("button", { name: "Simulate payment" }).count()).toBe(0);
      await shot(s, `checkout-state-${status}`);
      expectOnlyGateway(s);
    } finally {
      await s.ctx.close();
    }
  });

  test("an open page turns to expired when the gateway expires the order", async () => {
    store.addOrder("expire_live", sampleOrder());
    const s = await open("/checkout/expire_live");
    try {
      expect(await s.page.getByTestId("state-waiting_payment").isVisible()).toBe(true);
      store.setStatus("expire_live", "expired");
      await s.page.getByTestId("state-expired").waitFor({ state: "visible" });
      expect(await s.page.getByTestId("pay").isHidden()).toBe(true);
      expect(s.navigations()).toBe(1);
    } finally {
      await s.ctx.close();
    }
  }, BROWSER_RETRY);

  test("the countdown reaching zero shows the expired message even before the gateway's expiry job runs", async () => {
    // The server clock is an hour ahead of the browser's: the countdown must follow the server.
    const serverNow = Date.now() + 3_600_000;
    store.addOrder("expire_clock", sampleOrder({ expireAt: new Date(serverNow + 1500).toISOString() }, serverNow));
    const saved = store.now;
    store.now = () => Date.now() + 3_600_000;
    const s = await open("/checkout/expire_clock");
    try {
      expect(await s.page.getByTestId("countdown").innerText()).toMatch(/00:0[0-2]/);
      await s.page.getByTestId("state-expired").waitFor({ state: "visible" });
      expect(await s.page.getByTestId("pay").isHidden()).toBe(true);
    } finally {
      store.now = saved;
      await s.ctx.close();
    }
  }, BROWSER_RETRY);

  test("an unknown order link shows a friendly not-found page", async () => {
    const s = await open("/checkout/no_such_order_token");
    try {
      const res = await s.page.reload();
      expect(res!.status()).toBe(404);
      const text = await s.page.getByTestId("not-found").innerText();
      expect(text).toContain("Payment link not found");
      expect(await s.page.content()).not.toMatch(/\bat .*\.ts:\d+|Error:/);
      await shot(s, "checkout-not-found");
    } finally {
      await s.ctx.close();
    }
  }, BROWSER_RETRY);

  test("Chinese is picked from Accept-Language and the switch goes to English", async () => {
    store.addOrder("lang_order", sampleOrder());
    const s = await open("/checkout/lang_order", { locale: "zh-CN" });
    try {
      const { page } = s;
      expect(await page.locator("html").getAttribute("lang")).toBe("zh-CN");
      expect(await page.getByTestId("network").innerText()).toContain("TRON 网络（TRC20）上的 USDT");
      expect(await page.getByRole("button", { name: "复制地址" }).isVisible()).toBe(true);
      expect(await page.getByRole("button", { name: "模拟付款" }).isVisible()).toBe(true);
      await shot(s, "checkout-zh-waiting");
      await page.getByRole("link", { name: "Switch to English" }).click();
      await page.waitForURL(/lang=en/);
      expect(await page.locator("html").getAttribute("lang")).toBe("en");
      expect(await page.getByTestId("network").innerText()).toContain("USDT on TRON (TRC20)");
      await page.getByRole("link", { name: "切换到中文" }).click();
      await page.waitForURL(/lang=zh/);
      expect(await page.getByTestId("state-waiting_payment").innerText()).toContain("等待您付款");
      expectOnlyGateway(s);
    } finally {
      await s.ctx.close();
    }
  }, BROWSER_RETRY);
});

describe("deposit page in Chromium", () => {
  test("shows the address and network, and new deposits appear without a reload", async () => {
    store.deposits.set("deposit_wallet_1", sampleDeposit({ label: "Player 42" }));
    const s = await open("/deposit/deposit_wallet_1");
    try {
      const { page } = s;
      expect(await page.getByTestId("address").innerText()).toBe("0x52908400098527886E0F7030069857D2E4169EE7");
      expect(await page.getByTestId("network").innerText()).toContain("USDC on BNB Smart Chain (BEP20)");
      expect(await page.getByRole("img", { name: "QR code of the deposit address" }).isVisible()).toBe(true);
      expect(await page.getByTestId("no-deposits").isVisible()).toBe(true);
      store.deposits.get("deposit_wallet_1")!.recentDeposits.push(
        { amount: "25.000000", status: "completed", txHash: "0x01", createdAt: new Date().toISOString() },
        { amount: "5.500000", status: "confirming", txHash: "0x02", createdAt: new Date().toISOString() },
      );
      await page.getByTestId("deposits").getByText("5.50 USDC").waitFor();
      const list = await page.getByTestId("deposits").innerText();
      expect(list).toContain("25.00 USDC");
      expect(list).toContain("Completed");
      expect(list).toContain("Confirming");
      expect(await page.getByTestId("no-deposits").isHidden()).toBe(true);
      await shot(s, "deposit-page");
      expect(s.navigations()).toBe(1);
      expectOnlyGateway(s);
      expect(s.errors).toEqual([]);
    } finally {
      await s.ctx.close();
    }
  }, BROWSER_RETRY);
});

describe("the file's browser connection", () => {
  test("one closed under a test fails that test saying which side closed it; the next page opens on a fresh connection", async () => {
    store.addOrder("reconnect_order", sampleOrder());
    const s = await open("/checkout/reconnect_order");
    dropBrowserConnection(browser, "dropped by the reconnect test");
    const err = (await s.page.title().catch((e: Error) => e)) as Error;
    expect(err.message).toContain("the browser connection was closed by this test process: dropped by the reconnect test");
    const again = await open("/checkout/reconnect_order");
    try {
      expect(await again.page.getByTestId("network").innerText()).toContain("USDT on TRON (TRC20)");
    } finally {
      await again.ctx.close();
    }
  });
});
