// Alert incidents and their notification outbox. An incident opens when its
// condition starts and closes when it resolves; each of the two writes one
// notification per channel in the same transaction, so a restart neither
// loses nor repeats one.
import { and, desc, eq } from "drizzle-orm";
import { type Db, writeTx } from "../../db/client";
import { alertNotifications, alerts } from "../../db/schema";
import { newId } from "../../lib/ids";
import type { ActiveCondition } from "./conditions";
import { isPg, pgOf, pgSide } from "../../db/engine";
import { type AlertView, viewAlert } from "./view";

const pg = pgSide<typeof import("./store.pg")>(() => require("./store.pg"));

export type Channel = "webhook" | "telegram";
export type AlertRow = typeof alerts.$inferSelect;

const keyOf = (c: Pick<ActiveCondition, "condition" | "subject">) => `${c.condition}:${c.subject}`;

export interface SyncResult {
  fired: AlertRow[];
  resolved: AlertRow[];
}

/**
 * An incident opened while the database took no writes (a full disk: the
 * engine notified from memory, src/ops/alerts/engine.ts), with the channels
 * each of its notifications already reached. Recorded on the next sync that
 * commits, its sent notifications as sent: nothing is notified twice.
 */
export interface AdoptedIncident {
  row: AlertRow;
  sent: { fired: ReadonlySet<Channel>; resolved: ReadonlySet<Channel> };
}

export async function syncAlerts(db: Db, active: ActiveCondition[], now: number, channels: readonly Channel[], adopted: readonly AdoptedIncident[] = []): Promise<SyncResult> {
  if (isPg(db)) return await pg.syncAlerts(pgOf(db), active, now, channels, adopted);
  return await writeTx(db, (tx) => {
    const open = new Map(tx.select().from(alerts).where(eq(alerts.status, "firing")).all().map((a) => [a.key, a]));
    const fired: AlertRow[] = [];
    const resolved: AlertRow[] = [];
    const notify = (alertId: string, event: "fired" | "resolved", sent?: ReadonlySet<Channel>) => {
      for (const channel of channels) {
        const done = sent?.has(channel) ?? false;
        tx.insert(alertNotifications)
          .values({ id: newId("msg_"), alertId, event, channel, state: done ? "sent" : "pending", nextAttemptAt: now, createdAt: now, sentAt: done ? now : null })
          .run();
      }
    };
    for (const a of adopted) {
      if (open.has(a.row.key)) continue;
      const row = tx.insert(alerts).values(a.row).returning().get();
      notify(row.id, "fired", a.sent.fired);
      if (row.status === "resolved") notify(row.id, "resolved", a.sent.resolved);
      else open.set(row.key, row);
    }
    const seen = new Set<string>();
    for (const c of active) {
      const key = keyOf(c);
      if (seen.has(key)) continue;
      seen.add(key);
      const cur = open.get(key);
      if (cur) {
        if (cur.lastMessage !== c.message) tx.update(alerts).set({ lastMessage: c.message }).where(eq(alerts.id, cur.id)).run();
        continue;
      }
      const row = tx
        .insert(alerts)
        .values({ id: newId("AL"), key, condition: c.condition, subject: c.subject, message: c.message, lastMessage: c.message, status: "firing", firedAt: now })
        .returning()
        .get();
      notify(row.id, "fired");
      fired.push(row);
    }
    for (const [key, a] of open) {
      if (seen.has(key)) continue;
      const row = tx.update(alerts).set({ status: "resolved", resolvedAt: now }).where(eq(alerts.id, a.id)).returning().get();
      notify(row.id, "resolved");
      resolved.push(row);
    }
    return { fired, resolved };
  });
}

export { type AlertView, viewAlert };

/** Incidents, newest first (the back office and `stablegate alerts list`). */
export async function listAlerts(db: Db, opts: { status?: "firing" | "resolved"; limit?: number } = {}): Promise<AlertView[]> {
  if (isPg(db)) return await pg.listAlerts(pgOf(db), opts);
  const q = db.select().from(alerts);
  const rows = (opts.status ? q.where(eq(alerts.status, opts.status)) : q).orderBy(desc(alerts.firedAt), desc(alerts.id)).limit(opts.limit ?? 100).all();
  return rows.map(viewAlert);
}

export async function dueNotifications(db: Db, now: number, limit = 50) {
  if (isPg(db)) return await pg.dueNotifications(pgOf(db), now, limit);
  return db
    .select({ n: alertNotifications, a: alerts })
    .from(alertNotifications)
    .innerJoin(alerts, eq(alerts.id, alertNotifications.alertId))
    .where(and(eq(alertNotifications.state, "pending")))
    .orderBy(alertNotifications.createdAt)
    .limit(limit)
    .all()
    .filter((r) => r.n.nextAttemptAt <= now);
}

/** The keys of the open incidents (the engine's in-memory sync, when the database takes no writes). */
export async function firingAlertKeys(db: Db): Promise<string[]> {
  if (isPg(db)) return await pg.firingAlertKeys(pgOf(db));
  return db.select({ key: alerts.key }).from(alerts).where(eq(alerts.status, "firing")).all().map((a) => a.key);
}

/** A delivery attempt's outcome: its state, attempt count, error and when it went out or is retried. */
export async function noteNotificationAttempt(
  db: Db,
  id: string,
  set: { state: "sent" | "failed" | "pending"; attempts: number; lastError: string | null; sentAt: number | null; nextAttemptAt: number },
): Promise<void> {
  if (isPg(db)) return await pg.noteNotificationAttempt(pgOf(db), id, set);
  db.update(alertNotifications).set(set).where(eq(alertNotifications.id, id)).run();
}
