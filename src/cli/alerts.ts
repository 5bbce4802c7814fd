// `stablegate alerts list [--firing] [--json]`: alert incidents, newest first.
import type { Db } from "../db/client";
import { listAlerts } from "../ops/alerts/store";
import { printTable } from "./common";

export { ALERTS_USAGE } from "./help-text";
import { ALERTS_USAGE } from "./help-text";

export async function alertsCommand(db: () => Promise<Db>, sub: string | undefined, flags: Record<string, string | true>): Promise<number> {
  if (sub !== "list") {
    console.error(`usage: stablegate ${ALERTS_USAGE}`);
    return 2;
  }
  const rows = await listAlerts(await db(), { status: flags.firing ? "firing" : undefined, limit: 1000 });
  if (flags.json) console.log(JSON.stringify(rows));
  else
    printTable(
      ["id", "status", "condition", "subject", "fired", "resolved", "message"],
      rows.map((r) => [r.id, r.status, r.condition, r.subject, r.firedAt, r.resolvedAt, r.lastMessage]),
      flags.firing ? "no alert is firing" : "no alerts",
    );
  return 0;
}
