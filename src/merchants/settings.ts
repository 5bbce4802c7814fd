// Merchant settings an operator (CLI `merchant set`, back office) or the merchant
// itself changes: the default callback URL (spec 6.1) and the /openapi IP
// allowlist. Validated here, audited in the same transaction. Setting a default
// URL releases the merchant's held callbacks (DESIGN 5: never dropped).
import { isIP } from "node:net";
import { afterCommit, type Db, type DbOrTx, writeTx } from "../db/client";
import { recordAudit, type Actor } from "../audit/log";
import { notifyUrlProblem } from "../lib/target-url";
import { callbacksDue } from "../db/callbacks-due";
import { MerchantNotFound, type Merchant } from "./service";
import { findMerchantByUid, patchMerchant } from "./store";

export class SettingsError extends Error {}

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
  releaseHeldCallbacks: (tx: DbOrTx, merchantId: number, now: number) => number;
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
export function parseCidr(raw: string): { cidr: string } | { problem: string } {
  const s = raw.trim();
  const slash = s.indexOf("/");
  const addr = slash < 0 ? s : s.slice(0, slash);
  const v = isIP(addr);
  if (!v || addr.includes("%")) return { problem: `${JSON.stringify(raw)} is not an IPv4 or IPv6 address or CIDR` };
  const max = v === 4 ? 32 : 128;
  if (slash < 0) return { cidr: `${addr.toLowerCase()}/${max}` };
  const p = s.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > max) return { problem: `${JSON.stringify(raw)} has an invalid prefix length (0-${max})` };
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
  const problems: string[] = [];
  if (patch.defaultNotifyUrl !== undefined) {
    const url = patch.defaultNotifyUrl?.trim() ?? "";
    if (!url) set.defaultCallbackUrl = null;
    else {
      const p = url.length > 2048 ? "must be at most 2048 characters" : notifyUrlProblem(url, allowPrivate);
      if (p) problems.push(`default notify URL ${p}`);
      else set.defaultCallbackUrl = url;
    }
  }
  if (patch.ipAllowlist !== undefined) {
    const items = (patch.ipAllowlist ?? []).map((x) => x.trim()).filter((x) => x);
    const cidrs: string[] = [];
    for (const item of items) {
      const r = parseCidr(item);
      if ("problem" in r) problems.push(`IP allowlist: ${r.problem}`);
      else if (!cidrs.includes(r.cidr)) cidrs.push(r.cidr);
    }
    if (cidrs.length > 100) problems.push("IP allowlist: at most 100 entries");
    set.ipAllowlist = cidrs.length ? JSON.stringify(cidrs) : null;
  }
  if (problems.length) throw new SettingsError(problems.join("; "));
  return set;
}

export function updateMerchantSettings(deps: SettingsDeps, uid: string, patch: SettingsPatch, actor: Actor): { settings: MerchantSettings; released: number } {
  const set = validate(patch, deps.allowPrivateTargets);
  const now = deps.now();
  const out = writeTx(deps.db, (tx) => {
    const before = findMerchantByUid(tx, uid);
    if (!before) throw new MerchantNotFound(uid);
    const after = patchMerchant(tx, before, set, now);
    const released = after.defaultCallbackUrl ? deps.releaseHeldCallbacks(tx, after.id, now) : 0;
    if (released) afterCommit(tx, callbacksDue);
    recordAudit(tx, {
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
