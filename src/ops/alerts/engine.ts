// The alert job: evaluate every condition, open/close incidents (once each),
// then deliver due notifications with bounded retries. Ticks never overlap.
import type { Config } from "../../config/schema";
import type { Logger } from "../../lib/logger";
import { evaluateConditions, type ConditionDeps } from "./conditions";
import { sendTelegram, sendWebhook } from "./deliver";
import { resolveTarget } from "../../callbacks/target";
import { type AdoptedIncident, type AlertRow, dueNotifications, firingAlertKeys, noteNotificationAttempt, syncAlerts, viewAlert, type Channel, type SyncResult } from "./store";
import { isStorageFault, describeFault } from "../../db/storage-fault";
import { newId } from "../../lib/ids";
import { writeTx } from "../../db/client";
import type { ActiveCondition } from "./conditions";

/** Attempts per notification; the waits between them double from 30 s (30 s … 1 h cap). */
export const MAX_ATTEMPTS = 8;
const retryDelay = (attempt: number) => Math.min(3_600_000, 30_000 * 2 ** (attempt - 1));
const SEND_TIMEOUT_MS = 10_000;

export interface AlertDeps extends ConditionDeps {
  ctx: ConditionDeps["ctx"] & { logger: Logger; config: Pick<Config, "alerts" | "callbacks"> };
}

export function alertChannels(config: Pick<Config, "alerts">): Channel[] {
  const a = config.alerts;
  const out: Channel[] = [];
  if (a.webhook_url && a.webhook_secret) out.push("webhook");
  if (a.telegram_bot_token && a.telegram_chat_id) out.push("telegram");
  return out;
}

/** An incident known only in memory: the database took no writes when it opened (or resolved). */
interface MemoryIncident {
  row: AlertRow;
  sent: { fired: Set<Channel>; resolved: Set<Channel> };
}

export class AlertEngine {
  private running: Promise<SyncResult> | null = null;
  /** By key: incidents notified from memory while storage failed, recorded once it works again. */
  private readonly memory = new Map<string, MemoryIncident>();
  private readonly abort = new AbortController();
  private readonly logger: Logger;

  constructor(private readonly d: AlertDeps) {
    this.logger = d.ctx.logger.child({ component: "alerts" });
  }

  /** One evaluation and delivery round (the job calls it; tests too). */
  tick(): Promise<SyncResult> {
    if (this.running) return this.running;
    this.running = this.run().finally(() => (this.running = null));
    return this.running;
  }

  private async run(): Promise<SyncResult> {
    const now = this.d.ctx.clock.now();
    const active = await evaluateConditions(this.d);
    const channels = alertChannels(this.d.ctx.config);
    let result: SyncResult;
    try {
      result = await writeTx(this.d.ctx.db, async (tx) => await syncAlerts(tx, active, now, channels, [...this.memory.values()]));
      this.memory.clear();
    } catch (e) {
      if (!isStorageFault(e)) throw e;
      // The database takes no writes (the disk is full, the file is gone): the alert that
      // says so must not depend on it. Incidents open and close in memory and are sent
      // directly; the next sync that commits records them.
      result = await this.syncInMemory(active, now);
      for (const a of result.fired) this.logger.warn("alert fired", { alert: a.id, condition: a.condition, subject: a.subject, message: a.message, recorded: false, storage: describeFault(e) });
      for (const a of result.resolved) this.logger.info("alert resolved", { alert: a.id, condition: a.condition, subject: a.subject, recorded: false });
      await this.deliverFromMemory(channels);
      return result;
    }
    for (const a of result.fired) this.logger.warn("alert fired", { alert: a.id, condition: a.condition, subject: a.subject, message: a.message });
    for (const a of result.resolved) this.logger.info("alert resolved", { alert: a.id, condition: a.condition, subject: a.subject });
    await this.deliver();
    return result;
  }

  private async syncInMemory(active: ActiveCondition[], now: number): Promise<SyncResult> {
    let open: Set<string>;
    try {
      open = new Set((await firingAlertKeys(this.d.ctx.db)));
    } catch {
      open = new Set();
    }
    const fired: AlertRow[] = [];
    const resolved: AlertRow[] = [];
    const seen = new Set<string>();
    for (const c of active) {
      const key = `${c.condition}:${c.subject}`;
      seen.add(key);
      const cur = this.memory.get(key);
      if (open.has(key) || cur?.row.status === "firing") continue;
      const row: AlertRow = { id: newId("AL"), key, condition: c.condition, subject: c.subject, message: c.message, lastMessage: c.message, status: "firing", firedAt: now, resolvedAt: null };
      // A resolved memory incident of the same key starting again: the new one replaces it
      // (both were notified; only the newer is recorded once storage is back).
      this.memory.set(key, { row, sent: { fired: new Set(), resolved: new Set() } });
      fired.push(row);
    }
    for (const [key, m] of this.memory) {
      if (m.row.status !== "firing" || seen.has(key)) continue;
      m.row = { ...m.row, status: "resolved", resolvedAt: now };
      resolved.push(m.row);
    }
    return { fired, resolved };
  }

  /** Sends what the memory incidents still owe each channel (retried on the next tick). */
  private async deliverFromMemory(channels: readonly Channel[]): Promise<void> {
    for (const m of this.memory.values()) {
      const events: Array<"fired" | "resolved"> = m.row.status === "resolved" ? ["fired", "resolved"] : ["fired"];
      for (const event of events) {
        for (const channel of channels) {
          if (m.sent[event].has(channel) || this.abort.signal.aborted) continue;
          try {
            await this.send(channel, `msg_${m.row.id}_${event}_${channel}`, event, m.row);
            m.sent[event].add(channel);
          } catch (e) {
            this.logger.warn("alert notification failed", { alert: m.row.id, channel, recorded: false, error: String((e as Error)?.message ?? e) });
          }
        }
      }
    }
  }

  private async send(channel: Channel, id: string, event: "fired" | "resolved", a: AlertRow): Promise<void> {
    const cfg = this.d.ctx.config.alerts;
    const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(SEND_TIMEOUT_MS)]);
    if (channel === "webhook") {
      if (!cfg.webhook_url || !cfg.webhook_secret) throw new Error("alerts.webhook_url is no longer configured");
      // The same target rules as callbacks (DESIGN 10): no special-purpose address, unless allowed.
      await resolveTarget(cfg.webhook_url, this.d.ctx.config.callbacks.allow_private_targets);
      await sendWebhook({ url: cfg.webhook_url, secret: cfg.webhook_secret }, id, event, viewAlert(a), this.d.ctx.clock.now(), signal);
    } else {
      if (!cfg.telegram_bot_token || !cfg.telegram_chat_id) throw new Error("alerts.telegram_* is no longer configured");
      await sendTelegram({ apiBase: cfg.telegram_api_base, botToken: cfg.telegram_bot_token, chatId: cfg.telegram_chat_id }, event, viewAlert(a), signal);
    }
  }

  private async deliver(): Promise<void> {
    const db = this.d.ctx.db;
    for (const { n, a } of await dueNotifications(db, this.d.ctx.clock.now())) {
      if (this.abort.signal.aborted) return;
      let error: string | null = null;
      try {
        await this.send(n.channel, n.id, n.event, a);
      } catch (e) {
        if (this.abort.signal.aborted) return; // shutdown: not an attempt, sent on the next start
        error = String((e as Error)?.message ?? e);
      }
      const now = this.d.ctx.clock.now();
      const attempts = n.attempts + 1;
      const state = error === null ? "sent" : attempts >= MAX_ATTEMPTS ? "failed" : "pending";
      await writeTx(db, async (tx) => await noteNotificationAttempt(tx, n.id, { state, attempts, lastError: error, sentAt: error === null ? now : null, nextAttemptAt: error === null ? n.nextAttemptAt : now + retryDelay(attempts) }));
      if (error !== null) this.logger.warn("alert notification failed", { alert: a.id, channel: n.channel, attempt: attempts, gaveUp: state === "failed", error });
    }
  }

  /** Aborts a delivery in flight and waits for the round to end. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running?.catch(() => {});
  }
}
