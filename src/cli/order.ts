// `order freeze ORDER_NO --reason R`, `order release ORDER_NO`, `order cancel ORDER_NO`
// (DESIGN 2, 5): the operator actions, through the pay-in transition funnel
// (callbacks included), audited with actor `cli`.
import { CLI_ACTOR } from "../audit/log";
import { cancelOrder, freezeOrder, releaseOrder } from "../payin/operator";
import type { PayinCtx } from "../payin/service";
import type { PayinOrderRow } from "../payin/views";
import { amountOf } from "../orders/amount";
import { CliUsageError, type CliFlags } from "./common";

export { ORDER_USAGE } from "./help-text";
import { ORDER_USAGE } from "./help-text";

const view = (o: PayinOrderRow) => ({ orderNo: o.orderNo, status: o.status, amount: amountOf(o, o.amount), paidAmount: amountOf(o, o.paidAmount) });

export async function orderCommand(ctx: () => Promise<PayinCtx>, args: string[], flags: CliFlags): Promise<number> {
  const [sub, orderNo] = args;
  if (!orderNo || !["freeze", "release", "cancel"].includes(sub)) throw new CliUsageError(`usage:\n${ORDER_USAGE}`);
  let row: PayinOrderRow;
  if (sub === "freeze") {
    if (typeof flags.reason !== "string" || !flags.reason.trim()) throw new CliUsageError("order freeze needs --reason R");
    row = await freezeOrder(await ctx(), orderNo, flags.reason, CLI_ACTOR);
  } else if (sub === "release") row = await releaseOrder(await ctx(), orderNo, CLI_ACTOR);
  else row = await cancelOrder(await ctx(), orderNo, CLI_ACTOR);
  const v = view(row);
  if (flags.json) console.log(JSON.stringify(v));
  else console.log(`${v.orderNo} ${v.status}${v.paidAmount ? ` (paid ${v.paidAmount} of ${v.amount})` : ""}`);
  return 0;
}
