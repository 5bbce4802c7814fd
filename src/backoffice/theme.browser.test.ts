// The back office follows the system's dark setting (prefers-color-scheme), and
// stays readable there: axe's colour-contrast and every other serious rule pass
// on the busiest pages, at phone and desktop size.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { analyzeAxe } from "../testing/axe";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { sandboxClient } from "../testing/sandbox";
import { addUser, DESKTOP, PHONE, withSession } from "../testing/backoffice-browser";

let gw: TestGateway;
let browser: Browser;
let op: { username: string; password: string };
let orderNo = "";

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TRON: { confirmations: 2 } } } });
  browser = await launchBrowser();
  op = await addUser(gw, "night", "operator");
  const order = await gw.client.request<Record<string, string>>("POST", "/openapi/payin/orders", {
    body: { chainCode: "TRON", tokenSymbol: "USDT", merchantOrderNo: "DARK-1", amount: "3", notifyUrl: "https://shop.example/cb" },
  });
  orderNo = order.orderNo!;
  const sb = sandboxClient(gw.url);
  await sb.transfer({ chainCode: "TRON", tokenSymbol: "USDT", toAddress: order.address!, amount: "2" });
  await sb.mine("TRON", 2);
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

test("dark system setting: dark page background and no serious or critical axe violation", async () => {
  const found: string[] = [];
  for (const size of [DESKTOP, PHONE]) {
    const ctx = await browser.newContext({ ...size, locale: "en-US", colorScheme: "dark" });
    const page = await ctx.newPage();
    await page.goto(gw.url + "/backoffice/login");
    const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g)!.map(Number);
    expect(r! + g! + b!).toBeLessThan(120); // dark, not the light theme's #f8fafc
    await withSession(page, gw.url, op);
    for (const path of ["/backoffice/login", "/backoffice", "/backoffice/payins", `/backoffice/orders/${orderNo}`, "/backoffice/exceptions", "/backoffice/merchants", "/backoffice/security"]) {
      if (path === "/backoffice/login") continue;
      await page.goto(gw.url + path);
      const res = await analyzeAxe(page);
      found.push(...res.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${size.viewport.width} ${path}: ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`));
    }
    await ctx.close();
  }
  expect(found).toEqual([]);
}, { retry: 2, timeout: 120_000 });

test("light system setting keeps the light theme", async () => {
  const ctx = await browser.newContext({ ...DESKTOP, colorScheme: "light" });
  const page = await ctx.newPage();
  await page.goto(gw.url + "/backoffice/login");
  expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe("rgb(248, 250, 252)");
  await ctx.close();
});
