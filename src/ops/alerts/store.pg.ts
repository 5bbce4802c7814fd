// ops/alerts/store.ts on PostgreSQL (db/engine.ts: the store dispatches here for a PostgreSQL handle).
// Every gateway evaluates the conditions (alerts stay on every gateway, docs/postgresql.md); a
// sync takes a transaction-scoped advisory lock first, so two gateways' syncs take turns and an
// incident is opened (and notified) once, whichever gateway saw it first.
import { and, desc, eq, sql } from "drizzle-orm";
import { firstRow, type PgQ } from "../../db/engine";
import { alertNotifications, alerts } from "../../db/schema-pg";
import { newId } from "../../lib/ids";
import type { ActiveCondition } from "./conditions";
import type { AdoptedIncident, AlertRow, Channel, SyncResult } from "./store";
import { type AlertView, viewAlert } from "./view";

const keyOf = (c: Pick<ActiveCondition, "condition" | "subject">) => `${c.condition}:${c.subject}`;

export async function syncAlerts(db: PgQ, active: ActiveCondition[], now: number, channels: readonly Channel[], adopted: readonly AdoptedIncident[] = []): Promise<SyncResult> {
  return await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('stablegate.alerts.sync'))`);
    const open = new Map((await tx.select().from(alerts).where(eq(alerts.status, "firing"))).map((a) => [a.key, a]));
    const fired: AlertRow[] = [];
    const resolved: AlertRow[] = [];
    const notify = async (alertId: string, event: "fired" | "resolved", sent?: ReadonlySet<Channel>) => {
      for (const channel of channels) {
        const done = sent?.has(channel) ?? false;
        await tx.insert(alertNotifications).values({ id: newId("msg_"), alertId, event, channel, state: done ? "sent" : "pending", nextAttemptAt: now, createdAt: now, sentAt: done ? now : null });
      }
    };
    for (const a of adopted) {
      if (open.has(a.row.key)) continue;
      const row = (await firstRow(tx.insert(alerts).values(a.row).returning()))!;
      await notify(row.id, "fired", a.sent.fired);
      if (row.status === "resolved") await notify(row.id, "resolved", a.sent.resolved);
      else open.set(row.key, row);
    }
    const seen = new Set<string>();
    for (const c of active) {
      const key = keyOf(c);
      if (seen.has(key)) continue;
      seen.add(key);
      const cur = open.get(key);
      if (cur) {
        if (cur.lastMessage !== c.message) await tx.update(alerts).set({ lastMessage: c.message }).where(eq(alerts.id, cur.id));
        continue;
      }
      const row = (await firstRow(
        tx.insert(alerts).values({ id: newId("AL"), key, condition: c.condition, subject: c.subject, message: c.message, lastMessage: c.message, status: "firing", firedAt: now }).returning(),
      ))!;
      await notify(row.id, "fired");
      fired.push(row);
    }
    for (const [key, a] of open) {
      if (seen.has(key)) continue;
      const row = (await firstRow(tx.update(alerts).set({ status: "resolved", resolvedAt: now }).where(eq(alerts.id, a.id)).returning()))!;
      await notify(row.id, "resolved");
      resolved.push(row);
    }
    return { fired, resolved };
  });
}

export async function listAlerts(db: PgQ, opts: { status?: "firing" | "resolved"; limit?: number } = {}): Promise<AlertView[]> {
  const rows = await db
    .select()
    .from(alerts)
    .where(opts.status ? eq(alerts.status, opts.status) : undefined)
    .orderBy(desc(alerts.firedAt), desc(alerts.id))
    .limit(opts.limit ?? 100);
  return rows.map(viewAlert);
}

export async function dueNotifications(db: PgQ, now: number, limit = 50) {
  const rows = await db
    .select({ n: alertNotifications, a: alerts })
    .from(alertNotifications)
    .innerJoin(alerts, eq(alerts.id, alertNotifications.alertId))
    .where(and(eq(alertNotifications.state, "pending")))
    .orderBy(alertNotifications.createdAt)
    .limit(limit);
  return rows.filter((r) => r.n.nextAttemptAt <= now);
}

export async function firingAlertKeys(db: PgQ): Promise<string[]> {
  return (await db.select({ key: alerts.key }).from(alerts).where(eq(alerts.status, "firing"))).map((a) => a.key);
}

export async function noteNotificationAttempt(
  db: PgQ,
  id: string,
  set: { state: "sent" | "failed" | "pending"; attempts: number; lastError: string | null; sentAt: number | null; nextAttemptAt: number },
): Promise<void> {
  await db.update(alertNotifications).set(set).where(eq(alertNotifications.id, id));
}
