// `deposit list --unmatched [--json]`, `deposit attach DEPOSIT_ID ORDER_NO` (DESIGN 2),
// plus `deposit refunded DEPOSIT_ID PAYOUT_ORDER_NO` and `deposit dismiss DEPOSIT_ID --note N`
// to close the other ways (src/payin/unmatched.ts). Audited with actor `cli`.
import { CLI_ACTOR } from "../audit/log";
import { attachDeposit, dismissDeposit, listUnmatched, markDepositRefunded, type DepositView } from "../payin/unmatched";
import type { PayinCtx } from "../payin/service";
import { amountOf } from "../orders/amount";
import { CliUsageError, type CliFlags, printTable } from "./common";

export { DEPOSIT_USAGE } from "./help-text";
import { DEPOSIT_USAGE } from "./help-text";

const HEAD = ["deposit", "state", "merchant", "chain", "token", "amount", "status", "reason", "to", "from", "txHash"];
function row(d: DepositView) {
  const state = d.resolution ? `${d.resolution}${d.resolutionRef ? ":" + d.resolutionRef : ""}` : "open";
  return [d.depositId, state, d.merchantUid, d.chainCode, d.tokenSymbol, d.amount, d.status, d.reason, d.toAddress, d.fromAddress, d.txHash];
}

export async function depositCommand(ctx: () => Promise<PayinCtx>, args: string[], flags: CliFlags): Promise<number> {
  const [sub, id, ref] = args;
  if (sub === "list") {
    if (flags.unmatched !== true) throw new CliUsageError("usage: deposit list --unmatched [--all] [--json]");
    const { deposits } = await listUnmatched(await ctx(), { state: flags.all === true ? "all" : "open", limit: 1000 });
    if (flags.json) console.log(JSON.stringify(deposits));
    else printTable(HEAD, deposits.map(row), "no unmatched deposits");
    return 0;
  }
  if (sub === "attach" && id && ref) {
    const o = await attachDeposit(await ctx(), id, ref, CLI_ACTOR);
    const v = { depositId: Number(id), orderNo: o.orderNo, status: o.status, amount: amountOf(o, o.amount), paidAmount: amountOf(o, o.paidAmount) };
    if (flags.json) console.log(JSON.stringify(v));
    else console.log(`deposit ${id} attached to ${o.orderNo}: ${o.status} (paid ${v.paidAmount} of ${v.amount})`);
    return 0;
  }
  if (sub === "refunded" && id && ref) {
    const d = await markDepositRefunded(await ctx(), id, ref, CLI_ACTOR);
    if (flags.json) console.log(JSON.stringify(d));
    else console.log(`deposit ${id} refunded by payout ${ref}`);
    return 0;
  }
  if (sub === "dismiss" && id) {
    if (typeof flags.note !== "string") throw new CliUsageError("deposit dismiss needs --note N");
    const d = await dismissDeposit(await ctx(), id, flags.note, CLI_ACTOR);
    if (flags.json) console.log(JSON.stringify(d));
    else console.log(`deposit ${id} dismissed`);
    return 0;
  }
  throw new CliUsageError(`usage:\n${DEPOSIT_USAGE}`);
}
