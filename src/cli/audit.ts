// `audit list [--actor A] [--action X] [--target T] [--limit N] [--json]`: the append-only audit log, newest first.
import type { Db } from "../db/client";
import { listAudit } from "../audit/log";
import { CliUsageError, type CliFlags, printTable } from "./common";

export { AUDIT_USAGE } from "./help-text";
import { AUDIT_USAGE } from "./help-text";

export async function auditCommand(db: () => Promise<Db>, args: string[], flags: CliFlags): Promise<number> {
  if (args[0] !== "list") throw new CliUsageError(`usage:\n${AUDIT_USAGE}`);
  const str = (k: string) => (typeof flags[k] === "string" ? (flags[k] as string) : undefined);
  const limit = str("limit");
  if (limit !== undefined && !/^[1-9]\d{0,3}$/.test(limit)) throw new CliUsageError("--limit must be an integer from 1 to 1000");
  const { entries } = await listAudit(await db(), { actor: str("actor"), action: str("action"), target: str("target"), limit: limit ? Number(limit) : 100 });
  if (flags.json) console.log(JSON.stringify(entries));
  else
    printTable(
      ["at", "actor", "role", "action", "target", "change"],
      entries.map((e) => [e.at, e.actor, e.role, e.action, e.target, `${JSON.stringify(e.before)} -> ${JSON.stringify(e.after)}`]),
      "no audit entries",
    );
  return 0;
}
