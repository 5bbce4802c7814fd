// The words of coded messages in every language, by code (one scheme for the back office and the
// hosted pages, as the checkout's MESSAGES: a key, `{name}` placeholders, a table per locale):
// the domain errors (src/errors.ts DOMAIN_ERRORS, whose English is the CLI's) and a callback
// delivery's error in plain words (src/callbacks/plain-error.ts). A page asks `textOf(locale,
// code, params)` or `errorText(locale, error)`; nothing is looked up by its English wording.
import { DOMAIN_ERRORS, DomainError, type DomainCode, type DomainParams, type DomainProblem, fillTemplate } from "../errors";
import type { Locale } from "./locale";

/** A callback delivery's error in plain words (issue 30), by what went wrong. */
export const DELIVERY_EN = {
  "delivery.timeout": "No answer within {seconds} (the callback timeout).",
  "delivery.redirect_to": "The server answered with a redirect ({code} to {url}); redirects are not followed, so set the final URL.",
  "delivery.redirect": "The server answered with a redirect ({code}); redirects are not followed, so set the final URL.",
  "delivery.http_reason": "The server answered HTTP {status} ({reason}); only a 2xx answer counts.",
  "delivery.http": "The server answered HTTP {status}; only a 2xx answer counts.",
  "delivery.private_target": "The URL points to a private or local address, which callbacks may not reach.",
  "delivery.bad_url": "The callback URL is not valid.",
  "delivery.api_key": "The API key that signs this order's callbacks is missing or unreadable.",
  "delivery.aborted": "The gateway stopped while sending; it is sent again after the restart.",
  "delivery.refused": "The server refused the connection: nothing is listening at that address and port.",
  "delivery.dns": "The host name could not be found (DNS).",
  "delivery.reset": "The connection was closed before the server answered.",
  "delivery.unreachable": "The host cannot be reached from the gateway's network.",
  "delivery.connect_timeout": "The connection could not be opened in time.",
  "delivery.certificate": "The server's HTTPS certificate was not accepted.",
  /** What the network said, when nothing above fits: shown as it was recorded. */
  "delivery.other": "{text}",
} as const;

export type DeliveryCode = keyof typeof DELIVERY_EN;
export type TextCode = DomainCode | DeliveryCode;

const DOMAIN_EN = Object.fromEntries(Object.entries(DOMAIN_ERRORS).map(([c, e]) => [c, e.message])) as Record<DomainCode, string>;

const ZH: Readonly<Record<TextCode, string>> = {
  "payin.accept_refused": "无法放行订单 {orderNo}：已退款 {refunded}，保留的 {kept} 少于订单金额 {amount}，不能按已付款接受。",
  "merchant.name_invalid": "商户名称为 1-{max} 个字符",
  "callback_url.too_long": "默认回调地址最多 {max} 个字符",
  "callback_url.not_unicode": "默认回调地址必须是有效的 Unicode 文本",
  "callback_url.not_absolute": "默认回调地址必须是完整的 http(s) 地址",
  "callback_url.scheme": "默认回调地址必须使用 http 或 https",
  "callback_url.characters": "默认回调地址不能包含空格、控制字符或反斜杠",
  "callback_url.no_host": "默认回调地址必须包含主机名",
  "callback_url.credentials": "默认回调地址不能包含用户名或密码",
  "callback_url.not_public": "默认回调地址必须是公网地址",
  "ip_allowlist.not_ip": "IP 白名单：{entry} 不是 IPv4 或 IPv6 地址或 CIDR",
  "ip_allowlist.prefix": "IP 白名单：{entry} 的前缀长度无效（0-{max}）",
  "ip_allowlist.too_many": "IP 白名单：最多 {max} 条",
  "user.password_short": "密码至少需要 {min} 个字符",
  "user.password_long": "密码最多 {max} 个字符",
  "user.username_invalid": "用户名为 1-64 个字符，可使用字母、数字和 . _ @ -",
  "user.role_invalid": "角色必须是运营方或商户",
  "user.merchant_missing": "商户用户需要指定 --merchant UID",
  "user.merchant_unchosen": "请选择该用户所属的商户（所属商户），或将其设为运营方",
  "user.operator_bound": "运营方不隶属于任何商户",
  "user.no_merchant": "没有 UID 为 {uid} 的商户",
  "user.exists": "用户 {username} 已存在",
  "user.not_found": "没有用户 {username}",
  "delivery.timeout": "{seconds} 内没有响应（回调超时）。",
  "delivery.redirect_to": "服务器返回了重定向（{code}，指向 {url}）；网关不跟随重定向，请设置最终的 URL。",
  "delivery.redirect": "服务器返回了重定向（{code}）；网关不跟随重定向，请设置最终的 URL。",
  "delivery.http_reason": "服务器返回 HTTP {status}（{reason}）；只有 2xx 响应才算送达。",
  "delivery.http": "服务器返回 HTTP {status}；只有 2xx 响应才算送达。",
  "delivery.private_target": "该 URL 指向私有或本地地址，回调不能发送到这类地址。",
  "delivery.bad_url": "回调地址无效。",
  "delivery.api_key": "用于签名此订单回调的 API 密钥缺失或无法读取。",
  "delivery.aborted": "发送时网关已停止，重启后会重新发送。",
  "delivery.refused": "服务器拒绝了连接：该地址和端口上没有服务在监听。",
  "delivery.dns": "找不到该主机名（DNS 解析失败）。",
  "delivery.reset": "服务器响应前连接已关闭。",
  "delivery.unreachable": "网关所在网络无法访问该主机。",
  "delivery.connect_timeout": "未能及时建立连接。",
  "delivery.certificate": "服务器的 HTTPS 证书未被接受。",
  "delivery.other": "{text}",
};

/** Every coded text by locale (src/i18n/catalog.test.ts checks the placeholders agree and every code is used). */
export const TEXTS: Readonly<Record<Locale, Readonly<Record<TextCode, string>>>> = { en: { ...DOMAIN_EN, ...DELIVERY_EN }, zh: ZH };

/** A coded text in the locale, filled with its parameters. */
export function textOf(locale: Locale, code: TextCode, params: DomainParams = {}): string {
  return fillTemplate(TEXTS[locale][code], params);
}

/** A domain error's problems in the locale, joined as the language joins clauses. */
export function errorText(locale: Locale, e: DomainError | readonly DomainProblem[]): string {
  const problems = e instanceof DomainError ? e.problems : e;
  return problems.map((p) => textOf(locale, p.code, p.params)).join(locale === "zh" ? "；" : "; ");
}

/** A domain error as a sentence for a page: "a username is …" → "A username is ….", "用户名为 …" → "用户名为 …。". */
export function errorSentence(locale: Locale, e: DomainError | readonly DomainProblem[]): string {
  const s = errorText(locale, e);
  if (locale === "zh") return /[。！？]$/.test(s) ? s : s + "。";
  const first = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(first) ? first : first + ".";
}
