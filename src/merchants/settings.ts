// Merchant settings an operator (CLI `merchant set`, back office) or the merchant
// itself changes: the default callback URL (spec 6.1) and the /openapi IP
// allowlist. Validated here, audited in the same transaction. Setting a default
// URL releases the merchant's held callbacks (DESIGN 5: never dropped).
import { isIP } from "node:net";
import { afterCommit, type Db, type DbOrTx, writeTx } from "../db/client";
import { recordAudit, type Actor } from "../audit/log";
import { notifyUrlProblemKind } from "../lib/target-url";
import { DomainError, type DomainProblem } from "../errors";
import { callbacksDue } from "../db/callbacks-due";
import { MerchantNotFound, type Merchant } from "./service";
import { findMerchantByUid, patchMerchant } from "./store";

/** Refused settings, each problem by code (src/errors.ts "callback_url.*", "ip_allowlist.*"): the CLI prints the English, pages translate the codes. */
export class SettingsError extends DomainError {}

export interface SettingsDeps {
  db: Db;
  now: () => number;
  /** callbacks.allow_private_targets: the same SSRF rule as notifyUrl. */
  allowPrivateTargets: boolean;
  /**
   * The port to the callbacks outbox (merchants rank below callbacks): moves the merchant's held
   * callbacks back to the queue in the caller's transaction, returns how many
   * (`callbacks/store.ts` `releaseHeldCallbacks`).
   */
  releaseHeldCallbacks: (tx: DbOrTx, merchantId: number, now: number) => Promise<number>;
}

export interface SettingsPatch {
  /** "" or null clears it. */
  defaultNotifyUrl?: string | null;
  /** [] or null clears it (any address may call). */
  ipAllowlist?: string[] | null;
}

export interface MerchantSettings {
  merchantUid: string;
  defaultNotifyUrl: string | null;
  ipAllowlist: string[];
}

/** `a.b.c.d/n`, `x::y/n`, or a bare address (one host); returns the canonical text or a reason. */
export function parseCidr(raw: string): { cidr: string } | { problem: DomainProblem } {
  const s = raw.trim();
  const slash = s.indexOf("/");
  const addr = slash < 0 ? s : s.slice(0, slash);
  const v = isIP(addr);
  if (!v || addr.includes("%")) return { problem: { code: "ip_allowlist.not_ip", params: { entry: JSON.stringify(raw) } } };
  const max = v === 4 ? 32 : 128;
  if (slash < 0) return { cidr: `${addr.toLowerCase()}/${max}` };
  const p = s.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > max) return { problem: { code: "ip_allowlist.prefix", params: { entry: JSON.stringify(raw), max } } };
  return { cidr: `${addr.toLowerCase()}/${p}` };
}

/** The stored allowlist (empty = no restriction). */
export function ipAllowlistOf(m: Pick<Merchant, "ipAllowlist">): string[] {
  return m.ipAllowlist ? (JSON.parse(m.ipAllowlist) as string[]) : [];
}

export function merchantSettings(m: Merchant): MerchantSettings {
  return { merchantUid: m.uid, defaultNotifyUrl: m.defaultCallbackUrl, ipAllowlist: ipAllowlistOf(m) };
}

function validate(patch: SettingsPatch, allowPrivate: boolean): Partial<Pick<Merchant, "defaultCallbackUrl" | "ipAllowlist">> {
  const set: Partial<Pick<Merchant, "defaultCallbackUrl" | "ipAllowlist">> = {};
  const problems: DomainProblem[] = [];
  if (patch.defaultNotifyUrl !== undefined) {
    const url = patch.defaultNotifyUrl?.trim() ?? "";
    if (!url) set.defaultCallbackUrl = null;
    else {
      const p = url.length > 2048 ? "too_long" : notifyUrlProblemKind(url, allowPrivate);
      if (p) problems.push({ code: `callback_url.${p}`, params: p === "too_long" ? { max: 2048 } : {} });
      else set.defaultCallbackUrl = url;
    }
  }
  if (patch.ipAllowlist !== undefined) {
    const items = (patch.ipAllowlist ?? []).map((x) => x.trim()).filter((x) => x);
    const cidrs: string[] = [];
    for (const item of items) {
      const r = parseCidr(item);
      if ("problem" in r) problems.push(r.problem);
      else if (!cidrs.includes(r.cidr)) cidrs.push(r.cidr);
    }
    if (cidrs.length > 100) problems.push({ code: "ip_allowlist.too_many", params: { max: 100 } });
    set.ipAllowlist = cidrs.length ? JSON.stringify(cidrs) : null;
  }
  if (problems.length) throw new SettingsError(problems);
  return set;
}

export async function updateMerchantSettings(deps: SettingsDeps, uid: string, patch: SettingsPatch, actor: Actor): Promise<{ settings: MerchantSettings; released: number }> {
  const set = validate(patch, deps.allowPrivateTargets);
  const now = deps.now();
  const out = await writeTx(deps.db, async (tx) => {
    const before = await findMerchantByUid(tx, uid);
    if (!before) throw new MerchantNotFound(uid);
    const after = await patchMerchant(tx, before, set, now);
    const released = after.defaultCallbackUrl ? await deps.releaseHeldCallbacks(tx, after.id, now) : 0;
    if (released) afterCommit(tx, callbacksDue);
    await recordAudit(tx, {
      ...actor,
      at: now,
      action: "merchant.settings",
      target: `merchant:${uid}`,
      before: merchantSettings(before),
      after: { ...merchantSettings(after), ...(released ? { releasedCallbacks: released } : {}) },
    });
    return { settings: merchantSettings(after), released };
  });
  return out;
}
