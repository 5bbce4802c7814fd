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
  "payin.order_unknown": "没有收款订单 {orderNo}",
  "payin.cannot_freeze": "无法冻结订单 {orderNo}：当前状态为 {status}",
  "payin.cannot_cancel": "无法取消订单 {orderNo}：当前状态为 {status}",
  "payin.release_not_frozen": "无法放行订单 {orderNo}：当前状态为 {status}，不是 frozen_abnormal",
  "payin.release_not_final": "暂时无法放行订单 {orderNo}：其付款只有 {confirmations} 个确认，尚未最终确认",
  "text.empty": "{field} 不能为空",
  "text.too_long": "{field} 最多 {max} 个字符",
  "text.not_unicode": "{field} 必须是有效的 Unicode 文本（存在孤立代理项）",
  "deny.unknown_chain": "未知的网络 {chain}：{chains}",
  "deny.invalid_address": "{address} 不是有效的 {chain} 地址",
  "deny.already": "{chain} {address} 已在拒收名单中",
  "deny.not_listed": "{chain} {address} 不在拒收名单中",
  "deposit.unknown": "没有未匹配入账 {depositId}",
  "deposit.resolved": "入账 {depositId} 已处理为 {resolution}",
  "deposit.resolved_ref": "入账 {depositId} 已处理为 {resolution}（{ref}）",
  "deposit.id_invalid": "入账编号必须是正整数，而不是 {raw}",
  "deposit.reverted": "入账 {depositId} 已因链重组被撤销，没有可关联的款项",
  "deposit.counterfeit": "入账 {depositId} 是其他发行方的仿冒 {token}，不能用于支付订单",
  "deposit.other_address": "入账 {depositId} 转入的是 {toAddress}（{token}）；订单 {orderNo} 的地址是 {address}（{orderToken}）",
  "deposit.order_not_open": "无法将入账关联到状态为 {status} 的订单 {orderNo}：只有未付款的 waiting_payment 或 expired 订单可以关联",
  "deposit.not_final": "入账 {depositId} 的状态为 {status}，尚未最终确认：只有最终确认的入账才能退款",
  "deposit.payout_unknown": "收到入账 {depositId} 的商户没有付款 {payoutOrderNo}",
  "deposit.payout_other_token": "付款 {payoutOrderNo} 是 {payoutChain} {payoutToken}；该入账是 {chain} {token}",
  "deposit.payout_failed": "付款 {payoutOrderNo} 已失败，没有退回任何款项",
  "deposit.payout_used": "付款 {payoutOrderNo} 已被记录为入账 {otherId} 的退款",
  "lookup.chain_unavailable": "本网关未启用 {chain}，或无法在该网络上查询交易。",
  "lookup.not_on_chain": "该转账（已）不在链上。",
  "lookup.not_importable": "只能导入转入网关地址的已配置代币转账。",
  "resolve.note_missing": "请填写原因说明（会写入审计日志）。",
  "resolve.note_long": "说明超过了 {max} 个字符。",
  "resolve.not_final": "付款尚未最终确认，请在确认后再处理。",
  "resolve.not_offered": "“{choice}”不是订单 {orderNo}（{status}）可选的处理方式",
  "resolve.accept_refused": "已退款 {refunded}，保留的 {kept} 少于订单金额 {amount}，不能按已付款接受。",
  "resolve.choose": "请选择处理方式。",
  "refund.address_missing": "请填写付款人地址，或选择“发送退款链接”。",
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
  "refund.deposit_counterfeit": "入账 {depositId} 是其他发行方的仿冒 {token}：退款会付出真正的 {token}",
  "refund.unknown": "没有这笔退款",
  "refund.has_address": "这笔退款已有收款地址",
  "refund.cannot_send": "商户暂时无法发出这笔退款，请稍后再试",
  "merchant.id_unknown": "没有编号为 {merchantId} 的商户",
  "controls.limit_per_tx_invalid": "单笔付款限额必须是小数金额或留空",
  "controls.limit_daily_invalid": "每日付款限额必须是小数金额或留空",
  "controls.fee_fixed_invalid": "固定付款手续费必须是小数金额",
  "controls.fee_rate_invalid": "付款手续费率必须是小于 1 的小数，最多 8 位小数",
  "controls.delta_invalid": "调整金额必须是小数金额",
  "controls.below_reserved": "手续费余额将低于未完成付款预留的手续费",
  "collection.chain_unavailable": "{chain} {token}：本网关未启用该网络",
  "collection.token_unsupported": "{chain} {token}：不支持该代币",
  "collection.token_not_on_chain": "{chain} {token}：该网络上没有这种代币",
  "collection.destination_invalid": "目标地址：不是有效的 {chain} 地址",
  "collection.destination_own": "目标地址：这是商户自己的网关地址（54003）；请归集到网关之外的钱包",
  "collection.minimum_invalid": "最低金额：必须是大于 0 的小数金额，最多 6 位小数",
  "collection.schedule_invalid": "定时：不是有效的 cron 表达式（{reason}）",
  "collection.no_destination": "尚未设置 {chain} {token} 的归集目标地址",
  "collection.run_unknown": "没有归集任务 {id}",
  "compat_key.epusdt_length": "epusdt 令牌必须是 8-128 个字符",
  "compat_key.epusdt_characters": "epusdt 令牌必须是不含空格的可打印 ASCII 字符",
  "compat_key.epay_length": "易支付密钥必须是 8-128 个字符",
  "compat_key.epay_characters": "易支付密钥必须是不含空格的可打印 ASCII 字符",
  "ack.unknown_chain": "未知的网络：{chain}",
  "ack.invalid_address": "不是 {chain} 地址：{address}",
  "ack.nothing_open": "{chain} 上没有从 {address} 发出、等待确认的未记录转账",
  "batch.empty": "文件为空",
  "batch.too_large": "文件超过 {mb} MB",
  "batch.not_utf8": "文件不是有效的 UTF-8 编码（请另存为 CSV UTF-8）",
  "batch.no_header": "文件没有标题行",
  "batch.unknown_columns": "未知的列：{columns}（应为 {expected}）",
  "batch.missing_columns": "缺少列：{columns}",
  "batch.duplicate_column": "列 {column} 出现了两次",
  "batch.no_rows": "文件中没有付款行",
  "batch.too_many_rows": "文件有 {rows} 行；每批最多允许 {max} 行",
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
