// Alert notifications: a webhook signed per Standard Webhooks
// (webhook-id / webhook-timestamp / webhook-signature: v1,base64 HMAC-SHA256 of
// "id.timestamp.body" with the base64 secret after "whsec_"), and Telegram's
// Bot API sendMessage. The bot token sits in the URL path: it never reaches a log.
import { createHmac } from "node:crypto";
import { VERSION } from "../../version";
import type { AlertView } from "./store";

export interface WebhookTarget {
  url: string;
  secret: string;
}

export interface TelegramTarget {
  apiBase: string;
  botToken: string;
  chatId: string;
}

export function webhookSecretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

export function signStandardWebhook(secret: string, id: string, timestampSec: number, body: string): string {
  const mac = createHmac("sha256", webhookSecretBytes(secret)).update(`${id}.${timestampSec}.${body}`).digest("base64");
  return `v1,${mac}`;
}

export function webhookBody(event: "fired" | "resolved", alert: AlertView, now: number): string {
  return JSON.stringify({ type: `alert.${event}`, timestamp: new Date(now).toISOString(), data: alert });
}

async function expectOk(res: Response): Promise<void> {
  if (res.ok) return;
  const text = (await res.text().catch(() => "")).slice(0, 200);
  throw new Error(`HTTP ${res.status}${text ? `: ${text}` : ""}`);
}

export async function sendWebhook(t: WebhookTarget, id: string, event: "fired" | "resolved", alert: AlertView, now: number, signal: AbortSignal): Promise<void> {
  const body = webhookBody(event, alert, now);
  const ts = Math.floor(now / 1000);
  const res = await fetch(t.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": `stablegate/${VERSION}`,
      "webhook-id": id,
      "webhook-timestamp": String(ts),
      "webhook-signature": signStandardWebhook(t.secret, id, ts, body),
    },
    body,
    redirect: "manual",
    signal,
  });
  await expectOk(res);
}

export function telegramText(event: "fired" | "resolved", a: AlertView): string {
  const head = event === "fired" ? `🔴 FIRING ${a.condition} (${a.subject})` : `✅ RESOLVED ${a.condition} (${a.subject})`;
  const when = event === "fired" ? `since ${a.firedAt}` : `fired ${a.firedAt}, resolved ${a.resolvedAt}`;
  return `${head}\n${event === "fired" ? a.message : a.lastMessage}\n${when}\nstablegate alert ${a.id}`;
}

export async function sendTelegram(t: TelegramTarget, event: "fired" | "resolved", alert: AlertView, signal: AbortSignal): Promise<void> {
  const url = `${t.apiBase.replace(/\/+$/, "")}/bot${t.botToken}/sendMessage`;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: t.chatId, text: telegramText(event, alert), disable_web_page_preview: true }),
      signal,
    });
    await expectOk(res);
  } catch (e) {
    throw new Error(String((e as Error)?.message ?? e).split(t.botToken).join("***"));
  }
}
