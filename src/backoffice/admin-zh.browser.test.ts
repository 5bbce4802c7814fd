// Issue 30 in Chromium: the administration pages (merchants and onboarding, users, security,
// developer settings, callbacks, alerts, audit log, payment links, re-authentication) in Chinese
// for a browser that asks for it (Accept-Language zh-CN): <html lang="zh-CN">, the headings,
// labels and buttons in Chinese, and no serious or critical axe violation, at desktop size in
// the light theme and at phone size in the dark theme. Onboarding a merchant and the first
// user's first sign-in work end to end in Chinese.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { analyzeAxe } from "../testing/axe";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../testing/browser";
import { startTestGateway, type TestGateway } from "../testing/harness";
import { startReceiver, type Receiver } from "../testing/receiver";
import { addUser, DESKTOP, PHONE, withSession } from "../testing/backoffice-browser";
import { listMerchants } from "../merchants/service";
import { findUser } from "./users";

const BROWSER_RETRY = { retry: 2, timeout: 180_000 };
let gw: TestGateway;
let browser: Browser;
let receiver: Receiver;
let op: { username: string; password: string };
let mu: { username: string; password: string };
let opCtx: BrowserContext;
let opPage: Page;
const firstUser = { username: "chaguan", password: "" };

/** Signs in on the Chinese sign-in page (labels 用户名, 密码; button 登录). */
async function signInZh(page: Page, who: { username: string; password: string }): Promise<void> {
  await page.goto(gw.url + "/backoffice/login");
  await page.getByLabel("用户名").fill(who.username);
  await page.getByLabel("密码").fill(who.password);
  await page.getByRole("button", { name: "登录" }).click();
}

/** The guard's "Confirm it is you" step in Chinese. */
async function confirmZh(page: Page, password: string): Promise<void> {
  await page.getByRole("heading", { name: "确认是您本人" }).waitFor();
  await page.locator("#reauth").fill(password);
  await page.getByRole("button", { name: "确认", exact: true }).click();
}

beforeAll(async () => {
  receiver = startReceiver();
  gw = await startTestGateway();
  browser = await launchBrowser();
  op = await addUser(gw, "laoban", "operator");
  mu = await addUser(gw, "dianzhu", "merchant", gw.merchant.uid);
  opCtx = await browser.newContext({ ...DESKTOP, locale: "zh-CN" });
  opPage = await opCtx.newPage();
  await signInZh(opPage, op);
  await opPage.getByRole("heading", { name: "仪表盘" }).waitFor();
});
afterAll(async () => {
  await opCtx?.close();
  await browser?.close();
  await gw.stop();
  await receiver.stop();
});

test("onboarding in Chinese: the form, the key with 复制 API 密钥, the first user's password, next steps and a delivered test callback", async () => {
  const page = opPage;
  await page.goto(gw.url + "/backoffice/merchants");
  await page.getByRole("heading", { name: "添加商户" }).waitFor();
  await page.getByLabel("名称", { exact: true }).fill("茶馆");
  await page.getByLabel("默认回调地址（可选）").fill(receiver.url + "/cb");
  await page.getByLabel("首个用户的用户名（可选）").fill(firstUser.username);
  await page.getByRole("button", { name: "创建商户" }).click();
  await confirmZh(page, op.password);
  const m = (await listMerchants(gw.ctx.db)).find((x) => x.name === "茶馆")!;
  expect(await page.getByRole("status").first().innerText()).toBe(`商户 ${m.uid} 已创建。`);
  expect(await page.getByRole("region", { name: "新 API 密钥" }).innerText()).toContain("请立即保存：它不会再次显示。");
  await page.getByRole("button", { name: "复制 API 密钥" }).waitFor();
  firstUser.password = (await page.locator("[data-password]").innerText()).trim();
  expect(firstUser.password.length).toBe(20);
  await page.getByRole("button", { name: "复制密码" }).waitFor();
  const next = await page.getByRole("region", { name: "后续步骤" }).innerText();
  expect(next).toContain(`确认商户能在 ${receiver.url}/cb 收到回调`);
  await page.getByRole("button", { name: "发送测试回调" }).click();
  await page.getByText("测试回调已加入队列").waitFor();
  await receiver.waitFor((r) => r.length > 0, 20_000);
  await page.reload();
  await page.getByRole("heading", { name: `商户 ${m.uid}` }).waitFor();
  await page.getByRole("region", { name: "测试回调" }).getByRole("columnheader", { name: "HTTP 状态码" }).waitFor();
  expect(await page.locator("html").getAttribute("lang")).toBe("zh-CN");
}, BROWSER_RETRY);

test("a refused form says why in Chinese and keeps what was typed", async () => {
  const page = opPage;
  await page.goto(gw.url + "/backoffice/users");
  await page.getByLabel("新用户名").fill("clerk9");
  await page.getByLabel("角色").selectOption("merchant");
  await page.getByRole("button", { name: "创建用户" }).click();
  await confirmZh(page, op.password);
  expect(await page.getByRole("alert").innerText()).toBe("请选择该用户所属的商户（所属商户），或将其设为运营方。");
  expect(await page.getByLabel("新用户名").inputValue()).toBe("clerk9");
  expect(await findUser(gw.ctx.db, "clerk9")).toBeUndefined();
}, BROWSER_RETRY);

test("the first user's first sign-in in Chinese: choose a password, then developer settings and payment links", async () => {
  expect(firstUser.password).not.toBe("");
  const ctx = await browser.newContext({ ...PHONE, locale: "zh-CN" });
  const page = await ctx.newPage();
  await signInZh(page, firstUser);
  await page.getByRole("heading", { name: "设置新密码" }).waitFor();
  await page.getByLabel("新密码", { exact: true }).fill("wo-de-mi-ma-1234");
  await page.getByLabel("再次输入新密码").fill("wo-de-mi-ma-9999");
  await page.getByRole("button", { name: "设置密码" }).click();
  expect(await page.getByRole("alert").innerText()).toBe("两次输入的密码不一致，请重新输入两次新密码。");
  await page.getByLabel("新密码", { exact: true }).fill("wo-de-mi-ma-1234");
  await page.getByLabel("再次输入新密码").fill("wo-de-mi-ma-1234");
  await page.getByRole("button", { name: "设置密码" }).click();
  await page.getByRole("heading", { name: "仪表盘" }).waitFor();

  await page.goto(gw.url + "/backoffice/developer");
  await page.getByRole("heading", { name: "开发者设置" }).waitFor();
  await page.getByRole("heading", { name: "API 密钥" }).waitFor();
  await page.getByRole("button", { name: "更换 API 密钥" }).waitFor();
  expect(await page.getByLabel("默认回调地址").inputValue()).toBe(receiver.url + "/cb");
  await page.getByRole("heading", { name: "商城插件" }).waitFor();

  await page.goto(gw.url + "/backoffice/payment-links");
  await page.getByRole("heading", { name: "新建收款链接" }).waitFor();
  await page.getByLabel("金额").fill("abc");
  await page.getByRole("button", { name: "创建收款链接" }).click();
  expect(await page.getByRole("alert").innerText()).toBe("金额: 必须是数字，如 100 或 99.50");
  await page.getByLabel("金额").fill("88");
  await page.getByRole("button", { name: "创建收款链接" }).click();
  await page.getByRole("heading", { name: /^收款链接 IV/ }).waitFor();
  expect(await page.getByRole("status").first().innerText()).toContain("收款链接已创建");
  await page.getByRole("img", { name: /^收款链接 IV.* 的二维码$/ }).waitFor();
  await ctx.close();
}, BROWSER_RETRY);

interface Check {
  path: () => string;
  /** Headings (h1 first) and other accessible names that must be there, in Chinese. */
  headings: string[];
  buttons?: string[];
}

const operatorPages = (): Check[] => [
  { path: () => "/backoffice/merchants", headings: ["商户", "添加商户", "商户列表"], buttons: ["创建商户"] },
  { path: () => `/backoffice/merchants/${gw.merchant.uid}`, headings: [`商户 ${gw.merchant.uid}`, "设置", "测试回调", "手续费余额"], buttons: ["更换密钥", "保存设置", "发送测试回调", "应用"] },
  { path: () => "/backoffice/users", headings: ["用户", "添加用户"], buttons: ["创建用户", "重置密码（dianzhu）", "停用 dianzhu"] },
  { path: () => "/backoffice/security", headings: ["安全", "双重验证", "密码", "会话"], buttons: ["设置双重验证", "修改密码"] },
  { path: () => "/backoffice/callbacks", headings: ["回调"] },
  { path: () => "/backoffice/alerts", headings: ["告警", "正在告警", "最近解除"] },
  { path: () => "/backoffice/audit", headings: ["审计日志"], buttons: ["筛选"] },
  { path: () => "/backoffice/payment-links", headings: ["收款链接", "账单和收款链接"] },
];
const MERCHANT: Check[] = [
  { path: () => "/backoffice/developer", headings: ["开发者设置", "API 密钥", "回调", "IP 白名单", "商城插件"], buttons: ["更换 API 密钥", "保存回调地址", "发送测试回调", "保存 IP 白名单", "保存 epusdt 令牌", "保存易支付密钥"] },
  { path: () => "/backoffice/payment-links", headings: ["收款链接", "新建收款链接", "账单和收款链接"], buttons: ["创建收款链接"] },
  { path: () => "/backoffice/callbacks", headings: ["回调"] },
  { path: () => "/backoffice/security", headings: ["安全", "双重验证"], buttons: ["设置双重验证"] },
];

/** Words of the shared views (views/common.tsx: the date filter), translated in i18n-zh-money.ts, and names that stay as written. */
const SHARED = ["From", "To", "Filter", "UID", "IP", "URL"];

/**
 * Each page loaded once and checked twice in the same document: at 1280 in the light theme, then
 * resized to 390 with the dark theme emulated (the CSS changes with width and color scheme only:
 * layout.browser.test.ts's checkAll). docs/testing.md "Browser tests: cheaper files".
 */
async function checkPages(page: Page, checks: Check[], who: string): Promise<string[]> {
  const found: string[] = [];
  for (const c of checks) {
    const path = c.path();
    await page.setViewportSize(DESKTOP.viewport);
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(gw.url + path);
    for (const [size, scheme, name] of [[DESKTOP, "light", "1280 light"], [PHONE, "dark", "390 dark"]] as const) {
      if (size === PHONE) {
        await page.setViewportSize(size.viewport);
        await page.emulateMedia({ colorScheme: scheme });
      }
      found.push(...(await checkPage(page, c, `${name} ${who} ${path}`)));
    }
  }
  return found;
}

async function checkPage(page: Page, c: Check, where: string): Promise<string[]> {
  const found: string[] = [];
  if ((await page.locator("html").getAttribute("lang")) !== "zh-CN") found.push(`${where}: html lang is not zh-CN`);
  const h1 = (await page.locator("h1").innerText()).trim();
  if (h1 !== c.headings[0]) found.push(`${where}: h1 is ${JSON.stringify(h1)}`);
  for (const name of c.headings.slice(1)) if ((await page.getByRole("heading", { name, exact: true }).count()) === 0) found.push(`${where}: no heading ${name}`);
  for (const name of c.buttons ?? []) if ((await page.getByRole("button", { name, exact: true }).count()) === 0) found.push(`${where}: no button ${name}`);
  // Every visible heading, label, table header and button speaks Chinese (values such as UIDs aside).
  let english = await page.evaluate(() =>
    Array.from(document.querySelectorAll("main h2, main label, main th, main button, main legend, main dt"))
      // Network names (TRON USDT) are names, as on the checkout.
      .filter((e) => ((e as HTMLElement).offsetParent !== null || e.closest("th")) && !e.closest("fieldset.checks"))
      .map((e) => (e.textContent ?? "").trim())
      .filter((t) => t && !/[\u4e00-\u9fff]/.test(t)),
  );
  english = english.filter((t) => !SHARED.includes(t));
  if (english.length) found.push(`${where}: English left: ${english.join(" | ")}`);
  const axe = await analyzeAxe(page);
  found.push(...axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${where}: ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`));
  return found;
}

test("every administration page in Chinese: lang zh-CN, headings, labels and buttons in Chinese, axe-clean at desktop (light) and phone (dark)", async () => {
  const found: string[] = [];
  for (const [who, checks] of [[op, operatorPages()], [mu, MERCHANT]] as const) {
    // Signed in by its session cookie: the Chinese sign-in form is beforeAll's and the first user's test's.
    const ctx = await browser.newContext({ ...DESKTOP, locale: "zh-CN" });
    const page = await ctx.newPage();
    await withSession(page, gw.url, who);
    await page.getByRole("heading", { name: "仪表盘" }).waitFor();
    found.push(...(await checkPages(page, checks, who.username)));
    await ctx.close();
  }
  expect(found).toEqual([]);
}, BROWSER_RETRY);

test("the setup link's refusal in Chinese, the same page in English for an English browser", async () => {
  const zh = await fetch(gw.url + "/backoffice/setup/not-a-token", { headers: { "accept-language": "zh-CN,zh;q=0.9" } });
  expect(zh.status).toBe(404);
  const body = await zh.text();
  expect(body).toContain('<html lang="zh-CN">');
  expect(body).toContain("此设置链接无效：它已被使用、已过期，或已存在运营方账号。");
  const en = await (await fetch(gw.url + "/backoffice/setup/not-a-token", { headers: { "accept-language": "en-US" } })).text();
  expect(en).toContain("This setup link is not valid: it was used, it expired, or an operator exists already.");
});
