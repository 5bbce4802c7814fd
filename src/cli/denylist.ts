// `denylist add CHAIN ADDRESS --reason R`, `denylist list [--json]`, `denylist remove CHAIN ADDRESS`
// (DESIGN 2): senders whose transfers freeze the order they pay. Audited with actor `cli`.
import { CLI_ACTOR } from "../audit/log";
import { denySender, listDenied, undenySender } from "../payin/operator";
import type { PayinCtx } from "../payin/service";
import { CliUsageError, type CliFlags, printTable } from "./common";

export { DENYLIST_USAGE } from "./help-text";
import { DENYLIST_USAGE } from "./help-text";

export async function denylistCommand(ctx: () => Promise<PayinCtx>, args: string[], flags: CliFlags): Promise<number> {
  const [sub, chain, address] = args;
  if (sub === "list") {
    const rows = await listDenied(await ctx());
    if (flags.json) console.log(JSON.stringify(rows));
    else printTable(["chain", "address", "added", "reason"], rows.map((r) => [r.chainCode, r.address, r.createdAt, r.reason]), "the deny list is empty");
    return 0;
  }
  if (sub === "add" && chain && address) {
    if (typeof flags.reason !== "string" || !flags.reason.trim()) throw new CliUsageError("denylist add needs --reason R");
    const r = await denySender(await ctx(), chain, address, flags.reason, CLI_ACTOR);
    if (flags.json) console.log(JSON.stringify(r));
    else console.log(`${r.chainCode} ${r.address} added to the deny list`);
    return 0;
  }
  if (sub === "remove" && chain && address) {
    const r = await undenySender(await ctx(), chain, address, CLI_ACTOR);
    if (flags.json) console.log(JSON.stringify(r));
    else console.log(`${r.chainCode} ${r.address} removed from the deny list`);
    return 0;
  }
  throw new CliUsageError(`usage:\n${DENYLIST_USAGE}`);
}
