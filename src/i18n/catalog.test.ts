// The coded texts (src/i18n/catalog.ts) against the errors that carry them and the code that
// names them: each domain error's code → HTTP status → words in every locale, table-driven; the
// placeholders agree between locales; every code is named by the code that raises it.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DOMAIN_ERRORS, DomainError, type DomainCode, type DomainParams } from "../errors";
import { URL_PROBLEMS } from "../lib/target-url";
import { DELIVERY_EN, errorSentence, errorText, TEXTS, textOf, type DeliveryCode, type TextCode } from "./catalog";

/** Every domain error: its parameters, the status a page answers, its English and its Chinese. */
const DOMAIN_CASES: Array<[DomainCode, DomainParams, number, string, string]> = [
  ["payin.accept_refused", { orderNo: "P1", refunded: "12.000000 USDT", kept: "0.000000 USDT", amount: "10.000000 USDT" }, 409,
    "cannot release order P1: 12.000000 USDT was already refunded, so 0.000000 USDT is kept, less than the order amount of 10.000000 USDT: it cannot be accepted as paid.",
    "无法放行订单 P1：已退款 12.000000 USDT，保留的 0.000000 USDT 少于订单金额 10.000000 USDT，不能按已付款接受。"],
  ["merchant.name_invalid", { max: 100 }, 400, "a merchant name is 1-100 characters", "商户名称为 1-100 个字符"],
  ["callback_url.too_long", { max: 2048 }, 400, "default notify URL must be at most 2048 characters", "默认回调地址最多 2048 个字符"],
  ["callback_url.not_unicode", {}, 400, "default notify URL must be well-formed Unicode", "默认回调地址必须是有效的 Unicode 文本"],
  ["callback_url.not_absolute", {}, 400, "default notify URL must be an absolute http(s) URL", "默认回调地址必须是完整的 http(s) 地址"],
  ["callback_url.scheme", {}, 400, "default notify URL must use http or https", "默认回调地址必须使用 http 或 https"],
  ["callback_url.characters", {}, 400, "default notify URL must not contain spaces, control characters or backslashes", "默认回调地址不能包含空格、控制字符或反斜杠"],
  ["callback_url.no_host", {}, 400, "default notify URL must have a host", "默认回调地址必须包含主机名"],
  ["callback_url.credentials", {}, 400, "default notify URL must not carry credentials", "默认回调地址不能包含用户名或密码"],
  ["callback_url.not_public", {}, 400, "default notify URL must be a public address", "默认回调地址必须是公网地址"],
  ["ip_allowlist.not_ip", { entry: '"x"' }, 400, 'IP allowlist: "x" is not an IPv4 or IPv6 address or CIDR', 'IP 白名单："x" 不是 IPv4 或 IPv6 地址或 CIDR'],
  ["ip_allowlist.prefix", { entry: '"10.0.0.0/33"', max: 32 }, 400, 'IP allowlist: "10.0.0.0/33" has an invalid prefix length (0-32)', 'IP 白名单："10.0.0.0/33" 的前缀长度无效（0-32）'],
  ["ip_allowlist.too_many", { max: 100 }, 400, "IP allowlist: at most 100 entries", "IP 白名单：最多 100 条"],
  ["user.password_short", { min: 12 }, 400, "a password needs at least 12 characters", "密码至少需要 12 个字符"],
  ["user.password_long", { max: 256 }, 400, "a password may have at most 256 characters", "密码最多 256 个字符"],
  ["user.username_invalid", {}, 400, "a username is 1-64 characters of letters, digits and . _ @ -", "用户名为 1-64 个字符，可使用字母、数字和 . _ @ -"],
  ["user.role_invalid", {}, 400, "role must be operator or merchant", "角色必须是运营方或商户"],
  ["user.merchant_missing", {}, 400, "a merchant user needs --merchant UID", "商户用户需要指定 --merchant UID"],
  ["user.merchant_unchosen", {}, 400, "choose the merchant this user belongs to (Merchant), or make them an operator", "请选择该用户所属的商户（所属商户），或将其设为运营方"],
  ["user.operator_bound", {}, 400, "an operator is not bound to a merchant", "运营方不隶属于任何商户"],
  ["user.no_merchant", { uid: "M0000000" }, 404, "no merchant with UID M0000000", "没有 UID 为 M0000000 的商户"],
  ["user.exists", { username: "ops" }, 409, "user ops already exists", "用户 ops 已存在"],
  ["user.not_found", { username: "ops" }, 404, "no user ops", "没有用户 ops"],
];

describe("a domain error's code → HTTP status → words in each locale", () => {
  test("the table names every code once", () => {
    expect(DOMAIN_CASES.map((c) => c[0]).sort()).toEqual((Object.keys(DOMAIN_ERRORS) as DomainCode[]).sort());
  });
  test.each(DOMAIN_CASES)("%s", (code, params, status, en, zh) => {
    const e = new DomainError(code, params);
    expect([e.code, e.status, e.message]).toEqual([code, status, en]);
    expect(errorText("en", e)).toBe(en);
    expect(errorText("zh", e)).toBe(zh);
  });
});

test("an error with several problems: the English joined by '; ' (the CLI's), each translated by code; as a page's sentence", () => {
  const e = new DomainError([
    { code: "callback_url.scheme", params: {} },
    { code: "ip_allowlist.too_many", params: { max: 100 } },
  ]);
  expect(e.message).toBe("default notify URL must use http or https; IP allowlist: at most 100 entries");
  expect([e.code, e.status]).toEqual(["callback_url.scheme", 400]);
  expect(errorText("zh", e)).toBe("默认回调地址必须使用 http 或 https；IP 白名单：最多 100 条");
  expect(errorSentence("en", e)).toBe("Default notify URL must use http or https; IP allowlist: at most 100 entries.");
  expect(errorSentence("zh", e)).toBe("默认回调地址必须使用 http 或 https；IP 白名单：最多 100 条。");
});

const DELIVERY_CASES: Array<[DeliveryCode, DomainParams, string, string]> = [
  ["delivery.timeout", { seconds: "10 s" }, "No answer within 10 s (the callback timeout).", "10 s 内没有响应（回调超时）。"],
  ["delivery.http_reason", { status: 502, reason: "bad gateway" }, "The server answered HTTP 502 (bad gateway); only a 2xx answer counts.", "服务器返回 HTTP 502（bad gateway）；只有 2xx 响应才算送达。"],
  ["delivery.redirect_to", { code: 302, url: "https://x.example/" }, "The server answered with a redirect (302 to https://x.example/); redirects are not followed, so set the final URL.", "服务器返回了重定向（302，指向 https://x.example/）；网关不跟随重定向，请设置最终的 URL。"],
  ["delivery.refused", {}, "The server refused the connection: nothing is listening at that address and port.", "服务器拒绝了连接：该地址和端口上没有服务在监听。"],
  ["delivery.other", { text: "EWHATEVER: odd" }, "EWHATEVER: odd", "EWHATEVER: odd"],
];

test.each(DELIVERY_CASES)("a delivery error's words by code: %s", (code, params, en, zh) => {
  expect(textOf("en", code, params)).toBe(en);
  expect(textOf("zh", code, params)).toBe(zh);
});

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test("every code has words in every locale with the same placeholders, and no Chinese text is left English", () => {
  const codes = Object.keys(TEXTS.en) as TextCode[];
  expect(Object.keys(TEXTS.zh).sort()).toEqual([...codes].sort());
  for (const c of codes) {
    expect({ c, p: placeholders(TEXTS.zh[c]) }).toEqual({ c, p: placeholders(TEXTS.en[c]) });
    if (c !== "delivery.other") expect({ c, zh: /[\u4e00-\u9fff]/.test(TEXTS.zh[c]) }).toEqual({ c, zh: true });
  }
});

test("a settings form's URL problems are the callback_url codes, one for one", () => {
  const urlCodes = Object.keys(DOMAIN_ERRORS).filter((c) => c.startsWith("callback_url.")).map((c) => c.slice("callback_url.".length));
  expect(urlCodes.sort()).toEqual([...Object.keys(URL_PROBLEMS), "too_long"].sort());
});

/** Source files (tests, the catalogs themselves and test helpers aside). */
function sources(): Array<{ rel: string; text: string }> {
  const src = join(import.meta.dir, "..");
  return (readdirSync(src, { recursive: true }) as string[])
    .map((f) => f.split("\\").join("/"))
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !/^(testing|sdk|vendor)\//.test(f) && f !== "errors.ts" && f !== "i18n/catalog.ts")
    .map((rel) => ({ rel, text: readFileSync(join(src, rel), "utf8") }));
}

test("every code is named by the code that raises it (an entry nobody uses fails here)", () => {
  const all = sources().map((s) => s.text).join("\n");
  // The URL problems reach their codes through `callback_url.${kind}` (merchants/settings.ts).
  const byTemplate = (c: string) => c.startsWith("callback_url.") && all.includes("`callback_url.${p}`");
  const unused = (Object.keys(TEXTS.en) as TextCode[]).filter((c) => !all.includes(`"${c}"`) && !byTemplate(c));
  expect(unused).toEqual([]);
  expect(Object.keys(DELIVERY_EN).length).toBeGreaterThan(10);
});

test("nothing matches an error by its English wording any more (the back office's template matcher is gone)", () => {
  const offenders = sources()
    .filter((s) => /^(backoffice|checkout|http|cli)\//.test(s.rel))
    .flatMap((s) => s.text.split("\n").map((line, i) => ({ at: `${s.rel}:${i + 1}`, line })))
    // (`typeof e.message === "string"` asks for a type, not a wording.)
    .filter(({ line }) => /\.message\s*(?:[!=]==\s*["'`]|\.(?:includes|startsWith|endsWith|replace|match)\()|\.test\([\w.]*\.message\)|trMatch\(/.test(line.replace(/typeof [\w.]+/g, "")));
  expect(offenders.map((o) => `${o.at} ${o.line.trim()}`)).toEqual([]);
});
