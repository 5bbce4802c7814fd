// Every back-office page at phone width (390) and desktop width (1280), for both roles: nothing
// overflows sideways, no action (a button or link in the main content) lies off-screen, the tabs
// are a menu on a phone, and axe finds no serious or critical violation at either size.
// SG_SCREENSHOTS=DIR also writes a full-page PNG of every page at both sizes (issue 30: looked at
// before a layout change is finished).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { addUser, DESKTOP, layoutProblems, PHONE, type SeededPages, seedPages, signedIn } from "../testing/backoffice-browser";
import { navFor } from "./views/nav";
import { backofficeApp } from "./routes";
import { backofficeDeps } from "./guard";

const SHOTS = process.env.SG_SCREENSHOTS;
let gw: TestGateway;
let browser: Browser;
const users = {} as Record<"op" | "mine", { username: string; password: string }>;
const data = {} as SeededPages & { depositPath?: string };

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TRON: { confirmations: 2 } }, payin: { shared_pool_size: 1 } } });
  browser = await launchBrowser();
  users.op = await addUser(gw, "root", "operator");
  users.mine = await addUser(gw, "shop", "merchant", gw.merchant.uid);
  Object.assign(data, await seedPages(gw));
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

const operatorPages = () => [
  "/backoffice",
  "/backoffice/payins",
  "/backoffice/payouts",
  "/backoffice/deposits",
  "/backoffice/payment-links",
  `/backoffice/search?q=${data.paid.orderNo}`,
  `/backoffice/orders/${data.paid.orderNo}`,
  ...(data.payout ? [`/backoffice/orders/${data.payout}`] : []),
  ...(data.depositPath ? [data.depositPath] : []),
  "/backoffice/exceptions",
  "/backoffice/lookup",
  "/backoffice/merchants",
  `/backoffice/merchants/${gw.merchant.uid}`,
  "/backoffice/callbacks",
  "/backoffice/wallets",
  "/backoffice/balances",
  ...(data.wallet ? [`/backoffice/wallets/${data.wallet}`] : []),
  "/backoffice/fees",
  `/backoffice/payment-links/${data.invoice}`,
  "/backoffice/alerts",
  "/backoffice/users",
  "/backoffice/audit",
  "/backoffice/security",
  "/backoffice/password",
];
const merchantPages = () => [
  "/backoffice",
  "/backoffice/payins",
  "/backoffice/payouts",
  "/backoffice/deposits",
  "/backoffice/payment-links",
  `/backoffice/orders/${data.paid.orderNo}`,
  "/backoffice/callbacks",
  "/backoffice/wallets",
  "/backoffice/balances",
  "/backoffice/batches",
  `/backoffice/batches/${data.batch}`,
  "/backoffice/collection",
  `/backoffice/collection/runs/${data.run}`,
  "/backoffice/developer",
  "/backoffice/lookup",
  "/backoffice/security",
  "/backoffice/password",
  ...(data.depositPath ? [data.depositPath] : []),
  ...(data.wallet ? [`/backoffice/wallets/${data.wallet}`] : []),
  "/backoffice/fees",
  `/backoffice/payment-links/${data.invoice}`,
  ...(data.payout ? [`/backoffice/orders/${data.payout}`] : []),
];

/**
 * GET routes that are not a signed-in page, each with where it is checked: everything else in
 * the route table must be in operatorPages() or merchantPages() (a new page cannot be missed).
 */
const NOT_PAGES: Record<string, string> = {
  "/backoffice/assets/app.css": "stylesheet",
  "/backoffice/assets/app.js": "script",
  "/backoffice/counts.json": "JSON for the dashboard's script",
  "/backoffice/payins.csv": "CSV export",
  "/backoffice/payouts.csv": "CSV export",
  "/backoffice/deposits.csv": "CSV export",
  "/backoffice/audit.csv": "CSV export",
  "/backoffice/batches/:id/results.csv": "CSV export",
  "/backoffice/login": "signed out: auth.browser.test.ts (and the Chinese sign-in below)",
  "/backoffice/login/code": "signed out, half signed in: auth.browser.test.ts",
  "/backoffice/setup/:token": "signed out, a setup link: onboarding.browser.test.ts",
  "/backoffice/*": "the not-found page",
};


async function axeProblems(page: Page): Promise<string[]> {
  const r = await analyzeAxe(page);
  return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * Each page loaded once, checked at 1280 and then at 390 in the same document (the viewport
 * resized): the back office's CSS changes with the width only (max-width/min-width queries, no
 * hover or pointer ones), and every page has `width=device-width`, so a 390 px window lays out as
 * a 390 px phone does; what a phone adds (the header's Menu, touch) is the phone test below, in a
 * phone context. One load and one axe injection per page instead of two (docs/testing.md
 * "Browser tests: cheaper files").
 */
async function checkAll(who: "op" | "mine", paths: string[]): Promise<string[]> {
  const found: string[] = [];
  const { ctx, page } = await signedIn(browser, gw, users[who], DESKTOP);
  for (const path of paths) {
    await page.setViewportSize(DESKTOP.viewport);
    await page.goto(gw.url + path);
    for (const [name, size] of [["1280", DESKTOP], ["390", PHONE]] as const) {
      if (name === "390") await page.setViewportSize(size.viewport);
      for (const p of await layoutProblems(page)) found.push(`${who} ${name} ${path}: ${p}`);
      for (const p of await axeProblems(page)) found.push(`${who} ${name} ${path}: axe ${p}`);
      if (SHOTS) {
        mkdirSync(SHOTS, { recursive: true });
        const file = `${who}-${name}-${path.replace(/^\/backoffice\/?/, "").replace(/[^A-Za-z0-9]+/g, "_") || "dashboard"}.png`;
        await page.screenshot({ path: join(SHOTS, file), fullPage: true });
      }
    }
  }
  await ctx.close();
  return found;
}

test("operator: every page at 390 and 1280 has no action off-screen, no sideways overflow, no serious axe violation", async () => {
  // The deposit page (Attach, refund, dismiss forms): the search opens it (its txHash is the only hit).
  const { ctx, page } = await signedIn(browser, gw, users.op, DESKTOP);
  await page.goto(`${gw.url}/backoffice/search?q=${data.stray}`);
  await page.waitForURL(/\/backoffice\/deposits\/\d+$/);
  data.depositPath = new URL(page.url()).pathname;
  await ctx.close();
  expect(await checkAll("op", operatorPages())).toEqual([]);
}, { retry: 1, timeout: 300_000 });

test("merchant: every page at 390 and 1280 has no action off-screen, no sideways overflow, no serious axe violation", async () => {
  expect(await checkAll("mine", merchantPages())).toEqual([]);
}, { retry: 1, timeout: 300_000 });

test("phone: the header's Menu leads to every tab, each on screen; desktop shows the tabs without it", async () => {
  const { ctx, page } = await signedIn(browser, gw, users.op, PHONE);
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  const nav = page.getByRole("navigation", { name: "Main" });
  await page.getByRole("link", { name: "Menu", exact: true }).click();
  await page.waitForFunction(() => location.hash === "#nav");
  expect(await nav.isVisible()).toBe(true);
  const links = nav.getByRole("link");
  expect(await links.count()).toBe(navFor("operator").length);
  for (const box of await links.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect))) {
    expect(box.left).toBeGreaterThanOrEqual(0);
    expect(box.right).toBeLessThanOrEqual(390);
  }
  await nav.getByRole("link", { name: "Exceptions" }).click();
  await page.getByRole("heading", { name: "Exceptions" }).waitFor();
  // The rows of the exceptions queue are cards: status and the actions are on screen.
  await page.getByRole("button", { name: /^Attach/ }).first().waitFor();
  expect(await layoutProblems(page)).toEqual([]);
  await ctx.close();
  const desk = await signedIn(browser, gw, users.op, DESKTOP);
  expect(await desk.page.getByRole("link", { name: "Menu", exact: true }).count()).toBe(0);
  const tabs = await desk.page.getByRole("navigation", { name: "Main" }).getByRole("link").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
  expect(tabs.length).toBe(navFor("operator").length);
  expect(tabs.filter((t) => t.left < 0 || t.right > 1280)).toEqual([]); // every tab on screen, none in a sideways strip
  await desk.ctx.close();
}, { retry: 1, timeout: 120_000 });

test("the back office follows the browser's language: Chinese where translated, English for the rest and for English browsers", async () => {
  const zh = await browser.newContext({ ...PHONE, locale: "zh-CN" });
  const page = await zh.newPage();
  await page.goto(gw.url + "/backoffice/login");
  expect(await page.locator("html").getAttribute("lang")).toBe("zh-CN");
  await page.getByLabel("用户名").fill(users.op.username);
  await page.getByLabel("密码").fill(users.op.password);
  await page.getByRole("button", { name: "登录" }).click();
  await page.getByRole("heading", { name: "仪表盘" }).waitFor();
  expect(await page.getByRole("navigation", { name: "主导航" }).getByRole("link", { name: "异常" }).count()).toBe(1);
  // A page body translated since (admin-zh.browser.test.ts opens each); a text not in the
  // table stays English, never a blank or a key (i18n.test.ts).
  await page.goto(gw.url + "/backoffice/merchants");
  await page.getByRole("button", { name: "创建商户" }).waitFor();
  expect(await layoutProblems(page)).toEqual([]);
  await zh.close();
  const en = await signedIn(browser, gw, users.op, PHONE);
  expect(await en.page.locator("html").getAttribute("lang")).toBe("en");
  await en.page.getByRole("heading", { name: "Dashboard" }).waitFor();
  await en.page.getByRole("link", { name: "Exceptions" }).waitFor();
  await en.ctx.close();
}, { retry: 1, timeout: 120_000 });

// Last: the deposit page's path is found by the operator's test.
test("every GET page of the route table is visited here at both sizes", () => {
  const routes = backofficeApp(backofficeDeps(gw.ctx, () => {}, async () => [])).routes.filter((r) => r.method === "GET").map((r) => r.path);
  const visited = [...operatorPages(), ...merchantPages()].map((p) => p.split("?")[0]!);
  const pattern = (route: string) => new RegExp("^" + route.replace(/:[a-zA-Z]+/g, "[^/]+") + "$");
  const missing = routes.filter((r) => !(r in NOT_PAGES) && !visited.some((p) => pattern(r).test(p)));
  expect(missing).toEqual([]);
  expect(routes.length).toBeGreaterThan(30);
});
