import { expect, test } from "bun:test";
import { locale, tr, withLocale, ZH } from "./i18n";

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
