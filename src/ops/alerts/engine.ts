// The alert job: evaluate every condition, open/close incidents (once each),
// then deliver due notifications with bounded retries. Ticks never overlap.
import { eq } from "drizzle-orm";
import type { Config } from "../../config/schema";
import { alertNotifications } from "../../db/schema";
import type { Logger } from "../../lib/logger";
import { evaluateConditions, type ConditionDeps } from "./conditions";
import { sendTelegram, sendWebhook } from "./deliver";
import { resolveTarget } from "../../callbacks/target";
import { dueNotifications, syncAlerts, viewAlert, type Channel, type SyncResult } from "./store";

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

export class AlertEngine {
  private running: Promise<SyncResult> | null = null;
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
    const result = syncAlerts(this.d.ctx.db, evaluateConditions(this.d), now, alertChannels(this.d.ctx.config));
    for (const a of result.fired) this.logger.warn("alert fired", { alert: a.id, condition: a.condition, subject: a.subject, message: a.message });
    for (const a of result.resolved) this.logger.info("alert resolved", { alert: a.id, condition: a.condition, subject: a.subject });
    await this.deliver();
    return result;
  }

  private async deliver(): Promise<void> {
    const cfg = this.d.ctx.config.alerts;
    const db = this.d.ctx.db;
    for (const { n, a } of dueNotifications(db, this.d.ctx.clock.now())) {
      if (this.abort.signal.aborted) return;
      const view = viewAlert(a);
      const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(SEND_TIMEOUT_MS)]);
      let error: string | null = null;
      try {
        if (n.channel === "webhook") {
          if (!cfg.webhook_url || !cfg.webhook_secret) throw new Error("alerts.webhook_url is no longer configured");
          // The same target rules as callbacks (DESIGN 10): no special-purpose address, unless allowed.
          await resolveTarget(cfg.webhook_url, this.d.ctx.config.callbacks.allow_private_targets);
          await sendWebhook({ url: cfg.webhook_url, secret: cfg.webhook_secret }, n.id, n.event, view, this.d.ctx.clock.now(), signal);
        } else {
          if (!cfg.telegram_bot_token || !cfg.telegram_chat_id) throw new Error("alerts.telegram_* is no longer configured");
          await sendTelegram({ apiBase: cfg.telegram_api_base, botToken: cfg.telegram_bot_token, chatId: cfg.telegram_chat_id }, n.event, view, signal);
        }
      } catch (e) {
        if (this.abort.signal.aborted) return; // shutdown: not an attempt, sent on the next start
        error = String((e as Error)?.message ?? e);
      }
      const now = this.d.ctx.clock.now();
      const attempts = n.attempts + 1;
      const state = error === null ? "sent" : attempts >= MAX_ATTEMPTS ? "failed" : "pending";
      db.update(alertNotifications)
        .set({ state, attempts, lastError: error, sentAt: error === null ? now : null, nextAttemptAt: error === null ? n.nextAttemptAt : now + retryDelay(attempts) })
        .where(eq(alertNotifications.id, n.id))
        .run();
      if (error !== null) this.logger.warn("alert notification failed", { alert: a.id, channel: n.channel, attempt: attempts, gaveUp: state === "failed", error });
    }
  }

  /** Aborts a delivery in flight and waits for the round to end. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running?.catch(() => {});
  }
}
