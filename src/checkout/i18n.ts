// English and Chinese texts of the hosted pages, and the choice between them.
import { chainModule } from "../chains/registry";
import type { ChainCode, TokenSymbol } from "../chains/types";
import type { PayinStatus } from "./types";

export type Locale = "en" | "zh";

const en = {
  htmlLang: "en",
  titlePay: "Pay {merchant}",
  titleDeposit: "Deposit to {merchant}",
  payTo: "Payment to",
  depositTo: "Deposit to",
  amountToSend: "Amount to send",
  orderAmount: "Order amount",
  network: "Network",
  address: "Receiving address",
  depositAddress: "Your deposit address",
  copyAddress: "Copy address",
  copyAmount: "Copy amount",
  copy: "Copy",
  copied: "Copied",
  copyFailed: "Copy failed: select the text and copy it manually",
  qrLabel: "QR code of the payment request",
  qrDepositLabel: "QR code of the deposit address",
  openWallet: "Open in wallet app",
  viewOnExplorer: "View transaction on {explorer}",
  returnTo: "Return to {merchant}",
  qrAddressLabel: "QR code of the address",
  qrAddressOnly: "Wallet cannot read the code? Scan the address only",
  expiresIn: "Time left to pay",
  warningTitle: "Send only {token} on {network}",
  warningBody:
    "Send exactly {amount} {token} in a single transfer. A different amount is still received, but it is held until {merchant} reviews it, which delays your order. Other tokens or other networks will not be credited and may be lost.",
  depositWarning:
    "Any amount you send is credited. Other tokens, or {token} sent over another network, will not be credited and may be lost.",
  orderRef: "Order number",
  sandbox: "Sandbox",
  sandboxNote: "Test mode: no real funds move. Use the button to send a test payment.",
  simulate: "Simulate payment",
  simulating: "Sending test payment…",
  simulateFailed: "The test payment could not be sent. Try again.",
  offline: "Connection lost, retrying…",
  confirmations: "Confirmations",
  transaction: "Transaction",
  received: "Amount received",
  completedAt: "Completed",
  switchTo: "中文",
  switchLabel: "切换到中文",
  poweredBy: "Payment page secured by stablegate",
  "status.waiting_payment": "Waiting for your payment",
  "body.waiting_payment": "Scan the QR code or copy the address in your wallet.",
  "status.detected": "Payment detected",
  "body.detected": "We see your transfer on the network and are waiting for confirmations.",
  "status.confirming": "Confirming your payment",
  "body.confirming": "Almost there. Keep this page open or come back later.",
  "status.completed": "Payment complete",
  "body.completed": "{merchant} has received your payment. You can close this page.",
  "status.expired": "This payment request has expired",
  "body.expired":
    "Do not send funds for this order. If you already paid, contact {merchant} and quote the order number.",
  "status.risk_settled": "Payment received after expiry",
  "body.risk_settled":
    "Your payment arrived after the time limit. {merchant} will review it; contact them with the order number if you have questions.",
  "status.frozen_abnormal": "Payment on hold",
  "body.frozen_abnormal":
    "This payment is held for review by {merchant}. Do not pay again. If you have questions, contact {merchant} and quote the order number.",
  frozenReceived: "Received {paid} for this {amount} order. {merchant} will review the payment.",
  "status.cancelled": "Order cancelled",
  "body.cancelled": "This order was cancelled. Do not send any funds for it.",
  "short.waiting_payment": "Waiting",
  "short.detected": "Detected",
  "short.confirming": "Confirming",
  "short.completed": "Completed",
  "short.expired": "Expired",
  "short.risk_settled": "Under review",
  "short.frozen_abnormal": "On hold",
  "short.cancelled": "Cancelled",
  recentDeposits: "Recent deposits",
  noDeposits: "No deposits yet. New deposits appear here automatically.",
  amount: "Amount",
  status: "Status",
  time: "Time",
  notFoundTitle: "Payment link not found",
  notFoundBody:
    "This link is not valid or is no longer available. Check the link you were given, or go back to the shop that sent you here.",
  errorTitle: "Something went wrong",
  errorBody: "The payment page could not be shown right now. Please try again in a moment.",
  networkName: "{token} on {network} ({standard})",
  networkOnly: "{network} ({standard})",
  amountDue: "Amount due",
  invoiceRef: "Invoice number",
  chooseNetwork: "Choose how to pay",
  chooseNetworkBody: "Pick the network and token your wallet holds. The amount to send is fixed when you choose and holds until the invoice expires.",
  currentNetwork: "current",
  changeNetwork: "Change network",
  invoicePrice: "For an invoice of {price}",
  backToPayment: "Back to payment",
  "invoice.expired": "This invoice has expired",
  "invoiceBody.expired": "Do not send funds for it. Ask {merchant} for a new payment link.",
  "invoice.cancelled": "This invoice was cancelled",
  "invoiceBody.cancelled": "Do not send funds for it. Contact {merchant} if you have questions.",
  "invoice.paid": "Invoice paid",
  "invoiceBody.paid": "{merchant} has received your payment. You can close this page.",
  "problem.closed": "This invoice can no longer be paid.",
  "problem.not_offered": "That network is not available for this invoice. Choose another one.",
  "problem.payment_detected": "A payment was already detected on the network you chose, so it can no longer change.",
  "problem.no_rate": "The exchange rate for this currency is not available right now. Try again in a few minutes.",
  "problem.busy": "That network is busy right now. Try again in a moment or choose another one.",
  "problem.amount_limits": "The amount is outside what this network accepts. Choose another one.",
  "problem.too_many": "Too many network choices for this invoice. Wait a minute, then choose again.",
  titleRefund: "Refund from {merchant}",
  refundFrom: "Refund from",
  refundAmount: "Refund",
  refundAsk: "{merchant} is refunding your payment on {network}. Enter the address of your wallet on that network; the refund is sent there once.",
  yourAddress: "Your address",
  repeatAddress: "Repeat your address",
  sendRefund: "Send refund",
  refundRef: "Refund for order",
  "refundProblem.mismatch": "The two addresses differ. Enter the same address twice.",
  "refundProblem.invalid": "This is not a valid address on {network}.",
  "refundProblem.own": "This address belongs to {merchant}. Enter your own wallet's address.",
  "refundProblem.unavailable": "The refund cannot be sent right now. Try again later.",
  "refund.sending": "Refund on its way",
  "refundBody.sending": "{amount} is being sent to {address}.",
  "refund.confirmed": "Refund sent",
  "refundBody.confirmed": "{amount} was sent to {address}.",
  "refund.failed": "The refund could not be sent",
  "refundBody.failed": "Nothing was sent to {address}. {merchant} has been told and can send the refund again. If you do not hear from them, contact {merchant}.",
  refundTx: "Transaction",
  "cancelledRefund.on_its_way": "Order cancelled: your refund is on its way",
  "cancelledRefundBody.on_its_way": "{merchant} cancelled this order and is sending {amount} back to you.",
  "cancelledRefund.awaiting_address": "Order cancelled: a refund is waiting for you",
  "cancelledRefundBody.awaiting_address": "{merchant} cancelled this order and refunds {amount}. Give the address of your wallet on the refund page to receive it.",
  "cancelledRefund.sent": "Order cancelled: refunded",
  "cancelledRefundBody.sent": "{merchant} cancelled this order and sent {amount} back to you.",
  "cancelledRefund.failed": "Order cancelled: the refund could not be sent",
  "cancelledRefundBody.failed": "{merchant} cancelled this order, but its refund of {amount} could not be sent: nothing was sent. {merchant} has been told and can send it again. If you do not hear from them, contact {merchant}.",
  "cancelledRefundLink.awaiting_address": "Get your refund",
  cancelledRefundLink: "See your refund",
  "hold.short": "Less than the order amount was received: {paid} of {amount}.",
  "hold.over": "More than the order amount was received: {paid} for {amount}.",
  "hold.late": "The payment arrived after the order had expired.",
  "hold.operator": "{merchant} put this payment on hold for review.",
  "status.risk_settled.short": "Payment received, less than the amount",
  "body.risk_settled.short": "Your payment was less than the order amount. {merchant} will review it; contact them with the order number if you have questions.",
  iPaid: "I have paid",
  iPaidBody: "Paid but the page has not noticed yet? Paste the transaction hash from your wallet and the payment is checked on the network now.",
  txHashLabel: "Transaction hash",
  txHashCheck: "Check my payment",
  "txHash.credited": "Your transaction pays this order and is final. The payment is credited.",
  "txHash.not_final": "Your transaction pays this order. It is credited once the network confirms it.",
  "txHash.late": "Your transaction pays this order, but after it expired. {merchant} will review it.",
  "txHash.not_found": "The network does not know this transaction yet. Check the hash and the network, or try again in a minute.",
  "txHash.pending": "This transaction is not in a block yet. Try again once your wallet shows it confirmed.",
  "txHash.failed": "This transaction failed on the network and moved nothing.",
  "txHash.wrong_address": "This transaction sends tokens to another address, not to this order's address.",
  "txHash.wrong_token": "This transaction pays this order's address in another token.",
  "txHash.no_token_transfer": "This transaction moves no token.",
  "txHash.not_this_order": "This transaction pays this address but not this order's amount. {merchant} will review it.",
  "txHash.already_paid": "This order was already paid by another transaction.",
  "txHash.malformed": "This is not a transaction hash on {network}. Copy the whole hash from your wallet.",
  "txHash.rate_limited": "Too many checks. Wait a minute and try again.",
  "txHash.unavailable": "The network cannot be checked right now. Try again in a minute.",
};

export type MessageKey = keyof typeof en;

const zh: Record<MessageKey, string> = {
  htmlLang: "zh-CN",
  titlePay: "向 {merchant} 付款",
  titleDeposit: "向 {merchant} 充值",
  payTo: "收款方",
  depositTo: "充值到",
  amountToSend: "付款金额",
  orderAmount: "订单金额",
  network: "网络",
  address: "收款地址",
  depositAddress: "您的充值地址",
  copyAddress: "复制地址",
  copyAmount: "复制金额",
  copy: "复制",
  copied: "已复制",
  copyFailed: "复制失败：请选中文字手动复制",
  qrLabel: "付款二维码",
  qrDepositLabel: "充值地址二维码",
  openWallet: "在钱包应用中打开",
  viewOnExplorer: "在 {explorer} 查看交易",
  returnTo: "返回 {merchant}",
  qrAddressLabel: "地址二维码",
  qrAddressOnly: "钱包无法识别?只扫描地址",
  expiresIn: "剩余付款时间",
  warningTitle: "仅发送 {network}上的 {token}",
  warningBody:
    "请一次性转账正好 {amount} {token}。金额不符的转账仍会被收到，但会被冻结，待 {merchant} 审核后处理，订单会因此延迟。其他代币或其他网络的转账不会入账，并可能无法找回。",
  depositWarning: "任意金额均会入账。其他代币，或通过其他网络发送的 {token}，不会入账，并可能无法找回。",
  orderRef: "订单号",
  sandbox: "沙盒",
  sandboxNote: "测试模式：不会转移真实资金。可用下方按钮发送一笔测试付款。",
  simulate: "模拟付款",
  simulating: "正在发送测试付款…",
  simulateFailed: "测试付款发送失败，请重试。",
  offline: "连接中断，正在重试…",
  confirmations: "确认数",
  transaction: "交易哈希",
  received: "实收金额",
  completedAt: "完成时间",
  switchTo: "English",
  switchLabel: "Switch to English",
  poweredBy: "付款页面由 stablegate 提供安全保障",
  "status.waiting_payment": "等待您付款",
  "body.waiting_payment": "请用钱包扫描二维码，或复制收款地址。",
  "status.detected": "已检测到付款",
  "body.detected": "已在链上发现您的转账，正在等待区块确认。",
  "status.confirming": "正在确认付款",
  "body.confirming": "即将完成。您可以保持此页面打开，或稍后再来查看。",
  "status.completed": "付款成功",
  "body.completed": "{merchant} 已收到您的付款，您可以关闭此页面。",
  "status.expired": "付款请求已过期",
  "body.expired": "请勿再为此订单付款。如您已付款，请联系 {merchant} 并提供订单号。",
  "status.risk_settled": "付款在过期后到账",
  "body.risk_settled": "您的付款在时限之后到账，{merchant} 将进行审核；如有疑问请联系商户并提供订单号。",
  "status.frozen_abnormal": "付款已冻结待审核",
  "body.frozen_abnormal": "此笔付款已冻结，等待 {merchant} 审核。请勿重复付款。如有疑问，请联系 {merchant} 并提供订单号。",
  frozenReceived: "已收到 {paid}（订单金额 {amount}）。{merchant} 将审核此笔付款。",
  "status.cancelled": "订单已取消",
  "body.cancelled": "此订单已取消，请勿为其付款。",
  "short.waiting_payment": "等待付款",
  "short.detected": "已检测",
  "short.confirming": "确认中",
  "short.completed": "已完成",
  "short.expired": "已过期",
  "short.risk_settled": "审核中",
  "short.frozen_abnormal": "已冻结",
  "short.cancelled": "已取消",
  recentDeposits: "最近充值",
  noDeposits: "暂无充值记录。新的充值会自动显示在这里。",
  amount: "金额",
  status: "状态",
  time: "时间",
  notFoundTitle: "找不到付款链接",
  notFoundBody: "此链接无效或已失效。请检查您收到的链接，或返回引导您来到这里的商户。",
  errorTitle: "出现了问题",
  errorBody: "暂时无法显示付款页面，请稍后重试。",
  networkName: "{network} 网络（{standard}）上的 {token}",
  networkOnly: "{network} 网络（{standard}）",
  amountDue: "应付金额",
  invoiceRef: "账单号",
  chooseNetwork: "选择付款方式",
  chooseNetworkBody: "请选择您钱包中持有的网络和代币。付款金额在您选择时确定，并在账单过期前保持不变。",
  currentNetwork: "当前",
  changeNetwork: "更换网络",
  invoicePrice: "账单金额 {price}",
  backToPayment: "返回付款",
  "invoice.expired": "此账单已过期",
  "invoiceBody.expired": "请勿为其付款。请向 {merchant} 索取新的付款链接。",
  "invoice.cancelled": "此账单已取消",
  "invoiceBody.cancelled": "请勿为其付款。如有疑问请联系 {merchant}。",
  "invoice.paid": "账单已支付",
  "invoiceBody.paid": "{merchant} 已收到您的付款，您可以关闭此页面。",
  "problem.closed": "此账单已无法支付。",
  "problem.not_offered": "此账单不支持该网络，请选择其他网络。",
  "problem.payment_detected": "您所选网络上已检测到付款，无法再更换网络。",
  "problem.no_rate": "暂时无法获取该货币的汇率，请几分钟后再试。",
  "problem.busy": "该网络暂时繁忙，请稍后再试或选择其他网络。",
  "problem.amount_limits": "金额超出该网络的收款范围，请选择其他网络。",
  "problem.too_many": "此账单更换网络的次数过多，请等待一分钟后再选择。",
  titleRefund: "来自 {merchant} 的退款",
  refundFrom: "退款方",
  refundAmount: "退款金额",
  refundAsk: "{merchant} 正在退还您在 {network} 上的付款。请输入您在该网络上的钱包地址，退款只会发送一次。",
  yourAddress: "您的地址",
  repeatAddress: "再次输入您的地址",
  sendRefund: "发送退款",
  refundRef: "退款所属订单",
  "refundProblem.mismatch": "两次输入的地址不一致，请输入相同的地址。",
  "refundProblem.invalid": "这不是 {network} 上的有效地址。",
  "refundProblem.own": "此地址属于 {merchant}，请输入您自己的钱包地址。",
  "refundProblem.unavailable": "暂时无法发送退款，请稍后再试。",
  "refund.sending": "退款发送中",
  "refundBody.sending": "正在将 {amount} 发送到 {address}。",
  "refund.confirmed": "退款已发送",
  "refundBody.confirmed": "{amount} 已发送到 {address}。",
  "refund.failed": "退款未能发送",
  "refundBody.failed": "没有任何款项发送到 {address}。{merchant} 已收到通知，可以重新发送这笔退款。如果一直没有收到对方的消息，请联系 {merchant}。",
  refundTx: "交易",
  "cancelledRefund.on_its_way": "订单已取消：退款正在退回",
  "cancelledRefundBody.on_its_way": "{merchant} 已取消此订单，正在将 {amount} 退回给您。",
  "cancelledRefund.awaiting_address": "订单已取消：有一笔退款等待您领取",
  "cancelledRefundBody.awaiting_address": "{merchant} 已取消此订单并退还 {amount}。请在退款页面填写您的钱包地址以接收退款。",
  "cancelledRefund.sent": "订单已取消：已退款",
  "cancelledRefundBody.sent": "{merchant} 已取消此订单，并已将 {amount} 退回给您。",
  "cancelledRefund.failed": "订单已取消：退款未能发送",
  "cancelledRefundBody.failed": "{merchant} 已取消此订单，但 {amount} 的退款未能发送：没有任何款项发出。{merchant} 已收到通知，可以重新发送。如果一直没有收到对方的消息，请联系 {merchant}。",
  "cancelledRefundLink.awaiting_address": "领取退款",
  cancelledRefundLink: "查看退款",
  "hold.short": "收到的金额少于订单金额：收到 {paid}，订单 {amount}。",
  "hold.over": "收到的金额多于订单金额：收到 {paid}，订单 {amount}。",
  "hold.late": "付款在订单过期后才到账。",
  "hold.operator": "{merchant} 已将此笔付款冻结审核。",
  "status.risk_settled.short": "已收到付款，但少于订单金额",
  "body.risk_settled.short": "您的付款少于订单金额。{merchant} 将进行审核；如有疑问，请联系 {merchant} 并提供订单号。",
  iPaid: "我已付款",
  iPaidBody: "已付款但页面尚未显示？粘贴钱包中的交易哈希，我们会立即在链上核对这笔付款。",
  txHashLabel: "交易哈希",
  txHashCheck: "核对我的付款",
  "txHash.credited": "您的交易支付了此订单且已最终确认，付款已入账。",
  "txHash.not_final": "您的交易支付了此订单，网络确认后即会入账。",
  "txHash.late": "您的交易支付了此订单，但在订单过期之后。{merchant} 将进行审核。",
  "txHash.not_found": "网络上暂时查不到这笔交易。请检查哈希和网络，或一分钟后再试。",
  "txHash.pending": "这笔交易尚未打包进区块。请在钱包显示已确认后再试。",
  "txHash.failed": "这笔交易在链上执行失败，没有转出任何资金。",
  "txHash.wrong_address": "这笔交易把代币转到了其他地址，而不是此订单的收款地址。",
  "txHash.wrong_token": "这笔交易向此订单的地址支付了其他代币。",
  "txHash.no_token_transfer": "这笔交易没有转移任何代币。",
  "txHash.not_this_order": "这笔交易支付到了此地址，但金额与此订单不符。{merchant} 将进行审核。",
  "txHash.already_paid": "此订单已由另一笔交易支付。",
  "txHash.malformed": "这不是 {network} 上的交易哈希。请从钱包中复制完整的哈希。",
  "txHash.rate_limited": "核对次数过多，请一分钟后再试。",
  "txHash.unavailable": "暂时无法查询网络，请一分钟后再试。",
};

/** Every text of the hosted pages by locale (i18n.test.ts checks them against the pages' code). */
export const MESSAGES: Readonly<Record<Locale, Readonly<Record<MessageKey, string>>>> = { en, zh };

export type Translate = (key: MessageKey, vars?: Record<string, string>) => string;

/** Plain text (not HTML): callers escape the result. */
export function translator(locale: Locale): Translate {
  const dict = MESSAGES[locale];
  return (key, vars) => {
    const text = dict[key];
    if (!vars) return text;
    return text.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m);
  };
}

export function statusKey(prefix: "status" | "body" | "short", s: PayinStatus): MessageKey {
  return `${prefix}.${s}` as MessageKey;
}

/** "USDT on TRON (TRC20)" in the page's language. */
export function networkName(locale: Locale, chain: ChainCode, token: TokenSymbol): string {
  const label = chainModule(chain).label;
  return translator(locale)("networkName", { token, network: label.network, standard: label.standard });
}

/** "TRON (TRC20)": the network alone, for sentences that name the token already. */
export function networkOnlyName(locale: Locale, chain: ChainCode): string {
  const label = chainModule(chain).label;
  return translator(locale)("networkOnly", { network: label.network, standard: label.standard });
}

/** "TRON USDT", "BNB Smart Chain USDC": an invoice's network button (DESIGN 18: the chain module's label). */
export function networkButtonName(chain: ChainCode, token: TokenSymbol): string {
  return `${chainModule(chain).label.network} ${token}`;
}

/** An explicit ?lang= wins; else the best-weighted supported Accept-Language entry; else English. */
export function pickLocale(acceptLanguage: string | null | undefined, explicit?: string | null): Locale {
  if (explicit === "en" || explicit === "zh") return explicit;
  if (!acceptLanguage) return "en";
  let best: { locale: Locale; q: number } | null = null;
  for (const part of acceptLanguage.split(",")) {
    const [rawTag, ...params] = part.trim().split(";");
    const tag = rawTag.trim().toLowerCase();
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split("=");
      if (k === "q") q = Number.parseFloat(v ?? "");
    }
    if (!Number.isFinite(q) || q <= 0) continue;
    const primary = tag.split("-")[0];
    const locale: Locale | null = primary === "zh" ? "zh" : primary === "en" ? "en" : null;
    // Header order breaks ties, so only a strictly higher q replaces the current pick.
    if (locale && (!best || q > best.q)) best = { locale, q };
  }
  return best?.locale ?? "en";
}
