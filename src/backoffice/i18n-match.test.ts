import { expect, test } from "bun:test";
import { withLocale } from "./i18n";
import { trMatch } from "./i18n-match";
import { plainErrorText } from "./views/callback-deliveries";

const req = (lang: string) => new Request("http://127.0.0.1/backoffice", { headers: { "accept-language": lang } });

test("trMatch: a made sentence through its template in Chinese; in English exactly as made", () => {
  const t = ["The server answered HTTP {status} ({reason}); only a 2xx answer counts."];
  const s = "The server answered HTTP 502 (bad gateway); only a 2xx answer counts.";
  expect(withLocale(req("zh-CN"), () => trMatch(s, t))).toBe("服务器返回 HTTP 502（bad gateway）；只有 2xx 响应才算送达。");
  expect(withLocale(req("en"), () => trMatch(s, t))).toBe(s);
  expect(withLocale(req("zh-CN"), () => trMatch("Something else (x).", t))).toBe("Something else (x).");
});

test("callback errors in plain words follow the page's language", () => {
  expect(withLocale(req("zh-CN"), () => plainErrorText("ECONNREFUSED: ECONNREFUSED", null))).toBe("服务器拒绝了连接：该地址和端口上没有服务在监听。");
  expect(withLocale(req("zh-CN"), () => plainErrorText("timed out after 10000ms", null))).toBe("10 s 内没有响应（回调超时）。");
  expect(withLocale(req("en"), () => plainErrorText("HTTP 404", 404))).toBe("The server answered HTTP 404 (not found); only a 2xx answer counts.");
  expect(withLocale(req("zh-CN"), () => plainErrorText(null, 200))).toBeNull();
});
