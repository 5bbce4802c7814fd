// The back office in Chinese when the browser asks for it (Accept-Language, chosen as the checkout
// chooses: src/checkout/i18n.ts pickLocale). A table from the English text to its translation:
// anything not in the table stays English, so a page is never broken by a missing entry, and a
// browser that asks for English gets exactly the English accessible names that outside tests use.
// The locale of the request being rendered is kept in an AsyncLocalStorage entered by the guard
// (page, action, publicAction) and the sign-in routes, so components need no extra prop.
import { AsyncLocalStorage } from "node:async_hooks";
import { pickLocale, type Locale } from "../checkout/i18n";
import { ZH_ADMIN } from "./i18n-zh-admin";
import { ZH_MONEY } from "./i18n-zh-money";

/** English → Chinese for the layout, sign-in and error pages. Partial on purpose: add entries as pages are translated. */
const ZH_COMMON: Readonly<Record<string, string>> = {
  // Layout
  "Skip to content": "跳到正文",
  Search: "搜索",
  "orderNo, merchantOrderNo, txHash, address": "订单号、商户订单号、交易哈希、地址",
  "Sign out": "退出",
  Menu: "菜单",
  Main: "主导航",
  "(operator)": "（运营方）",
  // Navigation and page titles
  Dashboard: "仪表盘",
  "Pay-ins": "收款",
  Payouts: "付款",
  Deposits: "入账",
  "Payment links": "收款链接",
  Exceptions: "异常",
  Merchants: "商户",
  Callbacks: "回调",
  Wallets: "钱包",
  Balances: "余额",
  "Batch payouts": "批量付款",
  Collection: "归集",
  Developer: "开发者",
  Alerts: "告警",
  Users: "用户",
  "Audit log": "审计日志",
  Security: "安全",
  "Developer settings": "开发者设置",
  // Sign-in and first steps
  "Sign in": "登录",
  Username: "用户名",
  Password: "密码",
  "Wrong username or password.": "用户名或密码错误。",
  "Signed out.": "已退出。",
  "Operator created. Sign in.": "运营方账号已创建，请登录。",
  "Two-factor authentication": "双重验证",
  "Authentication code": "验证码",
  "The 6-digit code from your authenticator app, or one of your recovery codes.": "身份验证器应用中的 6 位验证码，或一个恢复码。",
  Verify: "验证",
  "Choose a new password": "设置新密码",
  "Your password was set by an operator. Choose your own to continue; only you will know it.": "您的密码由运营方设置。请设置您自己的密码后继续，只有您知道它。",
  "New password": "新密码",
  "Repeat new password": "再次输入新密码",
  "At least 12 characters.": "至少 12 个字符。",
  "Set password": "设置密码",
  "This gateway asks operators to use two-factor authentication. Set it up to continue.": "本网关要求运营方使用双重验证。请先完成设置。",
  // Errors
  "Not found": "未找到",
  "Not allowed": "不允许",
  "Back to the dashboard": "返回仪表盘",
  "Confirm it is you": "确认是您本人",
  Confirm: "确认",
};

/**
 * Every page's table: the common entries above, the money pages' (orders, payouts, treasury,
 * balances: i18n-zh-money.ts) and the administration pages' (merchants, users, settings,
 * callbacks, audit: i18n-zh-admin.ts). Each English text lives in one table (words the shared views use, in the money table); i18n.test.ts refuses one in two.
 */
export const ZH: Readonly<Record<string, string>> = { ...ZH_COMMON, ...ZH_MONEY, ...ZH_ADMIN };
export const ZH_TABLES: Readonly<Record<string, Readonly<Record<string, string>>>> = { common: ZH_COMMON, money: ZH_MONEY, admin: ZH_ADMIN };

const current = new AsyncLocalStorage<Locale>();

/** Runs `fn` (a page's rendering) in the locale the request asks for. */
export function withLocale<T>(request: Request, fn: () => T): T {
  return current.run(pickLocale(request.headers.get("accept-language")), fn);
}

/** The locale of the page being rendered (English outside a request). */
export const locale = (): Locale => current.getStore() ?? "en";

/** The text in the page's language: its table entry, else the English text itself. */
export function tr(english: string): string {
  return locale() === "zh" ? (ZH[english] ?? english) : english;
}

/**
 * A text with values in it: the table's entry is looked up by the English template (with
 * `{name}` placeholders), then each placeholder is filled. `trf("{n} waiting", { n: 3 })`.
 */
export function trf(template: string, values: Readonly<Record<string, string | number | bigint>>): string {
  return tr(template).replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
}

/**
 * A short word that means different things on different pages ("From" a day, "From" an address):
 * its table entry is "context: word" (`trc("date", "From")` → "date: From"), else the word's own.
 * English is the word itself.
 */
export function trc(context: string, english: string): string {
  return locale() === "zh" ? (ZH[`${context}: ${english}`] ?? tr(english)) : english;
}

const escapeText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * A text (in the page's language) with markup in it: `{name}` placeholders are filled with
 * elements already rendered (and escaped) by JSX, the words around them are escaped here.
 * Only &, < and > are escaped, as text content needs, so an English sentence with an apostrophe
 * renders byte for byte as the same sentence written in the JSX. `trm("API key of {uid}.", { uid: <strong safe>{uid}</strong> })`.
 */
export function trm(template: string, parts: Readonly<Record<string, JSX.Element>> = {}): JSX.Element {
  return tr(template)
    .split(/(\{\w+\})/)
    .map((piece) => {
      const name = /^\{(\w+)\}$/.exec(piece)?.[1];
      if (name === undefined || !(name in parts)) return escapeText(piece);
      const part = parts[name];
      if (typeof part !== "string") throw new Error("trm: an asynchronous part");
      return part;
    })
    .join("");
}
