// The money pages in Chinese (issue 30), in real Chromium with a zh-CN browser: every page of the
// money group (dashboard, lists, search, order and deposit pages, exceptions, wallets, balances,
// fees, batch payouts, collection) says <html lang="zh-CN">, shows its key texts in Chinese and no
// English sentence and has no action off-screen at 390 and 1280 wide, and is axe-clean at 1280 (what
// axe finds that depends on the language, lang and names, is the same at either width; what depends on
// the width is layout.browser.test.ts's, which runs axe on every page at both).
// SG_SCREENSHOTS=DIR also writes a full-page PNG of each (zh-<who>-<width>-<page>.png).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { analyzeAxe } from "../testing/axe";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { addUser, DESKTOP, layoutProblems, PHONE, type SeededPages, seedPages, withSession } from "../testing/backoffice-browser";

const SHOTS = process.env.SG_SCREENSHOTS;
let gw: TestGateway;
let browser: Browser;
let data: SeededPages;
const users = {} as Record<"op" | "shop", { username: string; password: string }>;

beforeAll(async () => {
  gw = await startTestGateway({ config: { chains: { TRON: { confirmations: 2 } }, payin: { shared_pool_size: 1 } } });
  browser = await launchBrowser();
  users.op = await addUser(gw, "root", "operator");
  users.shop = await addUser(gw, "shop", "merchant", gw.merchant.uid);
  data = await seedPages(gw);
});
afterAll(async () => {
  await browser?.close();
  await gw.stop();
});

/** A page and texts it must show in Chinese (a heading, a label, a button, a status). */
interface ZhPage {
  path: () => string;
  heading: RegExp;
  texts: string[];
}

const pages = (): Record<"op" | "shop", ZhPage[]> => ({
  op: [
    { path: () => "/backoffice", heading: /^仪表盘$/, texts: ["每日交易额", "区块链", "未完成订单", "最新区块"] },
    { path: () => "/backoffice/payins", heading: /^收款$/, texts: ["导出 CSV", "筛选", "商户订单号", "已完成"] },
    { path: () => "/backoffice/payouts", heading: /^付款$/, texts: ["导出 CSV", "开始日期"] },
    { path: () => "/backoffice/deposits", heading: /^入账$/, texts: ["收款地址", "区块时间", "未匹配"] },
    { path: () => "/backoffice/search?q=LAYOUT", heading: /^搜索$/, texts: ["商户订单号"] },
    { path: () => `/backoffice/orders/${data.paid.orderNo}`, heading: /^收款 PI/, texts: ["时间线", "转账", "回调", "付款人地址", "发送退款链接", "已完成"] },
    { path: () => `/backoffice/orders/${data.frozen.orderNo}`, heading: /^收款 PI/, texts: ["处理此笔付款", "处理方式", "按已付款接受", "已冻结"] },
    { path: () => `/backoffice/search?q=${data.stray}`, heading: /^入账 #\d+$/, texts: ["关联到订单", "查找订单", "未匹配原因", "忽略"] },
    { path: () => "/backoffice/exceptions", heading: /^异常$/, texts: ["未匹配入账", "冻结订单", "黑名单", "加入黑名单", "关联", "放行"] },
    { path: () => "/backoffice/wallets", heading: /^专属钱包$/, texts: ["标签", "最近入账"] },
    { path: () => `/backoffice/wallets/${data.wallet}`, heading: /^钱包 fund-1$/, texts: ["最近入账", "全部钱包"] },
    { path: () => "/backoffice/balances", heading: /^余额$/, texts: ["汇总", "对账不一致", "按地址", "可用"] },
    { path: () => "/backoffice/fees", heading: /^费用$/, texts: ["天数", "燃烧"] },
  ],
  shop: [
    { path: () => "/backoffice", heading: /^仪表盘$/, texts: ["每日交易额", "余额"] },
    ...(data.payout ? [{ path: () => `/backoffice/orders/${data.payout}`, heading: /^付款 PO/, texts: ["手续费", "链上费用", "时间线"] }] : []),
    { path: () => "/backoffice/batches", heading: /^批量付款$/, texts: ["付款 CSV 文件", "上传", "上传记录"] },
    { path: () => `/backoffice/batches/${data.batch}`, heading: /^批量付款 payouts\.csv$/, texts: ["有错误的行（不付款）", "按链和代币汇总", "确认付款", "放弃"] },
    { path: () => "/backoffice/collection", heading: /^归集$/, texts: ["目标地址", "设置目标地址", "立即归集", "保存目标地址"] },
    { path: () => `/backoffice/collection/runs/${data.run}`, heading: /^归集 TRON USDT$/, texts: ["最低金额", "返回归集"] },
  ],
});

/** Visible text of the main content that reads as an English sentence (three words or more), ids and addresses aside. */
async function englishLeft(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.querySelector("main")!, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement!;
      if (el.closest(".mono, code, time, option, script") || !el.checkVisibility()) continue;
      const t = (n.textContent ?? "").trim();
      if (/\b[A-Za-z]{2,}\s+[a-z]{2,}\s+[a-z]{2,}\b/.test(t)) out.push(t.slice(0, 80));
    }
    return out;
  });
}

/**
 * Each page loaded once in a zh-CN context, checked at 1280 and then at 390 in the same document
 * (the viewport resized; the CSS changes with the width only: layout.browser.test.ts's checkAll),
 * signed in by its session cookie (the Chinese sign-in form is layout.browser.test.ts's and
 * admin-zh.browser.test.ts's). docs/testing.md "Browser tests: cheaper files".
 */
async function sweep(who: "op" | "shop"): Promise<string[]> {
  const found: string[] = [];
  const ctx = await browser.newContext({ ...DESKTOP, locale: "zh-CN" });
  const page = await ctx.newPage();
  await withSession(page, gw.url, users[who]);
  await page.getByRole("heading", { name: "仪表盘" }).waitFor();
  for (const p of pages()[who]) {
    const path = p.path();
    await page.setViewportSize(DESKTOP.viewport);
    await page.goto(gw.url + path);
    for (const [name, size] of [["1280", DESKTOP], ["390", PHONE]] as const) {
      if (size === PHONE) await page.setViewportSize(size.viewport);
      const at = `${who} ${name} ${path}`;
      if ((await page.locator("html").getAttribute("lang")) !== "zh-CN") found.push(`${at}: html lang is not zh-CN`);
      const h1 = (await page.locator("h1").innerText()).trim();
      if (!p.heading.test(h1)) found.push(`${at}: heading "${h1}"`);
      // Key texts are shown (or, for a table header on a phone, are the card's labels).
      const main = await page.locator("main").evaluate((m) => m.textContent + " " + Array.from(m.querySelectorAll("[data-label]")).map((e) => e.getAttribute("data-label")).join(" "));
      for (const t of p.texts) if (!main.includes(t)) found.push(`${at}: no "${t}"`);
      for (const t of await englishLeft(page)) found.push(`${at}: English left: ${t}`);
      for (const l of await layoutProblems(page)) found.push(`${at}: ${l}`);
      const violations = size === DESKTOP ? (await analyzeAxe(page)).violations : [];
      for (const v of violations.filter((v) => v.impact === "serious" || v.impact === "critical")) found.push(`${at}: axe ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
      if (SHOTS) {
        mkdirSync(SHOTS, { recursive: true });
        const file = `zh-${who}-${name}-${path.replace(/^\/backoffice\/?/, "").replace(/[^A-Za-z0-9]+/g, "_").slice(0, 40) || "dashboard"}.png`;
        await page.screenshot({ path: join(SHOTS, file), fullPage: true });
      }
    }
  }
  await ctx.close();
  return found;
}

test("operator: the money pages in Chinese at 390 and 1280, no action off-screen, axe-clean at 1280", async () => {
  expect(await sweep("op")).toEqual([]);
}, { retry: 1, timeout: 300_000 });

test("merchant user: dashboard, payout, batch and collection pages in Chinese at 390 and 1280, no action off-screen, axe-clean at 1280", async () => {
  expect(await sweep("shop")).toEqual([]);
}, { retry: 1, timeout: 300_000 });

test("an English browser gets the same pages in English", async () => {
  const ctx = await browser.newContext({ ...DESKTOP, locale: "en-US" });
  const page = await ctx.newPage();
  await page.goto(gw.url + "/backoffice/login");
  await page.getByLabel("Username").fill(users.op.username);
  await page.getByLabel("Password").fill(users.op.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.goto(`${gw.url}/backoffice/orders/${data.frozen.orderNo}`);
  expect(await page.locator("html").getAttribute("lang")).toBe("en");
  await page.getByRole("heading", { name: "Resolve this payment" }).waitFor();
  await page.getByRole("heading", { name: "Timeline" }).waitFor();
  await page.goto(`${gw.url}/backoffice/exceptions`);
  await page.getByRole("button", { name: /^Attach deposit #\d+$/ }).first().waitFor();
  await ctx.close();
}, { retry: 1, timeout: 120_000 });
