import { expect, test } from "bun:test";
import { locale, tr, trc, trf, trm, withLocale, ZH, ZH_TABLES } from "./i18n";
import { plainErrorText } from "./views/callback-deliveries";

const req = (acceptLanguage?: string) => new Request("http://127.0.0.1/backoffice", { headers: acceptLanguage ? { "accept-language": acceptLanguage } : {} });

test("tr: Chinese from the table when the browser prefers it, English otherwise and for anything not in the table", async () => {
  expect(withLocale(req("zh-CN,zh;q=0.9,en;q=0.8"), () => [locale(), tr("Dashboard"), tr("Not in the table")])).toEqual(["zh", "仪表盘", "Not in the table"]);
  expect(withLocale(req("en-US,en;q=0.9"), () => tr("Dashboard"))).toBe("Dashboard");
  expect(withLocale(req(), () => tr("Dashboard"))).toBe("Dashboard");
  // The locale holds across awaits of the request it was entered for.
  expect(await withLocale(req("zh"), async () => { await Bun.sleep(1); return tr("Sign in"); })).toBe("登录");
  expect(locale()).toBe("en");
});

test("every translation is non-empty and keeps placeholders and markup out", () => {
  for (const [en, zh] of Object.entries(ZH)) {
    expect(zh.trim().length).toBeGreaterThan(0);
    expect(/[<>&]/.test(zh)).toBe(false);
    expect(en).not.toBe(zh);
  }
});

test("trf fills placeholders after translating the template", () => {
  expect(withLocale(req("en"), () => trf("{n} of {total}", { n: 3, total: 10n }))).toBe("3 of 10");
  expect(withLocale(req("zh"), () => trf("Not in the table {x}", { x: "a" }))).toBe("Not in the table a");
});

test("every English text is in one table only (never translated twice, never two ways)", () => {
  const seen = new Map<string, string>();
  const twice: string[] = [];
  for (const [name, table] of Object.entries(ZH_TABLES))
    for (const en of Object.keys(table)) {
      const before = seen.get(en);
      if (before !== undefined) twice.push(`${en} (${before}, ${name})`);
      seen.set(en, name);
    }
  expect(twice).toEqual([]);
});

test("trm: markup parts kept, the words around them escaped as text (an apostrophe as written)", () => {
  const parts = { uid: "<strong>M1</strong>" };
  expect(withLocale(req("en"), () => trm("API key of {uid}. Store it now: it is not shown again.", parts))).toBe("API key of <strong>M1</strong>. Store it now: it is not shown again.");
  expect(withLocale(req("en"), () => trm("the shop's <b> & {missing}"))).toBe("the shop's &lt;b&gt; &amp; {missing}");
  expect(withLocale(req("zh-CN"), () => trm("API key of {uid}. Store it now: it is not shown again.", parts))).toBe("<strong>M1</strong> 的 API 密钥。请立即保存：它不会再次显示。");
});

test("trc: a word with a context is looked up as 'context: word', English stays the word", () => {
  expect(withLocale(req("zh"), () => [trc("date", "From"), trc("date", "Filter")])).toEqual(["开始日期", "筛选"]); // no "date: Filter": the word's own entry
  expect(withLocale(req("en"), () => trc("date", "From"))).toBe("From");
});

test("callback errors in plain words follow the page's language, by their code", () => {
  expect(withLocale(req("zh-CN"), () => plainErrorText("ECONNREFUSED: ECONNREFUSED", null))).toBe("服务器拒绝了连接：该地址和端口上没有服务在监听。");
  expect(withLocale(req("zh-CN"), () => plainErrorText("timed out after 10000ms", null))).toBe("10 s 内没有响应（回调超时）。");
  expect(withLocale(req("en"), () => plainErrorText("HTTP 404", 404))).toBe("The server answered HTTP 404 (not found); only a 2xx answer counts.");
  expect(withLocale(req("zh-CN"), () => plainErrorText(null, 200))).toBeNull();
});
