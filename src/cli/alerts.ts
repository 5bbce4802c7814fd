// `stablegate alerts list [--firing] [--json]`: alert incidents, newest first.
import type { Db } from "../db/client";
import { listAlerts } from "../ops/alerts/store";

export const ALERTS_USAGE = "alerts list [--firing] [--json]    alert incidents, newest first (--firing: only open ones)";

export function alertsCommand(db: () => Db, sub: string | undefined, flags: Record<string, string | true>): number {
  if (sub !== "list") {
    console.error(`usage: stablegate ${ALERTS_USAGE}`);
    return 2;
  }
  const rows = listAlerts(db(), { status: flags.firing ? "firing" : undefined, limit: 1000 });
  if (flags.json) console.log(JSON.stringify(rows));
  else for (const r of rows) console.log(`${r.id}\t${r.status}\t${r.condition}\t${r.subject}\t${r.firedAt}\t${r.resolvedAt ?? "-"}\t${r.lastMessage}`);
  return 0;
}
