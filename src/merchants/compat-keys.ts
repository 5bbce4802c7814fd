// A merchant's compatibility keys (DESIGN 19): the epusdt API token and the EPay key that shop
// plugins sign with. Encrypted with the master key like API keys; never logged or audited in
// full (the audit entry keeps a masked hint). Set by `merchant set --epusdt-token/--epay-key`
// and the merchant's developer settings; an empty value clears it (that protocol is then off).
import { type Db, type DbOrTx, writeTx } from "../db/client";
import type { Cipher } from "../secrets/cipher";
import { recordAudit, type Actor } from "../audit/log";
import { MerchantNotFound, type Merchant } from "./service";
import { compatKeysOf, findMerchantByUid, patchMerchant } from "./store";
import type { CompatProtocol } from "../lib/compat-signing";
import { DomainError, type DomainCode, type DomainProblem } from "../errors";

/** A compatibility key refused: its problems by code (src/errors.ts DOMAIN_ERRORS), one per key. */
export class CompatKeyError extends DomainError {}

export interface CompatKeyDeps {
  db: Db;
  cipher: Cipher;
  now: () => number;
}

/** "" or null clears the key. */
export type CompatKeyPatch = Partial<Record<CompatProtocol, string | null>>;

const COLUMN = { epusdt: "epusdtTokenEnc", epay: "epayKeyEnc" } as const satisfies Record<CompatProtocol, keyof Merchant>;

const PROBLEM = {
  epusdt: { length: "compat_key.epusdt_length", characters: "compat_key.epusdt_characters" },
  epay: { length: "compat_key.epay_length", characters: "compat_key.epay_characters" },
} as const satisfies Record<CompatProtocol, Record<string, DomainCode>>;

/** Printable ASCII without spaces, 8-128 characters: what the plugins' settings fields hold. */
export function compatKeyProblem(protocol: CompatProtocol, key: string): DomainProblem | null {
  if (key.length < 8 || key.length > 128) return { code: PROBLEM[protocol].length, params: {} };
  if (!/^[\x21-\x7e]+$/.test(key)) return { code: PROBLEM[protocol].characters, params: {} };
  return null;
}

/** "abcd…wxyz": enough to recognise a key, never enough to use it. */
export function maskCompatKey(key: string): string {
  return key.length <= 8 ? "…" : `${key.slice(0, 4)}…${key.slice(-4)}`;
}

export interface CompatKeyState {
  merchantUid: string;
  epusdt: string | null;
  epay: string | null;
}

/** Which keys are set, as masked hints. */
export function compatKeyState(deps: { cipher: Cipher }, m: Merchant): CompatKeyState {
  const hint = (enc: string | null) => (enc ? maskCompatKey(deps.cipher.decrypt(enc)) : null);
  return { merchantUid: m.uid, epusdt: hint(m.epusdtTokenEnc), epay: hint(m.epayKeyEnc) };
}

export async function setCompatKeys(deps: CompatKeyDeps, uid: string, patch: CompatKeyPatch, actor: Actor): Promise<CompatKeyState> {
  const set: Partial<Pick<Merchant, "epusdtTokenEnc" | "epayKeyEnc">> = {};
  const problems: DomainProblem[] = [];
  for (const p of Object.keys(patch) as CompatProtocol[]) {
    const key = patch[p]?.trim() ?? "";
    if (!key) {
      set[COLUMN[p]] = null;
      continue;
    }
    const problem = compatKeyProblem(p, key);
    if (problem) problems.push(problem);
    else set[COLUMN[p]] = deps.cipher.encrypt(key);
  }
  if (problems.length) throw new CompatKeyError(problems);
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const before = await findMerchantByUid(tx, uid);
    if (!before) throw new MerchantNotFound(uid);
    const after = await patchMerchant(tx, before, set, now);
    const state = compatKeyState(deps, after);
    await recordAudit(tx, { ...actor, at: now, action: "merchant.compat_keys", target: `merchant:${uid}`, before: compatKeyState(deps, before), after: state });
    return state;
  });
}

/** The merchant's key for a protocol, decrypted; undefined when it has none (the protocol is off). */
export function compatSecret(deps: { cipher: Cipher }, m: Pick<Merchant, "epusdtTokenEnc" | "epayKeyEnc">, protocol: CompatProtocol): string | undefined {
  const enc = m[COLUMN[protocol]];
  return enc ? deps.cipher.decrypt(enc) : undefined;
}

/** The same, by merchant id (the callback worker signs each delivery with the key in force). */
export async function compatSecretOf(deps: { db: DbOrTx; cipher: Cipher }, merchantId: number, protocol: CompatProtocol): Promise<string | undefined> {
  const m = await compatKeysOf(deps.db, merchantId);
  return m ? compatSecret(deps, m, protocol) : undefined;
}
