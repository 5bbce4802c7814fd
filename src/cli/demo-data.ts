// `serve --demo` on a sandbox gateway (DESIGN 18): a few invoices and their pay-ins in different
// states, so a newcomer's first minute in the back office shows the product working. Made once,
// with the demo merchant; no callback target is set, so their callbacks wait (held, visible in the
// back office) until the merchant sets a default callback URL: nothing fails.
import type { AppContext } from "../app/context";
import type { Runtime } from "../app/server";
import { SandboxChain } from "../chains/sandbox/chain";
import { createInvoice } from "../invoices/service";
import { toBaseUnits } from "../lib/money";
import { currentKey, findMerchantByUid } from "../merchants/service";
import { isSandboxGateway } from "../ops/readiness";
import { chooseNetwork } from "../payin/invoice-network";

interface DemoInvoice {
  no: string;
  price: string;
  currency: string;
  description: string;
  /** Choose the network; then pay this much of the payer's amount ("all", a part, or nothing). */
  pay?: "none" | "all" | "short";
}

const DEMO: DemoInvoice[] = [
  { no: "demo-open", price: "25.00", currency: "USD", description: "Coffee beans, 1 kg (payer has not picked a network yet)" },
  { no: "demo-paid", price: "40.00", currency: "USD", description: "Headphones (paid)", pay: "all" },
  { no: "demo-short", price: "15.00", currency: "USD", description: "Book (paid short: on hold for review)", pay: "short" },
  // Last: a short payment freezes only the address's one open order (DESIGN 5), so nothing else waits beside it.
  { no: "demo-waiting", price: "12", currency: "USDT", description: "Monthly plan (network chosen, waiting for payment)", pay: "none" },
];

/** Returns one line per invoice made (empty when the gateway is not a sandbox, or they exist). */
export async function seedDemoData(ctx: AppContext, runtime: Pick<Runtime, "afterChainChange">, merchantUid: string): Promise<string[]> {
  if (!isSandboxGateway(ctx)) return [];
  const chain = [...ctx.chains.values()].find((c): c is SandboxChain => c instanceof SandboxChain);
  const m = await findMerchantByUid(ctx.db, merchantUid);
  const key = m && await currentKey(ctx.db, m.id);
  if (!chain || !m || !key) return [];
  const token = chain.tokens[0]!;
  const network = `${chain.chain}:${token.symbol}`;
  const out: string[] = [];
  for (const d of DEMO) {
    const inv = await createInvoice(ctx, m.id, key.id, { merchantOrderNo: d.no, priceAmount: d.price, priceCurrency: d.currency, description: d.description, expireMinutes: 1440 });
    if (inv.payinOrderId !== null || d.pay === undefined) {
      out.push(`${inv.invoiceNo} ${d.description}`);
      continue;
    }
    const { order } = await chooseNetwork(ctx, inv.pageToken, network);
    if (d.pay !== "none") {
      const amount = d.pay === "all" ? BigInt(order.amount) : BigInt(order.amount) - toBaseUnits("1", token.decimals);
      await chain.transfer({ token: token.symbol, to: order.address, amount });
      await chain.mine(chain.requiredConfirmations);
      await runtime.afterChainChange(chain.chain);
    }
    out.push(`${inv.invoiceNo} ${d.description}`);
  }
  return out;
}
