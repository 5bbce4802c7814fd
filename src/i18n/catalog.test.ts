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
  ["payin.order_unknown", { orderNo: "P1" }, 404, "no pay-in order P1", "没有收款订单 P1"],
  ["payin.cannot_freeze", { orderNo: "P1", status: "completed" }, 409, "cannot freeze order P1: it is completed", "无法冻结订单 P1：当前状态为 completed"],
  ["payin.cannot_cancel", { orderNo: "P1", status: "completed" }, 409, "cannot cancel order P1: it is completed", "无法取消订单 P1：当前状态为 completed"],
  ["payin.release_not_frozen", { orderNo: "P1", status: "completed" }, 409, "cannot release order P1: it is completed, not frozen_abnormal", "无法放行订单 P1：当前状态为 completed，不是 frozen_abnormal"],
  ["payin.release_not_final", { orderNo: "P1", confirmations: 1 }, 409, "cannot release order P1 yet: its payment has 1 confirmation(s) and is not final", "暂时无法放行订单 P1：其付款只有 1 个确认，尚未最终确认"],
  ["text.empty", { field: "reason" }, 400, "reason must not be empty", "reason 不能为空"],
  ["text.too_long", { field: "reason", max: 500 }, 400, "reason must be at most 500 characters", "reason 最多 500 个字符"],
  ["text.not_unicode", { field: "reason" }, 400, "reason must be well-formed Unicode (lone surrogate)", "reason 必须是有效的 Unicode 文本（存在孤立代理项）"],
  ["deny.unknown_chain", { chain: "BSC", chains: "BSC, TRON" }, 400, "unknown chain BSC: BSC, TRON", "未知的网络 BSC：BSC, TRON"],
  ["deny.invalid_address", { address: "0xabc", chain: "BSC" }, 400, "0xabc is not a valid BSC address", "0xabc 不是有效的 BSC 地址"],
  ["deny.already", { chain: "BSC", address: "0xabc" }, 409, "BSC 0xabc is already on the deny list", "BSC 0xabc 已在拒收名单中"],
  ["deny.not_listed", { chain: "BSC", address: "0xabc" }, 404, "BSC 0xabc is not on the deny list", "BSC 0xabc 不在拒收名单中"],
  ["deposit.unknown", { depositId: 7 }, 404, "no unmatched deposit 7", "没有未匹配入账 7"],
  ["deposit.resolved", { depositId: 7, resolution: "attached" }, 409, "deposit 7 is already attached", "入账 7 已处理为 attached"],
  ["deposit.resolved_ref", { depositId: 7, resolution: "attached", ref: "P2" }, 409, "deposit 7 is already attached (P2)", "入账 7 已处理为 attached（P2）"],
  ["deposit.id_invalid", { raw: "\"x\"" }, 400, "deposit id must be a positive integer, not \"x\"", "入账编号必须是正整数，而不是 \"x\""],
  ["deposit.reverted", { depositId: 7 }, 409, "deposit 7 was reverted by a reorg; there is nothing to attach", "入账 7 已因链重组被撤销，没有可关联的款项"],
  ["deposit.counterfeit", { depositId: 7, token: "USDT" }, 409, "deposit 7 is a look-alike USDT from another issuer: it never pays an order", "入账 7 是其他发行方的仿冒 USDT，不能用于支付订单"],
  ["deposit.other_address", { depositId: 7, toAddress: "0xdef", token: "USDT", orderNo: "P1", address: "0xabc", orderToken: "USDC" }, 409, "deposit 7 reached 0xdef (USDT); order P1 is on 0xabc (USDC)", "入账 7 转入的是 0xdef（USDT）；订单 P1 的地址是 0xabc（USDC）"],
  ["deposit.order_not_open", { orderNo: "P1", status: "completed" }, 409, "cannot attach a deposit to order P1 in completed: only an unpaid waiting_payment or expired order takes one", "无法将入账关联到状态为 completed 的订单 P1：只有未付款的 waiting_payment 或 expired 订单可以关联"],
  ["deposit.not_final", { depositId: 7, status: "completed" }, 409, "deposit 7 is completed, not final: only a final deposit can be refunded", "入账 7 的状态为 completed，尚未最终确认：只有最终确认的入账才能退款"],
  ["deposit.payout_unknown", { payoutOrderNo: "W1", depositId: 7 }, 404, "no payout W1 of the merchant that received deposit 7", "收到入账 7 的商户没有付款 W1"],
  ["deposit.payout_other_token", { payoutOrderNo: "W1", payoutChain: "TRON", payoutToken: "USDT", chain: "BSC", token: "USDT" }, 409, "payout W1 is TRON USDT; the deposit is BSC USDT", "付款 W1 是 TRON USDT；该入账是 BSC USDT"],
  ["deposit.payout_failed", { payoutOrderNo: "W1" }, 409, "payout W1 failed; it refunded nothing", "付款 W1 已失败，没有退回任何款项"],
  ["deposit.payout_used", { payoutOrderNo: "W1", otherId: 8 }, 409, "payout W1 is already recorded as the refund of deposit 8", "付款 W1 已被记录为入账 8 的退款"],
  ["lookup.chain_unavailable", { chain: "BSC" }, 400, "BSC is not enabled on this gateway, or cannot look up a transaction.", "本网关未启用 BSC，或无法在该网络上查询交易。"],
  ["lookup.not_on_chain", {}, 404, "That transfer is not on the chain (any more).", "该转账（已）不在链上。"],
  ["lookup.not_importable", {}, 422, "Only a transfer of a configured token to one of the gateway's addresses can be imported.", "只能导入转入网关地址的已配置代币转账。"],
  ["resolve.note_missing", {}, 400, "Write a note saying why (it goes into the audit log).", "请填写原因说明（会写入审计日志）。"],
  ["resolve.note_long", { max: 500 }, 400, "The note is longer than 500 characters.", "说明超过了 500 个字符。"],
  ["resolve.not_final", {}, 409, "Its payment is not final yet: resolve it once it is.", "付款尚未最终确认，请在确认后再处理。"],
  ["resolve.not_offered", { choice: "accept", orderNo: "P1", status: "completed" }, 409, "\"accept\" is not a choice for order P1 (completed)", "“accept”不是订单 P1（completed）可选的处理方式"],
  ["resolve.accept_refused", { refunded: "1 USDT", kept: "9 USDT", amount: "10 USDT" }, 409, "1 USDT was already refunded, so 9 USDT is kept, less than the order amount of 10 USDT: it cannot be accepted as paid.", "已退款 1 USDT，保留的 9 USDT 少于订单金额 10 USDT，不能按已付款接受。"],
  ["resolve.choose", {}, 400, "Choose what should happen.", "请选择处理方式。"],
  ["refund.address_missing", {}, 400, "Give the payer's address, or choose \"Send a refund link\".", "请填写付款人地址，或选择“发送退款链接”。"],
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
  ["refund.deposit_counterfeit", { depositId: 7, token: "USDT" }, 409, "deposit 7 is a look-alike USDT from another issuer: refunding it would send real USDT", "入账 7 是其他发行方的仿冒 USDT：退款会付出真正的 USDT"],
  ["refund.unknown", {}, 404, "no such refund", "没有这笔退款"],
  ["refund.has_address", {}, 409, "this refund already has an address", "这笔退款已有收款地址"],
  ["refund.cannot_send", {}, 409, "the merchant cannot send this refund right now; please try again later", "商户暂时无法发出这笔退款，请稍后再试"],
  ["merchant.id_unknown", { merchantId: 9 }, 404, "no merchant 9", "没有编号为 9 的商户"],
  ["controls.limit_per_tx_invalid", {}, 400, "payoutLimitPerTx must be a decimal string or null", "单笔付款限额必须是小数金额或留空"],
  ["controls.limit_daily_invalid", {}, 400, "payoutLimitDaily must be a decimal string or null", "每日付款限额必须是小数金额或留空"],
  ["controls.fee_fixed_invalid", {}, 400, "payoutFeeFixed must be a decimal string", "固定付款手续费必须是小数金额"],
  ["controls.fee_rate_invalid", {}, 400, "payoutFeeRate must be a fraction below 1 with at most 8 digits", "付款手续费率必须是小于 1 的小数，最多 8 位小数"],
  ["controls.delta_invalid", {}, 400, "delta must be a decimal string", "调整金额必须是小数金额"],
  ["controls.below_reserved", {}, 409, "the fee balance would drop below the fees reserved by unfinished payouts", "手续费余额将低于未完成付款预留的手续费"],
  ["collection.chain_unavailable", { chain: "TON", token: "USDT" }, 400, "TON USDT: Chain not enabled on this gateway", "TON USDT：本网关未启用该网络"],
  ["collection.token_unsupported", { chain: "TRON", token: "DAI" }, 400, "TRON DAI: Token not supported", "TRON DAI：不支持该代币"],
  ["collection.token_not_on_chain", { chain: "TON", token: "USDC" }, 400, "TON USDC: Chain and token do not match", "TON USDC：该网络上没有这种代币"],
  ["collection.destination_invalid", { chain: "TRON" }, 400, "destination: not a valid TRON address", "目标地址：不是有效的 TRON 地址"],
  ["collection.destination_own", {}, 400, "destination: one of the merchant's own gateway addresses (54003); collect to a wallet outside the gateway", "目标地址：这是商户自己的网关地址（54003）；请归集到网关之外的钱包"],
  ["collection.minimum_invalid", {}, 400, "minimum: must be a decimal amount greater than 0 with at most 6 fractional digits", "最低金额：必须是大于 0 的小数金额，最多 6 位小数"],
  ["collection.schedule_invalid", { reason: "Invalid cron" }, 400, "schedule: not a valid cron pattern (Invalid cron)", "定时：不是有效的 cron 表达式（Invalid cron）"],
  ["collection.no_destination", { chain: "TRON", token: "USDT" }, 409, "no collection destination set for TRON USDT", "尚未设置 TRON USDT 的归集目标地址"],
  ["collection.run_unknown", { id: "r1" }, 404, "no collection run r1", "没有归集任务 r1"],
  ["compat_key.epusdt_length", {}, 400, "epusdt token must be 8-128 characters", "epusdt 令牌必须是 8-128 个字符"],
  ["compat_key.epusdt_characters", {}, 400, "epusdt token must be printable ASCII without spaces", "epusdt 令牌必须是不含空格的可打印 ASCII 字符"],
  ["compat_key.epay_length", {}, 400, "EPay key must be 8-128 characters", "易支付密钥必须是 8-128 个字符"],
  ["compat_key.epay_characters", {}, 400, "EPay key must be printable ASCII without spaces", "易支付密钥必须是不含空格的可打印 ASCII 字符"],
  ["ack.unknown_chain", { chain: "DOGE" }, 400, "unknown chain: DOGE", "未知的网络：DOGE"],
  ["ack.invalid_address", { chain: "TRON", address: "x" }, 400, "not a TRON address: x", "不是 TRON 地址：x"],
  ["ack.nothing_open", { address: "0xabc", chain: "BSC" }, 404, "no unrecorded outgoing transfer from 0xabc on BSC waits for acknowledgement", "BSC 上没有从 0xabc 发出、等待确认的未记录转账"],
  ["batch.empty", {}, 400, "the file is empty", "文件为空"],
  ["batch.too_large", { mb: 2 }, 400, "the file is larger than 2 MB", "文件超过 2 MB"],
  ["batch.not_utf8", {}, 400, "the file is not valid UTF-8 (save it as CSV UTF-8)", "文件不是有效的 UTF-8 编码（请另存为 CSV UTF-8）"],
  ["batch.no_header", {}, 400, "the file has no header line", "文件没有标题行"],
  ["batch.unknown_columns", { columns: "memo", expected: "chainCode,amount" }, 400, "unknown column(s): memo (expected chainCode,amount)", "未知的列：memo（应为 chainCode,amount）"],
  ["batch.missing_columns", { columns: "amount" }, 400, "missing column(s): amount", "缺少列：amount"],
  ["batch.duplicate_column", { column: "amount" }, 400, "column amount appears twice", "列 amount 出现了两次"],
  ["batch.no_rows", {}, 400, "the file has no payout rows", "文件中没有付款行"],
  ["batch.too_many_rows", { rows: 5001, max: 5000 }, 400, "the file has 5001 rows; at most 5000 are allowed per batch", "文件有 5001 行；每批最多允许 5000 行"],
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
