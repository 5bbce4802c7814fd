// Back-office users (DESIGN 12): created by `stablegate user create`, `serve
// --demo` or the one-time setup link. Passwords are argon2id (Bun.password);
// every change ends the user's sessions where it should.
import { randomBytes } from "node:crypto";
import { type Db, writeTx } from "../db/client";
import { DomainError } from "../errors";
import type { Cipher } from "../secrets/cipher";
import { recordAudit, type Actor } from "../audit/log";
import { findMerchantByUid } from "../merchants/service";
import { clearLoginFailures, findUser, insertUser, patchUser, revokeUserSessions, type UserRow } from "./store";

// The users' storage is store.ts; these are its reads and writes the pages, the CLI and sign-in use.
export { clearLoginFailures, findUser, hasOperator, listUsers, revokeUserSessions, userById, type UserRow } from "./store";

export type Role = "operator" | "merchant";

export interface UserDeps {
  db: Db;
  cipher: Cipher;
  now: () => number;
}

/** A refused user change, by code (src/errors.ts "user.*"): the CLI prints its English, pages translate the code. */
export class UserError extends DomainError {}

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** 20 characters from a 57-symbol alphabet without look-alikes: ~116 bits. */
export function generatePassword(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  const bytes = randomBytes(40);
  let out = "";
  for (const b of bytes) {
    if (b >= alphabet.length * 4) continue; // no modulo bias
    out += alphabet[b % alphabet.length];
    if (out.length === 20) break;
  }
  return out.length === 20 ? out : generatePassword();
}

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

export function hashPasswordSync(password: string): string {
  return Bun.password.hashSync(password, { algorithm: "argon2id" });
}

export function validatePassword(password: string): void {
  if ([...password].length < 12) throw new UserError("user.password_short", { min: 12 });
  if (password.length > 256) throw new UserError("user.password_long", { max: 256 });
}

/**
 * Creates a user with a generated password (or the given one) and returns both. `mustChangePassword`:
 * the password is handed over by an operator, so the user chooses their own at the first sign-in.
 */
export async function createUser(
  deps: UserDeps,
  input: { username: string; role: Role; merchantUid?: string; password?: string; mustChangePassword?: boolean },
  actor: Actor,
): Promise<{ user: UserRow; password: string }> {
  const username = input.username.trim();
  if (!USERNAME.test(username)) throw new UserError("user.username_invalid");
  if (input.role !== "operator" && input.role !== "merchant") throw new UserError("user.role_invalid");
  if (input.role === "merchant" && !input.merchantUid) throw new UserError("user.merchant_missing");
  if (input.role === "operator" && input.merchantUid) throw new UserError("user.operator_bound");
  const password = input.password ?? generatePassword();
  validatePassword(password);
  const hash = hashPasswordSync(password);
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    let merchantId: number | null = null;
    if (input.merchantUid) {
      const m = await findMerchantByUid(tx, input.merchantUid);
      if (!m) throw new UserError("user.no_merchant", { uid: input.merchantUid });
      merchantId = m.id;
    }
    if (await findUser(tx, username)) throw new UserError("user.exists", { username });
    const user = await insertUser(tx, { username, role: input.role, merchantId, passwordHash: hash, mustChangePassword: input.mustChangePassword ?? false, createdAt: now, updatedAt: now });
    await recordAudit(tx, { ...actor, action: "user.create", target: `user:${username}`, after: { role: input.role, merchantUid: input.merchantUid ?? null }, at: now });
    return { user, password };
  });
}

async function mustFind(db: Db, username: string): Promise<UserRow> {
  const u = await findUser(db, username);
  if (!u) throw new UserError("user.not_found", { username });
  return u;
}

export async function setUserStatus(deps: UserDeps, username: string, status: "active" | "disabled", actor: Actor): Promise<UserRow> {
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const u = await mustFind(tx, username);
    const row = await patchUser(tx, u.id, { status, updatedAt: now });
    if (status === "disabled") await revokeUserSessions(tx, u.id, now);
    await recordAudit(tx, { ...actor, action: status === "disabled" ? "user.disable" : "user.enable", target: `user:${username}`, before: { status: u.status }, after: { status }, at: now });
    return row;
  });
}

/** A new generated password; every session of the user ends. `mustChangePassword` as in createUser. */
export async function resetPassword(deps: UserDeps, username: string, actor: Actor, opts: { mustChangePassword?: boolean } = {}): Promise<{ user: UserRow; password: string }> {
  const password = generatePassword();
  const hash = hashPasswordSync(password);
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const u = await mustFind(tx, username);
    const user = await patchUser(tx, u.id, { passwordHash: hash, mustChangePassword: opts.mustChangePassword ?? false, updatedAt: now });
    await revokeUserSessions(tx, u.id, now);
    await clearLoginFailures(tx, username);
    await recordAudit(tx, { ...actor, action: "user.reset_password", target: `user:${username}`, at: now });
    return { user, password };
  });
}

/** The user changes their own password (current one checked by the caller); other sessions end. */
export async function changePassword(deps: UserDeps, userId: number, newPassword: string, keepSessionId: string): Promise<void> {
  validatePassword(newPassword);
  const hash = await hashPassword(newPassword);
  const now = deps.now();
  await writeTx(deps.db, async (tx) => {
    await patchUser(tx, userId, { passwordHash: hash, mustChangePassword: false, updatedAt: now });
    await revokeUserSessions(tx, userId, now, keepSessionId);
  });
}

/** Removes the second factor (lost phone): the user signs in with the password alone and enrolls again. */
export async function resetTotp(deps: UserDeps, username: string, actor: Actor): Promise<UserRow> {
  const now = deps.now();
  return await writeTx(deps.db, async (tx) => {
    const u = await mustFind(tx, username);
    const row = await patchUser(tx, u.id, { totpSecretEnc: null, totpEnabledAt: null, totpLastStep: null, recoveryCodes: "[]", updatedAt: now });
    await revokeUserSessions(tx, u.id, now);
    await recordAudit(tx, { ...actor, action: "user.reset_2fa", target: `user:${username}`, before: { totp: u.totpEnabledAt !== null }, after: { totp: false }, at: now });
    return row;
  });
}

export function describeUser(u: UserRow, merchantUid: string | null) {
  return {
    username: u.username,
    role: u.role,
    merchantUid,
    status: u.status,
    totp: u.totpEnabledAt !== null,
    createdAt: new Date(u.createdAt).toISOString(),
  };
}
