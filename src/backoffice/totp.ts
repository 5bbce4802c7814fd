// TOTP second factor (RFC 6238 via otpauth) and single-use recovery codes.
import * as OTPAuth from "otpauth";
import { createHash, randomBytes } from "node:crypto";
import { writeTx } from "../db/client";
import type { UserDeps, UserRow } from "./users";
import { patchUser, userById } from "./store";

const ISSUER = "stablegate";

function totpFor(username: string, secretBase32: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: ISSUER, label: username, algorithm: "SHA1", digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secretBase32) });
}

export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

export function totpUri(username: string, secretBase32: string): string {
  return totpFor(username, secretBase32).toString();
}

/** The current code (tests and the enrollment page's self-check use it). */
export function totpCode(secretBase32: string, at: number): string {
  return totpFor("x", secretBase32).generate({ timestamp: at });
}

/** The 30-second step the code belongs to (one step of clock drift either way), or null. */
export function totpStep(username: string, secretBase32: string, code: string, at: number): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totpFor(username, secretBase32).validate({ token, timestamp: at, window: 1 });
  return delta === null ? null : Math.floor(at / 30_000) + delta;
}

const hashCode = (c: string) => createHash("sha256").update(c.replace(/[\s-]/g, "").toLowerCase()).digest("hex");

export function newRecoveryCodes(n = 10): string[] {
  return Array.from({ length: n }, () => {
    const hex = randomBytes(5).toString("hex");
    return `${hex.slice(0, 5)}-${hex.slice(5)}`;
  });
}

/** Keeps a new secret, encrypted, until a code from the app proves it was stored (enableTotp). */
export async function storePendingTotpSecret(deps: UserDeps, userId: number, secretBase32: string): Promise<void> {
  await writeTx(deps.db, async (tx) => await patchUser(tx, userId, { totpSecretEnc: deps.cipher.encrypt(secretBase32), updatedAt: deps.now() }));
}

/** Stores the secret and recovery codes once the user proved the app works with one code. */
export async function enableTotp(deps: UserDeps, userId: number, secretBase32: string, recovery: string[], usedStep: number): Promise<void> {
  const now = deps.now();
  await writeTx(deps.db, async (tx) => await patchUser(tx, userId, { totpSecretEnc: deps.cipher.encrypt(secretBase32), totpEnabledAt: now, totpLastStep: usedStep, recoveryCodes: JSON.stringify(recovery.map(hashCode)), updatedAt: now }));
}

export function userTotpSecret(deps: Pick<UserDeps, "cipher">, u: UserRow): string | null {
  return u.totpEnabledAt !== null && u.totpSecretEnc ? deps.cipher.decrypt(u.totpSecretEnc) : null;
}

/** A TOTP code or an unused recovery code (which is then spent). */
export async function verifySecondFactor(deps: UserDeps, u: UserRow, code: string): Promise<boolean> {
  const secret = userTotpSecret(deps, u);
  if (!secret) return false;
  const step = totpStep(u.username, secret, code, deps.now());
  if (step !== null) {
    // A code (or an older one) already used does not work again: a watched code cannot be replayed.
    return await writeTx(deps.db, async (tx) => {
      const fresh = await userById(tx, u.id);
      if (!fresh || (fresh.totpLastStep !== null && step <= fresh.totpLastStep)) return false;
      await patchUser(tx, u.id, { totpLastStep: step });
      return true;
    });
  }
  const h = hashCode(code);
  return await writeTx(deps.db, async (tx) => {
    const fresh = await userById(tx, u.id);
    const codes = JSON.parse(fresh?.recoveryCodes ?? "[]") as string[];
    if (!codes.includes(h)) return false;
    await patchUser(tx, u.id, { recoveryCodes: JSON.stringify(codes.filter((c) => c !== h)) });
    return true;
  });
}
